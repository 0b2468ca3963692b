/**
 * The `limits:` section (docs/abuse-limits.md): the per-key request quota, the velocity rules
 * per purpose, and where SMS may go. Kept beside config.ts, like retention-config.ts; here is
 * only shape, defaults and the warnings an operator should see at startup and in `herald doctor`.
 */
import { PURPOSES, type IntakeLimitsPolicy, type Purpose, type RequestQuota, type VelocityRule } from '../domain/index.js';

export interface RawQuota {
  limit?: number;
  window_s?: number;
}

export interface RawVelocityRule {
  max: number;
  window_s: number;
}

export interface RawLimitsConfig {
  requests?: RawQuota & { enabled?: boolean; keys?: Record<string, RawQuota> };
  velocity?: Partial<Record<Purpose, { per_destination?: RawVelocityRule; per_recipient?: RawVelocityRule }>>;
  sms?: { countries?: string[]; refuse_number_types?: string[] };
}

/**
 * 600 requests a minute per key: ten a second sustained, far above a login form's codes and
 * below what a leaked key in a loop sends; a batch of 1,000 notifications is one request.
 */
export const DEFAULT_REQUEST_QUOTA: RequestQuota = Object.freeze({ limit: 600, windowS: 60 });

/**
 * One-time codes, by default: 5 per destination per 10 minutes (a person retrying a login form
 * needs two or three; a pumping script wants hundreds) and 10 per recipient per hour (across all
 * of the recipient's numbers and addresses, so rotating numbers for one account does not help).
 */
export const DEFAULT_OTP_VELOCITY: readonly VelocityRule[] = Object.freeze([
  { subject: 'destination', max: 5, windowMs: 600_000 },
  { subject: 'recipient', max: 10, windowMs: 3_600_000 },
]);

/** Premium-rate numbers are where SMS pumping's money goes; nobody needs a login code there. */
export const DEFAULT_REFUSED_NUMBER_TYPES: readonly string[] = Object.freeze(['PREMIUM_RATE']);

/** The resolved `limits:` section: the policy intake and the HTTP layer enforce. */
export type LimitsConfig = IntakeLimitsPolicy;

function quota(q: RawQuota, base: RequestQuota): RequestQuota {
  return { limit: q.limit ?? base.limit, windowS: q.window_s ?? base.windowS };
}

function rule(subject: VelocityRule['subject'], r: RawVelocityRule | undefined): VelocityRule[] {
  return r === undefined ? [] : [{ subject, max: r.max, windowMs: r.window_s * 1000 }];
}

/** Defaults under what the file says: a purpose named under `velocity` has exactly the rules given there. */
export function resolveLimits(raw: RawLimitsConfig | undefined): LimitsConfig {
  const r = raw ?? {};
  const requests = r.requests?.enabled === false ? null : quota(r.requests ?? {}, DEFAULT_REQUEST_QUOTA);
  const velocity: Partial<Record<Purpose, readonly VelocityRule[]>> = { otp: DEFAULT_OTP_VELOCITY };
  for (const p of PURPOSES) {
    const v = r.velocity?.[p];
    if (v !== undefined) velocity[p] = [...rule('destination', v.per_destination), ...rule('recipient', v.per_recipient)];
  }
  return {
    requests,
    requestOverrides: Object.fromEntries(Object.entries(r.requests?.keys ?? {}).map(([id, q]) => [id, quota(q, requests ?? DEFAULT_REQUEST_QUOTA)])),
    velocity,
    smsCountries: r.sms?.countries ? [...new Set(r.sms.countries)] : null,
    smsRefusedNumberTypes: r.sms?.refuse_number_types ?? DEFAULT_REFUSED_NUMBER_TYPES,
  };
}

/** What an operator should be told at startup and by `herald doctor` about these limits (empty: nothing). */
export function limitsWarnings(limits: LimitsConfig, smsAccounts: number): string[] {
  const out: string[] = [];
  if (smsAccounts > 0 && limits.smsCountries === null) {
    out.push(
      'limits.sms.countries is not set: SMS may go to every country. Set it to the countries you send to (e.g. [US, CA]) to stop SMS pumping to far-away numbers (docs/abuse-limits.md)',
    );
  }
  if (smsAccounts > 0 && limits.smsCountries !== null && limits.smsCountries.length === 0) {
    out.push('limits.sms.countries is empty: every SMS is refused (country_not_allowed)');
  }
  if ((limits.velocity.otp ?? []).length === 0) out.push('limits.velocity.otp has no rules: one-time codes are not limited per destination or recipient');
  return out;
}
