/**
 * An operator's cancel: a delivery that has nothing in flight (`ready`, `retryable`) ends
 * `terminal/cancelled` through `decide` and a guarded write, so a worker that claimed it in the
 * meantime wins and the cancel is refused, never forced.
 *
 * `unknown` is refused on purpose: its first submission may have arrived, and a cancelled
 * delivery may be replayed without accepting the duplicate risk, so cancelling an `unknown`
 * one would be a way around that rule (test/domain/decide.property.test.ts holds it). A person
 * who wants to stop waiting lets reconciliation end it (`unresolved`) or replays it knowingly.
 */
import type { Clock } from '../clock.js';
import { decide, defaultLadderFor, LADDERS } from '../domain/index.js';
import { HeraldError } from '../errors.js';
import type { DeliveryFilter, DeliveryListItem, DeliveryView, Store } from '../store/store.js';

/** What bulk cancel may select (docs/scheduling.md "Bulk cancel"): the delivery list's filters, a recipient, and only pending states. */
export interface CancelFilter extends Pick<DeliveryFilter, 'campaignId' | 'purpose' | 'providerAccount'> {
  state?: 'ready' | 'retryable';
  recipientId?: string;
  /** Created at or after (epoch ms). */
  createdFrom?: number;
  /** Created before (epoch ms). */
  createdTo?: number;
}

export interface BulkCancelResult {
  /** Deliveries the filter selected, in any state. */
  matched: number;
  /** Cancelled (or, in a dry run, would be): `ready` or `retryable` ones. */
  cancelled: number;
  /** `submitting` or `unknown`: a provider may already have them, so they are reported and left alone. */
  inFlight: number;
  /** Already ended or accepted: nothing to cancel. */
  ended: number;
  /** Pending when read, but a worker claimed (or someone else ended) them before the guarded write. */
  changed: number;
  cancelledDeliveries: { id: string; notificationId: string }[];
}

/** Rows per page of the walk and per guarded write: a page is one statement, a write one transaction. */
export const BULK_CANCEL_BATCH = 500;

function stateOf(d: DeliveryView): string {
  return d.state === 'terminal' ? `terminal/${d.terminalReason}` : d.state;
}

/** Cancels deliveries for operators. */
export class DeliveryCanceller {
  constructor(private readonly opts: { store: Store; clock: Clock }) {}

  /** Cancels one of the tenant's deliveries; returns it cancelled, or throws not_found / not_cancellable. */
  async cancel(tenantId: string, deliveryId: string): Promise<DeliveryView> {
    const { store, clock } = this.opts;
    const d = await store.getDelivery(deliveryId);
    if (!d || d.tenantId !== tenantId) throw new HeraldError('not_found', `no delivery ${deliveryId}`);
    const now = clock.now();
    const decision = decide(
      { state: d.state, terminalReason: d.terminalReason, attemptCount: d.attemptCount, expiresAt: d.expiresAt, nextAttemptAt: d.nextAttemptAt },
      { type: 'cancel' },
      { now, policy: LADDERS[defaultLadderFor(d.purpose)], random: () => 0.5 },
    );
    if (!decision.ok) throw new HeraldError('not_cancellable', refusal(d));
    const [r] = await store.applyTransitions([{ deliveryId: d.id, expect: { state: d.state, leaseVersion: d.leaseVersion }, transition: decision, now }]);
    if (!r?.applied) {
      const current = await store.getDelivery(d.id);
      throw new HeraldError('not_cancellable', `delivery ${d.id} changed while it was being cancelled (it is ${current ? stateOf(current) : 'gone'} now)`);
    }
    return (await store.getDelivery(d.id)) ?? d;
  }
}

/** Cancels every pending delivery a filter selects, a batch at a time, and reports the in-flight ones it leaves alone. */
export async function cancelMany(opts: { store: Store; clock: Clock }, tenantId: string, f: CancelFilter, run: { dryRun: boolean }): Promise<BulkCancelResult> {
  const { store, clock } = opts;
  const { recipientId, createdFrom, createdTo, ...listed } = f;
  // The list's exact-id search (`q`) finds a recipient's deliveries; the check below keeps only theirs.
  const filter: DeliveryFilter = { ...listed, since: createdFrom, until: createdTo, q: recipientId };
  const result: BulkCancelResult = { matched: 0, cancelled: 0, inFlight: 0, ended: 0, changed: 0, cancelledDeliveries: [] };
  let cursor: string | null = null;
  do {
    const page = await store.listDeliveries(tenantId, filter, cursor, BULK_CANCEL_BATCH);
    cursor = page.nextCursor;
    const mine = page.items.filter((d: DeliveryListItem) => recipientId === undefined || d.recipientId === recipientId);
    const now = clock.now();
    const writes = [];
    for (const d of mine) {
      result.matched++;
      if (d.state === 'submitting' || d.state === 'unknown') {
        result.inFlight++;
        continue;
      }
      const decision = decide(
        { state: d.state, terminalReason: d.terminalReason, attemptCount: d.attemptCount, expiresAt: d.expiresAt, nextAttemptAt: d.nextAttemptAt },
        { type: 'cancel' },
        { now, policy: LADDERS[defaultLadderFor(d.purpose)], random: () => 0.5 },
      );
      if (!decision.ok) {
        result.ended++;
        continue;
      }
      writes.push({ d, write: { deliveryId: d.id, expect: { state: d.state, leaseVersion: d.leaseVersion }, transition: decision, now } });
    }
    if (run.dryRun) {
      result.cancelled += writes.length;
      continue;
    }
    const applied = writes.length === 0 ? [] : await store.applyTransitions(writes.map((w) => w.write));
    const ok = new Set(applied.filter((r) => r.applied).map((r) => r.deliveryId));
    for (const { d } of writes) {
      if (ok.has(d.id)) {
        result.cancelled++;
        result.cancelledDeliveries.push({ id: d.id, notificationId: d.notificationId });
      } else result.changed++;
    }
  } while (cursor !== null);
  return result;
}

function refusal(d: DeliveryView): string {
  if (d.state === 'unknown')
    return `delivery ${d.id} is unknown: its submission may have arrived, so it is not cancelled; reconciliation ends it, or replay it with accept_duplicate_risk`;
  if (d.state === 'submitting') return `delivery ${d.id} is submitting: a provider call is in flight; read it again once the call has ended`;
  return `delivery ${d.id} is ${stateOf(d)}: it has already ended`;
}
