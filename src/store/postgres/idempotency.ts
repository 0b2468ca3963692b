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
import type { PostgresContext } from './sql-context.js';

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
    return this.sql.tx(async (c) => {
      if ((await this.sql.q('idempotency_insert', params, c)).length === 1) return { kind: 'reserved' } as const;
      const [row] = await this.sql.q('idempotency_get', [r.tenantId, r.key], c);
      if (!row) {
        // Deleted between our insert attempt and the read (released or pruned): it is ours now.
        await this.sql.q('idempotency_insert', params, c);
        return { kind: 'reserved' } as const;
      }
      if (row.status === 'completed') {
        if (Number(row.expires_at) <= r.now) {
          await this.sql.q('idempotency_replace', params, c);
          return { kind: 'reserved' } as const;
        }
        if (row.fingerprint !== r.fingerprint) return { kind: 'mismatch' } as const;
        return { kind: 'replay', statusCode: Number(row.response_status), body: json(row.response_body) } as const;
      }
      if (Number(row.locked_until) > r.now) {
        return row.fingerprint === r.fingerprint ? ({ kind: 'in_progress' } as const) : ({ kind: 'mismatch' } as const);
      }
      await this.sql.q('idempotency_replace', params, c);
      return { kind: 'reserved' } as const;
    });
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
