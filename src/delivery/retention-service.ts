/**
 * The retention job (docs/retention.md) and a recipient's erasure. Like the sweeper: a small
 * service with start/stop and a runOnce() tests call on an injected clock. Each pass, in batches
 * of one transaction each: one-time codes settled and expired lose their content; other content
 * goes once past its purpose's window; destinations are masked past theirs, keeping a keyed hash
 * (HMAC-SHA256 under the server secret `destination-hash`). What is erased is recorded by the
 * store (`erasures`) and counted in herald_retention_erased_total{what}. Incoming messages
 * (docs/inbound.md) lose their number and text past the `conversational` purpose's window (a
 * reply is one side of a conversation), keeping their keyed hash; their webhook event ids and the
 * phones' health samples are pruned past the bounds below.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { pino, type Logger } from 'pino';
import type { Clock } from '../clock.js';
import { decide, DEFAULT_RETRY_POLICY, PURPOSES, type Purpose } from '../domain/index.js';
import type { DeliveryCounters } from '../metrics/counters.js';
import { LoopService } from '../periodic/loop-service.js';
import type { ErasedContent, ErasureCause, ErasureKind, RecipientErasure, Store, TransitionWrite } from '../store/store.js';

const DAY_MS = 86_400_000;
/** Webhook event ids are kept a week: the SMSGate app retries an event for about two days, and a duplicate after its id is gone would be deduplicated only by the message id. */
export const INBOUND_EVENT_ID_KEEP_MS = 7 * DAY_MS;
/** Health samples are kept two days: the devices pages chart the last 24 h. */
export const HEALTH_SAMPLE_KEEP_MS = 2 * DAY_MS;
/** The server secret the destination hashes are keyed with: stable across keys and restarts. */
const HASH_SECRET = 'destination-hash';

export interface RetentionPolicy {
  /** Days content is kept after creation, per purpose. */
  contentDays: Record<Purpose, number>;
  /** Days after which destinations are masked. */
  destinationDays: number;
  /** Erase one-time codes as soon as they are settled and expired. */
  otpEraseAfterSettled: boolean;
}

export interface RetentionServiceOptions {
  store: Store;
  clock: Clock;
  /** Default: silent (the API process only erases recipients; its job runs in the worker role). */
  logger?: Logger;
  policy: RetentionPolicy;
  intervalMs?: number;
  batchSize?: number;
  counters?: DeliveryCounters;
}

export interface RetentionPassResult {
  otpContent: number;
  content: number;
  destinations: number;
  /** Incoming messages whose number and text were erased. */
  inboundContent: number;
  /** Webhook event ids and health samples deleted (one bounded batch of each per pass). */
  inboundPruned: number;
}

/** What DELETE /v1/recipients/:id answers: the store's erasure plus the deliveries cancelled first. */
export interface RecipientErasureResult extends RecipientErasure {
  deliveriesCancelled: number;
}

export class RetentionService extends LoopService {
  private readonly batchSize: number;
  private secret: string | null = null;
  private readonly logger: Logger;

  constructor(private readonly opts: RetentionServiceOptions) {
    const logger = opts.logger ?? pino({ level: 'silent' });
    super({ intervalMs: opts.intervalMs ?? 60_000, logger, what: 'retention' });
    this.batchSize = opts.batchSize ?? 500;
    this.logger = logger;
  }

  /** One full pass at the clock's now; loops over batches until nothing is due. */
  override async runOnce(): Promise<RetentionPassResult> {
    const now = this.opts.clock.now();
    const { store } = this.opts;
    const p = this.opts.policy;
    let otpContent = 0;
    if (p.otpEraseAfterSettled) otpContent = await this.eraseBatches('otp_content', now, () => store.retention.otpContentDue(now, this.batchSize));
    let content = 0;
    for (const purpose of PURPOSES) {
      const before = now - p.contentDays[purpose] * DAY_MS;
      content += await this.eraseBatches('content', now, () => store.retention.contentDue(purpose, before, this.batchSize), purpose);
    }
    const destinations = await this.maskBatches(now - p.destinationDays * DAY_MS, now);
    const inboundContent = await this.eraseInboundBatches(now - p.contentDays.conversational * DAY_MS, now);
    const inboundPruned = await store.inbound.prune(now - INBOUND_EVENT_ID_KEEP_MS, now - HEALTH_SAMPLE_KEEP_MS, this.batchSize);
    if (otpContent + content + destinations + inboundContent + inboundPruned > 0)
      this.logger.info({ otpContent, content, destinations, inboundContent, inboundPruned }, 'retention erased');
    return { otpContent, content, destinations, inboundContent, inboundPruned };
  }

