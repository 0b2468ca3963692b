/**
 * The SQLite driver's idempotency decision: takes a (tenant, key) pair for one request or says
 * why not, inside the caller's transaction (SQLite has one writer at a time, so the read and
 * the write below cannot race). Shared by reserveIdempotencyKey (group-committed) and the batch
 * intake write, which takes its items' keys in its own transaction.
 */
import type { IdempotencyRequest, Reservation } from '../core-store.js';
import { decideExistingKey } from '../parts/core.js';
import type { Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';

/** Decides the key for `r` as CoreStore.reserveIdempotencyKey promises; writes the reservation when it is taken. */
export function takeIdempotencyKey(sql: SqliteContext, r: IdempotencyRequest): Reservation {
  const params = {
    tenant_id: r.tenantId,
    key: r.key,
    fingerprint: r.fingerprint,
    locked_until: r.now + r.lockMs,
    now: r.now,
    expires_at: r.now + r.retentionMs,
  };
  const row = sql.stmt('idempotency_get').get({ tenant_id: r.tenantId, key: r.key }) as Row | undefined;
  if (!row) {
    sql.stmt('idempotency_insert').run(params);
    return { kind: 'reserved' };
  }
  const decided = decideExistingKey(row, r);
  if (decided !== 'take') return decided;
  sql.stmt('idempotency_replace').run(params);
  return { kind: 'reserved' };
}
