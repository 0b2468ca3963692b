/**
 * What the worker checks between a claim and the calls, for every attempt (retries included):
 * the recipients' opt-outs and the tenant's suppression list, read for the whole batch in one
 * query. Deliveries that must not be sent are stopped (`decide`'s `suppress` event, their
 * claim's attempt closed as not sent) and written with the batch's outcomes; the rest are
 * called. Marketing e-mail that goes gets its one-click unsubscribe header fields here, at
 * send time, so they always point at the current public URL and key.
 *
 * Then time-aware sending (docs/scheduling.md), on what would be called: the recipient's quiet
 * hours in their time zone (read with the opt-outs, same query) and the purpose's frequency caps
 * (a slot taken in the store just before the call, shared by every worker). A delivery held by
 * either is deferred (`decide`'s `defer`: `ready` at the window's end or when the cap allows, its
 * claim's attempt withdrawn), expired when that is at or after its expiry, or suppressed over a
 * cap whose action says so; the worker writes these holds before any call. Codes are never held.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import {
  decide,
  quietHoursVerdict,
  type DeliveryEvent,
  type HoldReason,
  type PurposeCaps,
  type Random,
  type RetryPolicy,
  type SubmitOutcome,
} from '../domain/index.js';
import type { SendCheck } from '../store/preference-store.js';
import type { CapTake, CapTakeResult, ClaimedDelivery, HoldWrite, Store, TransitionWrite } from '../store/store.js';
import type { SchedulingPolicies } from './scheduling-policies.js';

export interface SendTimeChecksOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Builds List-Unsubscribe headers for marketing e-mail; without it (no public URL) none are added. */
  links?: UnsubscribeHeaderBuilder | null;
  /** The tenants' quiet hours and frequency caps; null turns time-aware sending off (nothing is held). */
  scheduling: SchedulingPolicies | null;
  /**
   * The moment from which a call for a claim is no longer useful: its expiry less its account's
   * arrival allowance (src/domain/arrival.ts). A hold or a retry that could only end later ends the
   * delivery expired. Default: the expiry itself.
   */
  usefulUntil?: (c: ClaimedDelivery) => number;
}

/**
 * The one thing the worker needs from preferences/: the header fields of a one-click
 * unsubscribe link (RFC 8058) for one recipient's scope. Injected, so delivery/ does not
 * depend on how links are signed (preferences/unsubscribe-links.ts implements it).
 */
export interface UnsubscribeHeaderBuilder {
  headers(scope: { tenantId: string; recipientId: string; channel: 'email' | 'sms' | 'push'; purpose: 'marketing' }): Promise<Record<string, string>>;
}

/** A claimed batch split by the checks: what to call, and the writes that stop the others. */
export interface CheckedBatch {
  send: ClaimedDelivery[];
  /** Guarded transitions (with their attempt closed as not sent), for the batch's one write. */
  stopped: TransitionWrite[];
  /** Deliveries quiet hours or a frequency cap hold: written before any call (store.scheduling.holdClaimed). */
  held: HoldWrite[];
}

/** The decision inputs the worker already has for its claims. */
export interface CheckContext {
  policyFor: (claim: ClaimedDelivery) => RetryPolicy;
  random: Random;
}

/** What a delivery's closed attempt says when the send-time check stopped it. */
const NOT_SENT_BECAUSE = {
  unsubscribed: 'not sent: the recipient opted out of this purpose on this channel',
  suppressed: 'not sent: the address is on the suppression list',
  stopped: 'not sent: the number replied STOP (START lifts it)',
} as const;

/** Only the purpose that opt-outs are about carries the one-click link; codes and receipts do not need one. */
function wantsUnsubscribeLink(c: ClaimedDelivery): boolean {
  return c.channel === 'email' && c.purpose === 'marketing';
}

/** The worker's check between claim and call; stateless apart from the links' cached key. */
export class SendTimeChecks {
  constructor(private readonly opts: SendTimeChecksOptions) {}