  /**
   * Erases one recipient: pending deliveries (ready, retryable) are cancelled through `decide`
   * first, so none is sent after the answer; then content, destinations, profile, preferences,
   * push subscriptions and audience addresses go in one transaction. A delivery in flight
   * (submitting, unknown) keeps its notification's content until it settles: erase again then.
   */
  async eraseRecipient(tenantId: string, recipientId: string): Promise<RecipientErasureResult> {
    const now = this.opts.clock.now();
    const { store } = this.opts;
    const pending = await store.retention.recipientPending(tenantId, recipientId);
    const writes: TransitionWrite[] = [];
    for (const f of pending) {
      const d = decide(f, { type: 'cancel' }, { now, policy: DEFAULT_RETRY_POLICY, random: Math.random });
      if (d.ok) writes.push({ deliveryId: f.deliveryId, expect: { state: f.state, leaseVersion: f.leaseVersion }, transition: d, now });
    }
    const cancelled = writes.length === 0 ? 0 : (await store.applyTransitions(writes)).filter((r) => r.applied).length;
    const masks = await this.hashes(await store.retention.recipientDestinations(tenantId, recipientId));
    const out = await store.retention.eraseRecipient(tenantId, recipientId, masks, marker(now, 'recipient_request', 'recipient'), now);
    this.opts.counters?.series.retentionErased.inc({ what: 'recipient' });
    return { ...out, deliveriesCancelled: cancelled };
  }

  /** The keyed hash a masked destination keeps: HMAC-SHA256(secret, channel ":" destination), hex. */
  async destinationHash(channel: string, destination: string): Promise<string> {
    this.secret ??= await this.opts.store.preferences.serverSecret(HASH_SECRET, () => randomBytes(32).toString('base64url'), this.opts.clock.now());
    return createHmac('sha256', this.secret).update(`${channel}:${destination}`).digest('hex');
  }

  /**
   * Batch after batch until none is due: `due` finds up to a batch, `apply` changes it and says how
   * many rows it changed. Stops on an empty or short batch, or one that changed nothing (another
   * process got there first), so it never spins.
   */
  private async inBatches<T>(due: () => Promise<T[]>, apply: (rows: T[]) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await due();
      if (rows.length === 0) return total;
      const n = await apply(rows);
      total += n;
      if (n === 0 || rows.length < this.batchSize) return total;
    }
  }

  private eraseBatches(kind: ErasureKind, now: number, due: () => Promise<string[]>, purpose?: Purpose): Promise<number> {
    return this.inBatches(due, async (ids) => {
      const n = await this.opts.store.retention.eraseContent(ids, marker(now, 'retention', kind), {
        cause: 'retention',
        kind,
        recipientId: null,
        details: purpose ? { purpose } : null,
        createdAt: now,
      });
      this.opts.counters?.series.retentionErased.inc({ what: kind }, n);
      return n;
    });
  }

  /** Erases the number and text of incoming messages recorded before `before`, batch by batch. */
  private eraseInboundBatches(before: number, now: number): Promise<number> {
    const { inbound } = this.opts.store;
    return this.inBatches(
      () => inbound.inboundContentDue(before, this.batchSize),
      (ids) => inbound.eraseInboundContent(ids, now),
    );
  }

  private maskBatches(before: number, now: number): Promise<number> {
    return this.inBatches(
      () => this.opts.store.retention.destinationsDue(before, this.batchSize),
      async (due) => {
        const n = await this.opts.store.retention.maskDestinations(await this.hashes(due), {
          cause: 'retention',
          kind: 'destinations',
          recipientId: null,
          details: null,
          createdAt: now,
        });
        this.opts.counters?.series.retentionErased.inc({ what: 'destinations' }, n);
        return n;
      },
    );
  }

  private async hashes(
    rows: ReadonlyArray<{ deliveryId: string; channel: string; destination: string }>,
  ): Promise<Array<{ deliveryId: string; hash: string }>> {
    const out: Array<{ deliveryId: string; hash: string }> = [];
    for (const r of rows) out.push({ deliveryId: r.deliveryId, hash: await this.destinationHash(r.channel, r.destination) });
    return out;
  }
}

/** The marker erased content is replaced with. */
function marker(at: number, cause: ErasureCause, kind: ErasureKind): ErasedContent {
  return { erased: { at, cause, kind, removed: 'content' } };
}
