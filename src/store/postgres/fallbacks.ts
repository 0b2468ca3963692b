/** The PostgreSQL driver's fallback part (see src/store/fallback-store.ts). */
import type { DueFallback, FallbackResolution, FallbackStore } from '../fallback-store.js';
import { toDueFallback } from '../rows.js';
import type { PostgresContext } from './sql-context.js';

/** `store.fallbacks` of the PostgreSQL store. */
export class PostgresFallbacks implements FallbackStore {
  constructor(private readonly sql: PostgresContext) {}

  async listDueFallbacks(now: number, limit: number): Promise<DueFallback[]> {
    return (await this.sql.q('fallbacks_due', [now, Math.max(0, limit)])).map(toDueFallback);
  }

  async resolveFallback(r: FallbackResolution): Promise<boolean> {
    const account = await this.sql.tx(async (c): Promise<string | false | null> => {
      const [taken] = await this.sql.q('fallback_take', [r.notificationId, r.position], c);
      if (!taken) return false;
      if (r.action === 'drop') {
        await this.sql.q('fallbacks_drop', [r.notificationId], c);
        return null;
      }
      await this.sql.q(
        'fallback_delivery_insert',
        [
          taken.delivery_id,
          r.notificationId,
          taken.tenant_id,
          r.position,
          taken.channel,
          taken.provider_account,
          taken.destination,
          taken.idempotency_key,
          r.now,
        ],
        c,
      );
      await this.sql.q('fallback_schedule_next', [r.notificationId, r.position + 1, r.nextDueAt], c);
      await this.sql.q(
        'outbox_insert',
        [
          taken.tenant_id,
          r.notificationId,
          taken.delivery_id,
          'delivery.ready',
          JSON.stringify({ delivery_id: taken.delivery_id, from: null, state: 'ready', channel: taken.channel, fallback: true }),
          r.now,
        ],
        c,
      );
      return String(taken.provider_account);
    });
    if (account === false) return false;
    if (account !== null) this.sql.wakeListeners([account]);
    return true;
  }
}
