/**
 * The limits a notification passes at intake (docs/abuse-limits.md), the defence against SMS
 * pumping (toll fraud through OTP forms):
 *
 *   - SMS only to the countries the operator enabled (`limits.sms.countries`), and never to the
 *     number types refused (`limits.sms.refuse_number_types`, default premium rate), read from
 *     libphonenumber's full metadata by the request's one parse (phone-number.ts): checked on
 *     the request's own data, before its key is taken;
 *   - velocity: at most N notifications of a purpose per destination and per recipient in a
 *     sliding window (default for `otp`: 5 per number per 10 minutes, 10 per recipient per hour),
 *     counted in the store (`store.intakeLimits`) so every API process shares the count, under a
 *     keyed hash of the subject: HMAC-SHA256 with the server secret `destination-hash`, the
 *     same one (and the same `channel:destination` input) masked destinations keep, so the
 *     store never holds a destination in clear for this.
 *
 * Every refusal names the limit in the problem document's `limit` and is counted in
 * `herald_intake_limit_refusals_total{limit}`; a velocity refusal carries Retry-After.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { velocityLimitName, type Channel, type IntakeLimitName, type IntakeLimitsPolicy, type Purpose, type VelocityRule } from '../domain/index.js';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { HeraldError } from '../errors.js';
import type { DeliveryCounters } from '../metrics/counters.js';
import type { Store, VelocitySubjectCheck } from '../store/store.js';
import { readPhoneNumber, type PhoneNumberFacts } from './phone-number.js';

/** What a velocity take reads of a notification (a NewNotification has it; intake passes its routes before building one). */
export interface VelocityRequest {
  tenantId: string;
  purpose: Purpose;
  recipient: { id: string };
  deliveries: ReadonlyArray<{ channel: Channel; destination: string }>;
}

/** The server secret of the destination hashes (delivery/retention-service.ts keys masked destinations with it too). */
const HASH_SECRET = 'destination-hash';

/** A route of a notification as far as the SMS checks care: its channel and destination. */
export interface LimitedRoute {
  channel: Channel;
  destination: string;
}

export interface IntakeLimiterOptions {
  store: Store;
  clock: Clock;
  /** Where a take that cannot be given back is logged (ids only; the subjects are keyed hashes). */
  logger: Pick<Logger, 'warn'>;
  policy: IntakeLimitsPolicy;
  counters?: DeliveryCounters;
}

/** What a velocity take recorded: give it back when the notification is not committed after all. */
export type VelocityTicket = readonly string[];

/** The intake side of the limits: SMS country and number-type checks, and velocity takes. */
export class IntakeLimiter {
  private secret: Promise<string> | null = null;

  constructor(private readonly opts: IntakeLimiterOptions) {}

  get policy(): IntakeLimitsPolicy {
    return this.opts.policy;
  }

  /**
   * Refuses an SMS route to a country not enabled or to a refused number type (422, naming it).
   * `phone`: what intake's check read of the recipient's number (`CheckedRequest.phone`), so the
   * number is not parsed again; a route to another number is read here.
   */
  checkSms(routes: readonly LimitedRoute[], phone: PhoneNumberFacts | null): void {
    const { smsCountries, smsRefusedNumberTypes } = this.opts.policy;
    if (smsCountries === null && smsRefusedNumberTypes.length === 0) return;
    for (const r of routes) {
      if (r.channel !== 'sms') continue;
      const facts = phone !== null && phone.number === r.destination ? phone : readPhoneNumber(r.destination);
      // Intake refuses an invalid number before this; one that reaches here anyway has no country ("001") and no type.
      const country = facts?.country ?? '001';
      if (smsCountries !== null && !smsCountries.includes(country)) {
        this.refused('sms_country');
        throw new HeraldError(
          'country_not_allowed',
          `SMS to ${country} is not enabled (limits.sms.countries: ${smsCountries.length ? smsCountries.join(', ') : 'none'})`,
          [{ field: 'recipient.phone', message: `is in ${country}, where SMS is not enabled` }],
          { limit: { name: 'sms_country', country, allowed: [...smsCountries] } },
        );
      }
      const type = facts?.type;
      if (type !== undefined && smsRefusedNumberTypes.includes(type)) {
        this.refused('sms_number_type');
        throw new HeraldError(
          'number_type_not_allowed',
          `SMS to ${type} numbers is refused (limits.sms.refuse_number_types)`,
          [{ field: 'recipient.phone', message: `is a ${type} number` }],
          { limit: { name: 'sms_number_type', number_type: type, country } },
        );
      }
    }
  }

