/** `store.fallbacks`, written once for both drivers (see ../fallback-store.ts). */
import type { DueFallback, FallbackResolution, FallbackStore } from '../fallback-store.js';
import { toDueFallback } from '../rows.js';
import { type Executor, count, one } from '../sql-executor.js';

/** Pending fallback channels. */
export class FallbacksPart implements FallbackStore {
  constructor(private readonly x: Executor) {}

  async listDueFallbacks(now: number, limit: number): Promise<DueFallback[]> {
    return (await this.x.all('fallbacks_due', { now, limit: Math.max(0, limit) })).map(toDueFallback);
  }

  async resolveFallback(r: FallbackResolution): Promise<boolean> {
    // The provider account of the delivery created (to wake), null when dropped, false when not ours to resolve.
    const account = await this.x.transaction(function* () {
      const taken = yield* one('fallback_take', { notification_id: r.notificationId, position: r.position });
      if (!taken) return false;
      if (r.action === 'drop') {
        yield* count('fallbacks_drop', { notification_id: r.notificationId });
        return null;
      }
      yield* count('fallback_delivery_insert', {
        id: taken.delivery_id,
        notification_id: r.notificationId,
        tenant_id: taken.tenant_id,
        position: r.position,
        channel: taken.channel,
        provider_account: taken.provider_account,
        destination: taken.destination,
        idempotency_key: taken.idempotency_key,
        now: r.now,
      });
      yield* count('fallback_schedule_next', { notification_id: r.notificationId, position: r.position + 1, due_at: r.nextDueAt });
      yield* count('outbox_insert', {
        tenant_id: taken.tenant_id,
        notification_id: r.notificationId,
        delivery_id: taken.delivery_id,
        event_type: 'delivery.ready',
        payload_json: JSON.stringify({ delivery_id: taken.delivery_id, from: null, state: 'ready', channel: taken.channel, fallback: true }),
        now: r.now,
      });
      return String(taken.provider_account);
    });
    if (account === false) return false;
    if (account !== null) this.x.wake([account]);
    return true;
  }
}
