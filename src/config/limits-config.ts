/**
 * The `limits:` section (docs/abuse-limits.md): the per-key request quota, the velocity rules
 * per purpose, and where SMS may go. Kept beside config.ts, like retention-config.ts; here is
 * only shape, defaults and the warnings an operator should see at startup and in `herald doctor`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { PURPOSES, type IntakeLimitsPolicy, type Purpose, type RequestQuota, type VelocityRule } from '../domain/index.js';
import { byId, section, settle, withDefault, type Settled } from '../schema/setting.js';

const QUOTA_LIMIT = { minimum: 1, maximum: 10_000_000 } as const;
const QUOTA_WINDOW = { minimum: 1, maximum: 86_400 } as const;

/** One key's own quota; what it leaves out is the section's. */
const KeyQuota = section({
  limit: Type.Optional(Type.Integer({ ...QUOTA_LIMIT, description: 'Requests per window.' })),
  window_s: Type.Optional(Type.Integer({ ...QUOTA_WINDOW, description: 'The fixed window, in seconds.' })),
});

/** One velocity rule: at most `max` notifications of the purpose in any sliding window of `window_s`. */
function velocityRule(description: string) {
  return Type.Optional(
    section(
      {
        max: Type.Integer({ minimum: 1, maximum: 100_000, description: 'At most this many notifications of the purpose in any window.' }),
        window_s: Type.Integer({ minimum: 1, maximum: 604_800, description: 'The sliding window, in seconds.' }),
      },
      { description },
    ),
  );
}

const PurposeVelocity = section(
  {
    per_destination: velocityRule('Per phone number, e-mail address or push token (counted under a keyed hash).'),
    per_recipient: velocityRule('Per recipient id, across all its destinations.'),
  },
  { description: 'A purpose named here has exactly these rules (an empty object: none).' },
);

/**
 * One-time codes, by default: 5 per destination per 10 minutes (a person retrying a login form
 * needs two or three; a pumping script wants hundreds) and 10 per recipient per hour (across all
 * of the recipient's numbers and addresses, so rotating numbers for one account does not help).
 * Every other purpose has no rule unless the file names it.
 */
const OTP_VELOCITY: Static<typeof PurposeVelocity> = { per_destination: { max: 5, window_s: 600 }, per_recipient: { max: 10, window_s: 3600 } };

/** Number types libphonenumber names; SMS to any of those listed in `refuse_number_types` is refused. */
const NUMBER_TYPES = ['PREMIUM_RATE', 'SHARED_COST', 'TOLL_FREE', 'VOIP', 'PERSONAL_NUMBER', 'PAGER', 'UAN', 'VOICEMAIL', 'FIXED_LINE'] as const;

/** The `limits:` section's shape and defaults. */
export const LimitsSection = section(
  {
    requests: withDefault(
      section(
        {
          enabled: withDefault(Type.Boolean({ description: 'Whether requests are counted and limited at all.' }), true),
          /** 600 a minute: ten a second sustained, far above a login form's codes and below what a leaked key in a loop sends; a batch of 1,000 notifications is one request. */
          limit: withDefault(Type.Integer({ ...QUOTA_LIMIT, description: 'Requests per window.' }), 600),
          window_s: withDefault(Type.Integer({ ...QUOTA_WINDOW, description: 'The fixed window in seconds.' }), 60),
          keys: byId(KeyQuota, 'Per API key id (key_...) or dashboard user id (usr_...): its own quota.'),
        },
        {
          description:
            'Per API key (or dashboard user) request quota over a fixed window, shared by every API process through the database; 429 rate_limited with RateLimit, RateLimit-Policy and Retry-After.',
        },
      ),
      {},
    ),
    velocity: withDefault(
      section(
        {
          otp: withDefault(PurposeVelocity, OTP_VELOCITY),
          transactional: Type.Optional(PurposeVelocity),
          conversational: Type.Optional(PurposeVelocity),
          marketing: Type.Optional(PurposeVelocity),
          alert: Type.Optional(PurposeVelocity),
        } satisfies Record<Purpose, unknown>,
        { description: 'Per purpose. Default: otp 5 per destination per 600 s and 10 per recipient per 3600 s; other purposes none.' },
      ),
      {},
    ),
    sms: withDefault(
      section({
        countries: Type.Optional(
          Type.Array(Type.String({ pattern: '^([A-Z]{2}|001)$' }), {
            maxItems: 300,
            description:
              'ISO 3166-1 alpha-2 codes SMS may be sent to (001: non-geographic numbers). Absent: every country, with a warning at startup and in herald doctor; empty: none.',
          }),
        ),
        /** Premium-rate numbers are where SMS pumping's money goes; nobody needs a login code there. */
        refuse_number_types: withDefault(
          Type.Array(Type.Unsafe<(typeof NUMBER_TYPES)[number]>({ type: 'string', enum: [...NUMBER_TYPES] }), {
            uniqueItems: true,
            description: 'Number types (libphonenumber) SMS is never sent to. Default [PREMIUM_RATE].',
          }),
          ['PREMIUM_RATE'],
        ),
      }),
      {},
    ),
  },
  {
    description:
      'The limits on the way in (docs/abuse-limits.md): per-key request quota, velocity of notifications per destination and recipient, where SMS may go.',
  },
);

/** The section as a file may give it. */
export type RawLimitsConfig = Static<typeof LimitsSection>;

/** The resolved `limits:` section: the policy intake and the HTTP layer enforce. */
export type LimitsConfig = IntakeLimitsPolicy;

function rules(v: Settled<typeof PurposeVelocity>): VelocityRule[] {
  const rule = (subject: VelocityRule['subject'], r: { max: number; window_s: number } | null): VelocityRule[] =>
    r === null ? [] : [{ subject, max: r.max, windowMs: r.window_s * 1000 }];
  return [...rule('destination', v.per_destination), ...rule('recipient', v.per_recipient)];
}

const quotaOf = (q: { limit: number; window_s: number }): RequestQuota => ({ limit: q.limit, windowS: q.window_s });

/** The section as a file gives it (validated) as the domain's policy; tests build one from a partial section. */
export function resolveLimits(raw: RawLimitsConfig | undefined): LimitsConfig {
  return limitsPolicy(settle(LimitsSection, raw));
}

/** The settled section as the domain's policy: a purpose named under `velocity` has exactly the rules given there. */
export function limitsPolicy(r: Settled<typeof LimitsSection>): LimitsConfig {
  const base = quotaOf(r.requests);
  // A key's own quota fills what it leaves out from the section's, or from the defaults while the quota is off.
  const under = r.requests.enabled ? base : quotaOf(settle(LimitsSection, {}).requests);
  const velocity: Partial<Record<Purpose, readonly VelocityRule[]>> = {};
  for (const p of PURPOSES) {
    const v = r.velocity[p];
    if (v !== null) velocity[p] = rules(v);
  }
  return {
    requests: r.requests.enabled ? base : null,
    requestOverrides: Object.fromEntries(
      Object.entries(r.requests.keys).map(([id, q]) => [id, { limit: q.limit ?? under.limit, windowS: q.window_s ?? under.windowS }]),
    ),
    velocity,
    smsCountries: r.sms.countries === null ? null : [...new Set(r.sms.countries)],
    smsRefusedNumberTypes: r.sms.refuse_number_types,
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