  /**
   * Counts a notification against its purpose's velocity rules, in the store; throws 429
   * `velocity_limited` (nothing recorded) when a destination or the recipient is at its bound.
   * A purpose without rules passes without a store call.
   */
  async take(n: VelocityRequest, now: number): Promise<VelocityTicket> {
    const rules = this.opts.policy.velocity[n.purpose] ?? [];
    if (rules.length === 0) return [];
    const subjects: Array<VelocitySubjectCheck & { channel: Channel | null }> = [];
    for (const rule of rules) {
      if (rule.subject === 'recipient') {
        subjects.push({ ...check(rule, await this.hash(`recipient:${n.recipient.id}`)), channel: null });
        continue;
      }
      const seen = new Set<string>();
      for (const d of n.deliveries) {
        const input = `${d.channel}:${d.destination}`;
        if (seen.has(input)) continue;
        seen.add(input);
        subjects.push({ ...check(rule, await this.hash(input)), channel: d.channel });
      }
    }
    const longest = Math.max(...Object.values(this.opts.policy.velocity).flatMap((rs) => (rs ?? []).map((r) => r.windowMs)));
    const r = await this.opts.store.intakeLimits.takeVelocity({ tenantId: n.tenantId, purpose: n.purpose, subjects, now, pruneBefore: now - longest });
    if (r.ok) return r.eventIds;
    const refused = subjects.find((s) => s.rule === r.refused.rule && s.hash === r.refused.hash)!;
    const name = velocityLimitName(refused.rule);
    this.refused(name);
    const windowS = refused.windowMs / 1000;
    const what = refused.rule === 'recipient' ? 'this recipient' : `this ${refused.channel === 'sms' ? 'phone number' : `${refused.channel} destination`}`;
    throw new HeraldError(
      'velocity_limited',
      `${what} was sent ${refused.max} ${n.purpose} notifications in the last ${windowS} s (the limit); try again later`,
      [],
      {
        limit: { name, purpose: n.purpose, max: refused.max, window_s: windowS, ...(refused.channel ? { channel: refused.channel } : {}) },
        retryAfterS: Math.max(1, Math.ceil((r.retryAt - now) / 1000)),
      },
    );
  }

  /** Gives back a take whose notification was not committed (a conflict, a failure). Never throws. */
  async release(ticket: VelocityTicket): Promise<void> {
    if (ticket.length === 0) return;
    await this.opts.store.intakeLimits
      .releaseVelocity(ticket)
      .catch((err) => this.opts.logger.warn({ err, takes: ticket.length }, 'cannot give back a velocity take; it counts until its window passes'));
  }

  private hash(input: string): Promise<string> {
    if (this.secret === null) {
      const secret = this.opts.store.preferences.serverSecret(HASH_SECRET, () => randomBytes(32).toString('base64url'), this.opts.clock.now());
      // A failed read is not kept: the next notification asks again.
      secret.catch(() => (this.secret = null));
      this.secret = secret;
    }
    return this.secret.then((s) => createHmac('sha256', s).update(input).digest('hex'));
  }

  private refused(limit: IntakeLimitName): void {
    this.opts.counters?.series.intakeLimitRefusals.inc({ limit });
  }
}

function check(rule: VelocityRule, hash: string): VelocitySubjectCheck {
  return { rule: rule.subject, hash, max: rule.max, windowMs: rule.windowMs };
}