  /** The last useful moment for a call of `c` (its expiry less the arrival allowance). */
  private usefulUntil(c: ClaimedDelivery): number {
    return this.opts.usefulUntil?.(c) ?? c.expiresAt;
  }

  /**
   * Splits a claimed batch into the deliveries to call (marketing e-mail with its unsubscribe
   * headers added) and the writes that end the others `terminal/unsubscribed` or
   * `terminal/suppressed`. Fails closed: when the check cannot be read, nothing in the batch
   * is sent and every attempt closes as `retryable/preference_check_failed`.
   */
  async check(claimed: ClaimedDelivery[], ctx: CheckContext): Promise<CheckedBatch> {
    if (claimed.length === 0) return { send: [], stopped: [], held: [] };
    let verdicts: Map<string, SendCheck>;
    let callable: ClaimedDelivery[];
    let deadTargets: ClaimedDelivery[];
    try {
      const checks = await this.opts.store.preferences.sendabilityOf(claimed.map((c) => c.deliveryId));
      verdicts = new Map(checks.map((c) => [c.deliveryId, c]));
      const sendable = claimed.filter((c) => verdicts.get(c.deliveryId)?.verdict === 'send');
      // A push subscription deactivated since intake (another delivery to it was refused as
      // unregistered): never sent to again.
      const dead = await this.deactivatedPushTargets(sendable);
      deadTargets = sendable.filter((c) => dead.has(c.deliveryId));
      callable = sendable.filter((c) => !dead.has(c.deliveryId));
    } catch (err) {
      this.opts.logger.error({ err, deliveries: claimed.length }, 'send-time preference check failed; nothing in the batch is sent, it retries');
      return { send: [], stopped: claimed.map((c) => this.notSent(c, ctx, { kind: 'outcome', code: 'preference_check_failed' })), held: [] };
    }
    const { go, held, failed } = await this.timeAware(callable, verdicts, ctx);
    let send: ClaimedDelivery[];
    try {
      send = await this.withHeaders(go, verdicts);
    } catch (err) {
      this.opts.logger.error({ err, deliveries: go.length }, 'unsubscribe headers could not be built; those deliveries are not sent, they retry');
      return {
        send: [],
        stopped: [
          ...this.stoppedOf(claimed, verdicts, deadTargets, ctx),
          ...[...go, ...failed].map((c) => this.notSent(c, ctx, { kind: 'outcome', code: 'preference_check_failed' })),
        ],
        held,
      };
    }
    const stopped = [
      ...this.stoppedOf(claimed, verdicts, deadTargets, ctx),
      ...failed.map((c) =>
        this.notSent(c, ctx, {
          kind: 'outcome',
          code: 'scheduling_check_failed',
          message: 'not sent: the quiet-hours or frequency-cap check could not be made',
        }),
      ),
    ];
    return { send, stopped, held };
  }

  /** The writes that stop what preferences, suppressions and dead push targets refuse. */
  private stoppedOf(claimed: ClaimedDelivery[], verdicts: Map<string, SendCheck>, deadTargets: ClaimedDelivery[], ctx: CheckContext): TransitionWrite[] {
    return claimed.flatMap((c) => {
      const v = verdicts.get(c.deliveryId)?.verdict;
      if (v === 'send') return deadTargets.includes(c) ? [this.notSent(c, ctx, { kind: 'dead_target' })] : [];
      if (v === 'unsubscribed' || v === 'suppressed' || v === 'stopped') return [this.notSent(c, ctx, { kind: 'suppress', reason: v })];
      // The claimed delivery was not found by the check: never send what could not be checked.
      return [this.notSent(c, ctx, { kind: 'outcome', code: 'preference_check_failed' })];
    });
  }

