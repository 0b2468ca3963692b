/**
 * The SQLite driver's idempotency decision: takes a (tenant, key) pair for one request or says
 * why not, inside the caller's transaction (SQLite has one writer at a time, so the read and
 * the write below cannot race). Shared by reserveIdempotencyKey (group-committed) and the batch
 * intake write, which takes its items' keys in its own transaction.
 */
import type { IdempotencyRequest, Reservation } from '../core-store.js';
import { json, type Row } from '../rows.js';
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
  if (row.status === 'completed') {
    if (Number(row.expires_at) <= r.now) {
      sql.stmt('idempotency_replace').run(params);
      return { kind: 'reserved' };
    }
    if (row.fingerprint !== r.fingerprint) return { kind: 'mismatch', fingerprint: String(row.fingerprint) };
    return { kind: 'replay', statusCode: Number(row.response_status), body: json(row.response_body) };
  }
  if (Number(row.locked_until) > r.now) {
    return row.fingerprint === r.fingerprint ? { kind: 'in_progress' } : { kind: 'mismatch', fingerprint: String(row.fingerprint) };
  }
  sql.stmt('idempotency_replace').run(params);
  return { kind: 'reserved' };
}
