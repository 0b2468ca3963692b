/**
 * What the worker checks between a claim and the calls, for every attempt (retries included):
 * the recipients' opt-outs and the tenant's suppression list, read for the whole batch in one
 * query. Deliveries that must not be sent are stopped (`decide`'s `suppress` event, their
 * claim's attempt closed as not sent) and written with the batch's outcomes; the rest are
 * called. Marketing e-mail that goes gets its one-click unsubscribe header fields here, at
 * send time, so they always point at the current public URL and key.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { decide, type Random, type RetryPolicy, type SubmitOutcome } from '../domain/index.js';
import type { ClaimedDelivery, Store, TransitionWrite } from '../store/store.js';

export interface SendTimeChecksOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Builds List-Unsubscribe headers for marketing e-mail; without it (no public URL) none are added. */
  links?: UnsubscribeHeaderBuilder | null;
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
}

/** The decision inputs the worker already has for its claims. */
export interface CheckContext {
  policyFor: (claim: ClaimedDelivery) => RetryPolicy;
  random: Random;
}

/** Only the purpose that opt-outs are about carries the one-click link; codes and receipts do not need one. */
function wantsUnsubscribeLink(c: ClaimedDelivery): boolean {
  return c.channel === 'email' && c.purpose === 'marketing';
}

/** The worker's check between claim and call; stateless apart from the links' cached key. */
export class SendTimeChecks {
  constructor(private readonly opts: SendTimeChecksOptions) {}

  /**
   * Splits a claimed batch into the deliveries to call (marketing e-mail with its unsubscribe
   * headers added) and the writes that end the others `terminal/unsubscribed` or
   * `terminal/suppressed`. Fails closed: when the check cannot be read, nothing in the batch
   * is sent and every attempt closes as `retryable/preference_check_failed`.
   */
  async check(claimed: ClaimedDelivery[], ctx: CheckContext): Promise<CheckedBatch> {
    if (claimed.length === 0) return { send: [], stopped: [] };
    let verdicts: Map<string, { recipientId: string; verdict: string }>;
    let send: ClaimedDelivery[];
    let deadTargets: ClaimedDelivery[];
    try {
      const checks = await this.opts.store.preferences.sendabilityOf(claimed.map((c) => c.deliveryId));
      verdicts = new Map(checks.map((c) => [c.deliveryId, c]));
      const sendable = claimed.filter((c) => verdicts.get(c.deliveryId)?.verdict === 'send');
      // A push subscription deactivated since intake (another delivery to it was refused as
      // unregistered): never sent to again.
      const dead = await this.deactivatedPushTargets(sendable);
      deadTargets = sendable.filter((c) => dead.has(c.deliveryId));
      send = await this.withHeaders(
        sendable.filter((c) => !dead.has(c.deliveryId)),
        verdicts,
      );
    } catch (err) {
      this.opts.logger.error({ err, deliveries: claimed.length }, 'send-time preference check failed; nothing in the batch is sent, it retries');
      return { send: [], stopped: claimed.map((c) => this.notSent(c, ctx, { kind: 'outcome', code: 'preference_check_failed' })) };
    }
    const stopped = claimed.flatMap((c) => {
      const v = verdicts.get(c.deliveryId)?.verdict;
      if (v === 'send') return deadTargets.includes(c) ? [this.notSent(c, ctx, { kind: 'dead_target' })] : [];
      if (v === 'unsubscribed' || v === 'suppressed') return [this.notSent(c, ctx, { kind: 'suppress', reason: v })];
      // The claimed delivery was not found by the check: never send what could not be checked.
      return [this.notSent(c, ctx, { kind: 'outcome', code: 'preference_check_failed' })];
    });
    return { send, stopped };
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
    why: { kind: 'suppress'; reason: 'unsubscribed' | 'suppressed' } | { kind: 'outcome'; code: string } | { kind: 'dead_target' },
  ): TransitionWrite {
    const now = this.opts.clock.now();
    const outcome: SubmitOutcome =
      why.kind === 'suppress'
        ? {
            kind: 'retryable',
            code: `${why.reason}_before_send`,
            message: `not sent: the ${why.reason === 'unsubscribed' ? 'recipient opted out of this purpose on this channel' : 'address is on the suppression list'}`,
          }
        : why.kind === 'dead_target'
          ? // Definite and permanent: the push service already said this device is gone (terminal/rejected).
            {
              kind: 'permanent',
              reason: 'invalid_destination',
              code: 'push_subscription_inactive',
              message: 'not sent: the push subscription was deactivated after a push service refused it',
            }
          : { kind: 'retryable', code: why.code, message: 'not sent: the send-time preference check could not be read' };
    const decision = decide(
      { state: 'submitting', attemptCount: c.attemptNumber, expiresAt: c.expiresAt, nextAttemptAt: null },
      why.kind === 'suppress' ? { type: 'suppress', reason: why.reason } : { type: 'outcome', outcome },
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
