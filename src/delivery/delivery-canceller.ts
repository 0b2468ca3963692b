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
import type { DeliveryView, Store } from '../store/store.js';

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

function refusal(d: DeliveryView): string {
  if (d.state === 'unknown')
    return `delivery ${d.id} is unknown: its submission may have arrived, so it is not cancelled; reconciliation ends it, or replay it with accept_duplicate_risk`;
  if (d.state === 'submitting') return `delivery ${d.id} is submitting: a provider call is in flight; read it again once the call has ended`;
  return `delivery ${d.id} is ${stateOf(d)}: it has already ended`;
}