  /**
   * Quiet hours, then frequency caps, for the deliveries that would be called, in claim order (a
   * batch with two messages to one person takes their slots one after the other). A cap slot is
   * taken only for a delivery that goes: one outside its window and under its caps. A delivery
   * whose check cannot be made is not sent (`failed`: it retries on its ladder).
   */
  private async timeAware(
    callable: ClaimedDelivery[],
    verdicts: Map<string, SendCheck>,
    ctx: CheckContext,
  ): Promise<{ go: ClaimedDelivery[]; held: HoldWrite[]; failed: ClaimedDelivery[] }> {
    const policies = this.opts.scheduling;
    if (!policies) return { go: callable, held: [], failed: [] };
    const go: ClaimedDelivery[] = [];
    const held: HoldWrite[] = [];
    const failed: ClaimedDelivery[] = [];
    const capped: { c: ClaimedDelivery; caps: PurposeCaps; take: CapTake }[] = [];
    const now = this.opts.clock.now();
    for (const c of callable) {
      // A code held until morning (or until a cap allows) is a failed sign-in: never held, and no read on its path.
      if (c.purpose === 'otp') {
        go.push(c);
        continue;
      }
      try {
        const policy = await policies.policyOf(c.tenantId);
        const check = verdicts.get(c.deliveryId)!;
        const zone = check.timeZone ?? policy.timeZone;
        const usefulUntil = this.usefulUntil(c);
        const quiet = quietHoursVerdict({ now, expiresAt: usefulUntil, zone, window: policy.quietHours[c.purpose] });
        if (quiet.kind !== 'send') {
          held.push(this.hold(c, ctx, { type: 'defer', until: quiet.kind === 'defer' ? quiet.until : usefulUntil, reason: 'quiet_hours' }));
          continue;
        }
        const caps = policy.frequencyCaps[c.purpose];
        if (!caps || caps.caps.length === 0) {
          go.push(c);
          continue;
        }
        const take = {
          tenantId: c.tenantId,
          recipientId: check.recipientId,
          channel: c.channel,
          purpose: c.purpose,
          deliveryId: c.deliveryId,
          caps: caps.caps,
          now,
        };
        capped.push({ c, caps, take });
      } catch (err) {
        this.opts.logger.error({ err, deliveryId: c.deliveryId }, 'send-time quiet-hours check failed; the delivery is not sent, it retries');
        failed.push(c);
      }
    }
    if (capped.length === 0) return { go, held, failed };
    // The batch's cap slots in one transaction: the sends counted by every worker, through the store.
    let takes: CapTakeResult[];
    try {
      takes = await this.opts.store.scheduling.takeCapSlots(capped.map((x) => x.take));
    } catch (err) {
      this.opts.logger.error({ err, deliveries: capped.length }, 'send-time frequency-cap check failed; those deliveries are not sent, they retry');
      return { go, held, failed: [...failed, ...capped.map((x) => x.c)] };
    }
    capped.forEach(({ c, caps }, i) => {
      const take = takes[i]!;
      if (take.ok) go.push(c);
      else if (caps.action === 'suppress') held.push(this.hold(c, ctx, { type: 'suppress', reason: 'suppressed', detail: 'frequency_capped' }));
      else held.push(this.hold(c, ctx, { type: 'defer', until: take.allowsAt, reason: 'frequency_capped' }));
    });
    return { go, held, failed };
  }

  /**
   * The hold of one claimed delivery: a deferral (or an expiry by one) withdraws the claim's
   * attempt, since no call was made; a suppression over a cap closes it as not sent.
   */
  private hold(c: ClaimedDelivery, ctx: CheckContext, event: Extract<DeliveryEvent, { type: 'defer' | 'suppress' }>): HoldWrite {
    const now = this.opts.clock.now();
    const decision = decide({ state: 'submitting', attemptCount: c.attemptNumber, expiresAt: this.usefulUntil(c), nextAttemptAt: null }, event, {
      now,
      policy: ctx.policyFor(c),
      random: ctx.random,
    });
    if (!decision.ok) throw new Error(`decide refused to hold a submitting delivery: ${decision.reason}`);
    const write: TransitionWrite = { deliveryId: c.deliveryId, expect: { state: 'submitting', leaseVersion: c.leaseVersion }, transition: decision, now };
    const reason: HoldReason = event.type === 'defer' ? event.reason : 'frequency_capped';
    if (event.type === 'defer') return { write, reason, withdrawAttempt: c.attemptNumber };
    const outcome: SubmitOutcome = {
      kind: 'retryable',
      code: 'frequency_capped_before_send',
      message: "not sent: the recipient's frequency cap for this purpose was reached",
    };
    return { write: { ...write, attempt: { number: c.attemptNumber, outcome } }, reason };
  }

