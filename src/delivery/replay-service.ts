/**
 * Operator replays: send a delivery that stopped without getting through again, under the same
 * idempotency key. The domain's `decide` says whether a replay applies; this service names its
 * refusals, writes the guarded transition with its audit row, and wakes the workers.
 *
 * Replaying `unknown` (or terminal `unresolved`) can deliver the message twice: the first
 * submission may have arrived. That happens only when the operator says so
 * (`acceptDuplicateRisk`), and the replays table records who said it.
 */
import type { Clock } from '../clock.js';
import { decide, defaultLadderFor, LADDERS, REPLAYABLE_REASONS, type Decision, type Random } from '../domain/index.js';
import { HeraldError, type ErrorCode } from '../errors.js';
import type { DeliveryCounters } from '../metrics/counters.js';
import type { DeliveryView, Page, ReplayFilter, ReviewItem, ReviewReason, Store } from '../store/store.js';
import { isErasedContent } from '../store/retention-store.js';

export interface ReplayServiceOptions {
  store: Store;
  clock: Clock;
  /** Tells workers that an account has ready work (in-process signal). */
  wake?: (providerAccount: string) => void;
  random?: Random;
  /** The process's delivery counters (`replays`, per delivery replayed). Default: none kept. */
  counters?: DeliveryCounters;
}

export interface ReplayRequest {
  acceptDuplicateRisk: boolean;
  note: string | null;
  /** The API key id (or operator) asking; recorded with the replay. */
  requestedBy: string;
}

export interface BulkReplayResult {
  /** Deliveries matching the filter in a state a replay can start from (unknown, retryable, terminal). */
  matched: number;
  /** Replayed (with `dryRun`: would be). */
  scheduled: number;
  /** The deliveries replayed (none with `dryRun`), for the audit trail. */
  scheduledDeliveries: Array<{ id: string; notificationId: string }>;
  /** Refusals by error code: duplicate_risk_not_accepted, replay_expired, not_replayable. */
  refused: Partial<Record<RefusalCode, number>>;
}

type RefusalCode = Extract<ErrorCode, 'duplicate_risk_not_accepted' | 'replay_expired' | 'not_replayable'>;

/** How many candidates a bulk replay reads per query. */
export const REPLAY_BATCH = 200;

const STATES_WITH_REPLAY = new Set(['unknown', 'retryable', 'terminal']);

function stateOf(d: DeliveryView): string {
  return d.state === 'terminal' ? `terminal/${d.terminalReason}` : d.state;
}

/**
 * Names a refusal of `decide` for the API. The order matters: a delivery that can never be
 * replayed says so first, then one whose time is up, then one that needs the risk accepted.
 */
function refusal(d: DeliveryView, now: number, acceptDuplicateRisk: boolean, reason: string): HeraldError {
  const neverReplayable =
    !STATES_WITH_REPLAY.has(d.state) || (d.state === 'terminal' && !(REPLAYABLE_REASONS as readonly string[]).includes(d.terminalReason ?? ''));
  if (neverReplayable) {
    const why =
      d.state === 'ready' || d.state === 'submitting'
        ? 'it is already on its way'
        : d.state === 'accepted'
          ? 'the provider acknowledged it'
          : 'it must not be sent';
    const hint = d.state === 'terminal' ? `; to send it anyway, POST /v1/notifications/${d.notificationId}/resend for a new generation` : '';
    return new HeraldError('not_replayable', `delivery ${d.id} is ${stateOf(d)}: ${why}, so it cannot be replayed${hint}`);
  }
  if (now >= d.expiresAt) {
    return new HeraldError(
      'replay_expired',
      `delivery ${d.id} expired at ${new Date(d.expiresAt).toISOString()}; POST /v1/notifications/${d.notificationId}/resend to send a new generation`,
    );
  }
  if ((d.state === 'unknown' || d.terminalReason === 'unresolved') && !acceptDuplicateRisk) {
    return new HeraldError(
      'duplicate_risk_not_accepted',
      `delivery ${d.id} is ${stateOf(d)}: the first submission may have arrived, so a replay may deliver it twice; send "accept_duplicate_risk": true to replay anyway`,
      [{ field: 'accept_duplicate_risk', message: 'must be true to replay a delivery that may already have been delivered' }],
    );
  }
  return new HeraldError('not_replayable', `delivery ${d.id} cannot be replayed: ${reason}`);
}

export class ReplayService {
  private readonly random: Random;

  constructor(private readonly opts: ReplayServiceOptions) {
    this.random = opts.random ?? Math.random;
  }

  /** The tenant's review queue at the service's clock (only `reason`'s items, if given): `unknown` counts as overdue after `unknownAfterMs`. */
  async review(tenantId: string, unknownAfterMs: number, cursor: string | null, limit: number, reason?: ReviewReason): Promise<Page<ReviewItem>> {
    return this.opts.store.review.listReview(
      tenantId,
      { now: this.opts.clock.now(), unknownAfterMs, ...(reason === undefined ? {} : { reason }) },
      cursor,
      limit,
    );
  }

