/**
 * Challenge generations, shared by every driver: a notification's group key and generation
 * name one challenge. A newer generation supersedes the older ones' pending deliveries in
 * the transaction that accepts it; an older or equal generation is refused.
 */
import { decide, DEFAULT_RETRY_POLICY } from '../domain/index.js';
import { StoreConflictError, type DeliveryFacts, type TransitionWrite } from './store.js';

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
