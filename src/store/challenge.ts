/**
 * Challenge generations, shared by every driver: a notification's group key and generation
 * name one challenge. A newer generation supersedes the older ones' pending deliveries in
 * the transaction that accepts it; an older or equal generation is refused.
 */
import { decide, DEFAULT_RETRY_POLICY, type Channel, type Purpose } from '../domain/index.js';
import { toDeliveryFacts, type Row } from './rows.js';
import { StoreConflictError, type DeliveryFacts, type TransitionWrite } from './core-store.js';

/** Throws StoreConflictError unless `generation` is newer than every accepted one. */
export function checkGeneration(latest: unknown, generation: number): void {
  if (latest === null || latest === undefined) return;
  const g = Number(latest);
  if (g === generation) {
    throw new StoreConflictError('this challenge generation was already accepted', { constraint: 'notifications.challenge' });
  }
  if (g > generation) {
    throw new StoreConflictError(`a newer generation (${g}) of this challenge exists`, { constraint: 'notifications.stale_generation' });
  }
}

/** Rows of `challenge_pending_older`: the facts to decide on, plus the labels to count by. */
export function pendingOlder(rows: Row[]): Array<{ facts: DeliveryFacts; channel: Channel; purpose: Purpose }> {
  return rows.map((r) => ({ facts: toDeliveryFacts(r), channel: r.channel as Channel, purpose: r.purpose as Purpose }));
}

/** The guarded `supersede` transitions (decided by the domain) for older generations' pending deliveries. */
export function supersedeWrites(pending: DeliveryFacts[], now: number): TransitionWrite[] {
  const out: TransitionWrite[] = [];
  for (const f of pending) {
    // Supersede uses neither the policy nor randomness; decide still owns the rule.
    const d = decide(f, { type: 'supersede' }, { now, policy: DEFAULT_RETRY_POLICY, random: () => 0 });
    if (d.ok) out.push({ deliveryId: f.deliveryId, expect: { state: f.state, leaseVersion: f.leaseVersion }, transition: d, now });
  }
  return out;
}