  /** The ids of the push deliveries whose subscription has been deactivated. */
  private async deactivatedPushTargets(claims: ClaimedDelivery[]): Promise<Set<string>> {
    const push = claims.filter((c) => c.channel === 'push');
    if (push.length === 0) return new Set();
    const out = new Set<string>();
    for (const tenantId of new Set(push.map((c) => c.tenantId))) {
      const mine = push.filter((c) => c.tenantId === tenantId);
      const inactive = await this.opts.store.push.inactivePushTargets(tenantId, [...new Set(mine.map((c) => c.destination))]);
      for (const c of mine) if (inactive.has(c.destination)) out.add(c.deliveryId);
    }
    return out;
  }

  private async withHeaders(send: ClaimedDelivery[], verdicts: Map<string, { recipientId: string }>): Promise<ClaimedDelivery[]> {
    const links = this.opts.links;
    if (!links) return send;
    return Promise.all(
      send.map(async (c) => {
        if (!wantsUnsubscribeLink(c)) return c;
        const scope = { tenantId: c.tenantId, recipientId: verdicts.get(c.deliveryId)!.recipientId, channel: c.channel, purpose: 'marketing' as const };
        return { ...c, content: { ...c.content, headers: { ...(c.content.headers ?? {}), ...(await links.headers(scope)) } } };
      }),
    );
  }

  /**
   * The write that closes a claimed delivery's attempt without a call: `suppress` ends it
   * with the check's reason; a failed check is a definite "not sent" that retries on the ladder.
   * The attempt's outcome is `retryable` (nothing reached the provider), its code says why.
   */
  private notSent(
    c: ClaimedDelivery,
    ctx: CheckContext,
    why:
      { kind: 'suppress'; reason: 'unsubscribed' | 'suppressed' | 'stopped' } | { kind: 'outcome'; code: string; message?: string } | { kind: 'dead_target' },
  ): TransitionWrite {
    const now = this.opts.clock.now();
    const outcome: SubmitOutcome =
      why.kind === 'suppress'
        ? {
            kind: 'retryable',
            code: why.reason === 'stopped' ? 'keyword_stop_before_send' : `${why.reason}_before_send`,
            message: NOT_SENT_BECAUSE[why.reason],
          }
        : why.kind === 'dead_target'
          ? // Definite and permanent: the push service already said this device is gone (terminal/rejected).
            {
              kind: 'permanent',
              reason: 'invalid_destination',
              code: 'push_subscription_inactive',
              message: 'not sent: the push subscription was deactivated after a push service refused it',
            }
          : { kind: 'retryable', code: why.code, message: why.message ?? 'not sent: the send-time preference check could not be read' };
    const decision = decide(
      { state: 'submitting', attemptCount: c.attemptNumber, expiresAt: this.usefulUntil(c), nextAttemptAt: null },
      why.kind === 'suppress' ? { type: 'suppress', reason: why.reason === 'stopped' ? 'suppressed' : why.reason } : { type: 'outcome', outcome },
      { now, policy: ctx.policyFor(c), random: ctx.random },
    );
    if (!decision.ok) throw new Error(`decide refused to stop a submitting delivery: ${decision.reason}`);
    return {
      deliveryId: c.deliveryId,
      expect: { state: 'submitting', leaseVersion: c.leaseVersion },
      transition: decision,
      now,
      attempt: { number: c.attemptNumber, outcome },
    };
  }
}
