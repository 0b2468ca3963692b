/**
 * The PostgreSQL driver's idempotency reservations. A new key (the usual case) is taken by an
 * insert coalesced with the inserts of concurrent requests into one statement; a key that
 * already exists is decided in a transaction of its own.
 */
import pg from 'pg';
import type { IdempotencyRequest, Reservation } from '../core-store.js';
import type { Row } from '../rows.js';
import { json } from '../rows.js';
import { Coalescer } from './coalescer.js';
import type { Client, PostgresContext } from './sql-context.js';

/** Reserves idempotency keys for one store (its coalescer groups concurrent requests). */
export class IdempotencyReservations {
  constructor(private readonly sql: PostgresContext) {}

  /** Takes the (tenant, key) pair for one request, or says why not (see CoreStore.reserveIdempotencyKey). */
  async reserve(r: IdempotencyRequest): Promise<Reservation> {
    const params = [r.tenantId, r.key, r.fingerprint, r.now + r.lockMs, r.now, r.now + r.retentionMs];
    // A new key (the usual case) is taken by the insert alone, committed with the inserts of
    // concurrent requests in one statement (see Coalescer); a key that exists is decided in the
    // transaction below, which starts with the same insert.
    if (await this.inserts.push(params)) return { kind: 'reserved' };
    return this.sql.tx((c) => decideKey(this.sql, r, c));
  }

  /** Inserts new reservations, many per statement; answers, for each, whether it was inserted. */
  private readonly inserts = new Coalescer<unknown[], boolean>(
    async (rows) => {
      // A key named twice in one group is inserted once; the repeat is decided on its own afterwards.
      const seen = new Set<string>();
      const first = rows.map((p) => {
        const id = JSON.stringify([p[0], p[1]]);
        return seen.has(id) ? false : (seen.add(id), true);
      });
      // In key order, so two groups naming the same keys wait for each other instead of deadlocking.
      const batch = rows.filter((_, i) => first[i]).sort((a, b) => (String(a[1]) < String(b[1]) ? -1 : String(a[1]) > String(b[1]) ? 1 : 0));
      const col = (j: number) => batch.map((p) => p[j]);
      let inserted: Row[];
      try {
        inserted = await this.sql.q('idempotency_insert_many', [col(0), col(1), col(2), col(3), col(4), col(5)]);
      } catch (err) {
        // Refused by the server, nothing inserted: each is decided by the transaction path alone.
        if (err instanceof pg.DatabaseError) return rows.map(() => ({ ok: true, value: false }));
        throw err;
      }
      const taken = new Set(inserted.map((r) => JSON.stringify([r.tenant_id, r.key])));
      return rows.map((p, i) => ({ ok: true, value: first[i]! && taken.has(JSON.stringify([p[0], p[1]])) }));
    },
    2,
    256,
  );
}

/**
 * Decides a key on `c`, inside the caller's transaction (reserveIdempotencyKey's rules): the
 * insert, else the row locked and read, then taken over when its retention or lock ran out. The
 * batch intake write calls it for an item whose key its multi-row insert did not take.
 */
export async function decideKey(sql: PostgresContext, r: IdempotencyRequest, c: Client): Promise<Reservation> {
  const params = [r.tenantId, r.key, r.fingerprint, r.now + r.lockMs, r.now, r.now + r.retentionMs];
  if ((await sql.q('idempotency_insert', params, c)).length === 1) return { kind: 'reserved' };
  const [row] = await sql.q('idempotency_get', [r.tenantId, r.key], c);
  if (!row) {
    // Deleted between our insert attempt and the read (released or pruned): it is ours now.
    await sql.q('idempotency_insert', params, c);
    return { kind: 'reserved' };
  }
  if (row.status === 'completed') {
    if (Number(row.expires_at) <= r.now) {
      await sql.q('idempotency_replace', params, c);
      return { kind: 'reserved' };
    }
    if (row.fingerprint !== r.fingerprint) return { kind: 'mismatch', fingerprint: String(row.fingerprint) };
    return { kind: 'replay', statusCode: Number(row.response_status), body: json(row.response_body) };
  }
  if (Number(row.locked_until) > r.now) {
    return row.fingerprint === r.fingerprint ? { kind: 'in_progress' } : { kind: 'mismatch', fingerprint: String(row.fingerprint) };
  }
  await sql.q('idempotency_replace', params, c);
  return { kind: 'reserved' };
}