  /** Replays one of the tenant's deliveries; returns it as it is after the replay, or throws a HeraldError. */
  async replayOne(tenantId: string, deliveryId: string, req: ReplayRequest): Promise<DeliveryView> {
    const d = await this.opts.store.getDelivery(deliveryId);
    if (!d || d.tenantId !== tenantId) throw new HeraldError('not_found', `no delivery ${deliveryId}`);
    const outcome = await this.attempt(d, req, this.opts.clock.now());
    if (outcome !== 'scheduled') throw outcome;
    this.opts.wake?.(d.providerAccount);
    const after = await this.opts.store.getDelivery(deliveryId);
    return after ?? d;
  }

  /**
   * Replays every candidate matching the filter, oldest first, in batches of REPLAY_BATCH. Each
   * replay is its own guarded write: a delivery that changed meanwhile is refused, not forced.
   */
  async replayMany(tenantId: string, filter: ReplayFilter, req: ReplayRequest, opts: { dryRun?: boolean } = {}): Promise<BulkReplayResult> {
    const result: BulkReplayResult = { matched: 0, scheduled: 0, scheduledDeliveries: [], refused: {} };
    const woken = new Set<string>();
    let after: string | null = null;
    for (;;) {
      const batch: DeliveryView[] = await this.opts.store.review.listReplayCandidates(tenantId, filter, after, REPLAY_BATCH);
      const now = this.opts.clock.now();
      for (const d of batch) {
        result.matched++;
        const outcome = opts.dryRun ? this.judge(d, req, now) : await this.attempt(d, req, now);
        if (outcome === 'scheduled') {
          result.scheduled++;
          if (!opts.dryRun) {
            result.scheduledDeliveries.push({ id: d.id, notificationId: d.notificationId });
            woken.add(d.providerAccount);
          }
        } else {
          const code = outcome.code as RefusalCode;
          result.refused[code] = (result.refused[code] ?? 0) + 1;
        }
      }
      // Wake as we go: a long walk should not hold back what it already scheduled.
      for (const account of woken) this.opts.wake?.(account);
      woken.clear();
      if (batch.length < REPLAY_BATCH) return result;
      after = batch[batch.length - 1]!.id;
    }
  }

  /**
   * What a replay of `d` would do, without writing: 'scheduled', or the refusal. A dry run can
   * differ from the real run only where a delivery changes in between (the write is guarded).
   */
  private judge(d: DeliveryView, req: ReplayRequest, now: number): 'scheduled' | HeraldError {
    const decision: Decision = decide(
      { state: d.state, terminalReason: d.terminalReason, attemptCount: d.attemptCount, expiresAt: d.expiresAt, nextAttemptAt: d.nextAttemptAt },
      { type: 'replay', acceptDuplicateRisk: req.acceptDuplicateRisk },
      { now, policy: LADDERS[defaultLadderFor(d.purpose)], random: this.random },
    );
    return decision.ok ? 'scheduled' : refusal(d, now, req.acceptDuplicateRisk, decision.reason);
  }

  /** Decides and writes one replay; 'scheduled', or the refusal as a HeraldError. */
  private async attempt(d: DeliveryView, req: ReplayRequest, now: number): Promise<'scheduled' | HeraldError> {
    const decision: Decision = decide(
      { state: d.state, terminalReason: d.terminalReason, attemptCount: d.attemptCount, expiresAt: d.expiresAt, nextAttemptAt: d.nextAttemptAt },
      { type: 'replay', acceptDuplicateRisk: req.acceptDuplicateRisk },
      { now, policy: LADDERS[defaultLadderFor(d.purpose)], random: this.random },
    );
    if (!decision.ok) return refusal(d, now, req.acceptDuplicateRisk, decision.reason);
    // Erased content (docs/retention.md) must never be sent: the marker is not the message.
    const source = await this.opts.store.review.getNotificationSource(d.tenantId, d.notificationId);
    if (source && isErasedContent(source.content))
      return new HeraldError('not_replayable', `delivery ${d.id} cannot be replayed: its content was erased (retention or a recipient's erasure)`);
    const applied = await this.opts.store.review.replayDelivery({
      write: { deliveryId: d.id, expect: { state: d.state, leaseVersion: d.leaseVersion }, transition: decision, now },
      audit: {
        requestedBy: req.requestedBy,
        acceptDuplicateRisk: req.acceptDuplicateRisk,
        note: req.note,
        fromReason: d.state === 'terminal' ? d.terminalReason : null,
      },
    });
    if (!applied) {
      const current = await this.opts.store.getDelivery(d.id);
      return new HeraldError(
        'not_replayable',
        `delivery ${d.id} changed while it was being replayed (it is ${current ? stateOf(current) : 'gone'} now); read it and decide again`,
      );
    }
    this.opts.counters?.inc('replays', d);
    return 'scheduled';
  }
}
