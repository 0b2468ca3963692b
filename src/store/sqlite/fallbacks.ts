/** The SQLite driver's fallback part (see src/store/fallback-store.ts). */
import type { DueFallback, FallbackResolution, FallbackStore } from '../fallback-store.js';
import { toDueFallback, type Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';

/** `store.fallbacks` of the SQLite store. */
export class SqliteFallbacks implements FallbackStore {
  constructor(private readonly sql: SqliteContext) {}

  async listDueFallbacks(now: number, limit: number): Promise<DueFallback[]> {
    return (this.sql.stmt('fallbacks_due').all({ now, limit: Math.max(0, limit) }) as Row[]).map(toDueFallback);
  }

  async resolveFallback(r: FallbackResolution): Promise<boolean> {
    return this.sql.write((): boolean => {
      const taken = this.sql.stmt('fallback_take').get({ notification_id: r.notificationId, position: r.position }) as Row | undefined;
      if (!taken) return false;
      if (r.action === 'drop') {
        this.sql.stmt('fallbacks_drop').run({ notification_id: r.notificationId });
        return true;
      }
      this.sql.stmt('fallback_delivery_insert').run({
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
      this.sql.stmt('fallback_schedule_next').run({ notification_id: r.notificationId, position: r.position + 1, due_at: r.nextDueAt });
      this.sql.stmt('outbox_insert').run({
        tenant_id: taken.tenant_id,
        notification_id: r.notificationId,
        delivery_id: taken.delivery_id,
        event_type: 'delivery.ready',
        payload_json: JSON.stringify({ delivery_id: taken.delivery_id, from: null, state: 'ready', channel: taken.channel, fallback: true }),
        now: r.now,
      });
      return true;
    });
  }
}
