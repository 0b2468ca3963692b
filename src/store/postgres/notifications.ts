/**
 * The PostgreSQL driver's intake writes: a notification with its deliveries, outbox event and
 * completed idempotency key. Concurrent notifications of their own group are coalesced into
 * one statement (`notification_create_many`); a producer-named challenge takes a locked path
 * that refuses stale generations and supersedes older ones.
 */
import pg from 'pg';
import { checkGeneration, pendingOlder, supersedeWrites } from '../challenge.js';
import {
  StoreConflictError,
  type BatchItemOutcome,
  type BatchKeyTerms,
  type BatchNotification,
  type CreatedNotification,
  type NewNotification,
  type SupersededDelivery,
  type TenantIdempotencyCompletion,
} from '../core-store.js';
import type { Row } from '../rows.js';
import { Coalescer, settle, type Settled } from './coalescer.js';
import { decideKey } from './idempotency.js';
import type { Client, PostgresContext } from './sql-context.js';
import { applyRun } from './transitions.js';
import { bindTo } from '../content-cipher.js';

/** Writes notifications for one store (its coalescer groups concurrent callers). */
export class NotificationWriter {
  constructor(private readonly sql: PostgresContext) {}

  /**
   * Group commit: concurrent intake writes are coalesced (see Coalescer) into one statement and
   * one commit for many notifications, instead of one commit each. A notification alone takes the
   * single-notification path. If a group fails in a way the server reports (a conflict, a bad
   * value, a reservation taken over), nothing of it was committed and each of its notifications
   * is written again on its own, so every caller gets the answer it would have had alone.
   */
  async create(n: NewNotification, idem?: TenantIdempotencyCompletion): Promise<CreatedNotification> {
    // A producer-named challenge may supersede or be stale: it takes the locked path. A
    // notification that is its own group (intake's `ntf:<id>`) has no other generations.
    // A fallback plan or a ladder choice is written in the same transaction, on the same path.
    if (n.groupKey !== `ntf:${n.id}` || n.fallback || n.retryLadder || n.pinnedChannels?.length) return this.createInChallenge(n, idem);
    await this.creates.push({ n, idem });
    return { superseded: [] };
  }

  private readonly creates = new Coalescer<CreateItem, void>((items) => this.createGroup(items), 2, 256);

  private async createGroup(items: CreateItem[]): Promise<Array<Settled<void>>> {
    if (items.length === 1) return [await settle(this.createOne(items[0]!.n, items[0]!.idem))];
    const withKey = items.filter((i) => i.idem);
    const params = createManyParams(this.sql, items);
    let accounts: string[];
    try {
      const run = async (c: pg.Pool | Client): Promise<Row | undefined> => {
        const [r] = await this.sql.q('notification_create_many', params, c);
        // A reservation was taken over (its lock ran out): roll the group back, then sort it out one by one.
        if (Number(r?.completed) !== withKey.length) throw new GroupRetry();
        return r;
      };
      // Without keys, one statement is one transaction; with keys, the check above needs BEGIN … COMMIT.
      const r = withKey.length === 0 ? await run(this.sql.pool) : await this.sql.tx(run);
      accounts = (r?.accounts as string[] | null) ?? [];
    } catch (err) {
      // The server refused the statement (or we did): nothing was committed, so each one alone.
      // Anything else (a lost connection) leaves the outcome unknown: every caller gets that error.
      if (!(err instanceof GroupRetry || err instanceof pg.DatabaseError)) throw err;
      return Promise.all(items.map((i) => settle(this.createOne(i.n, i.idem))));
    }
    this.sql.wakeListeners(accounts);
    return items.map(() => ({ ok: true, value: undefined }));
  }

  private async createOne(n: NewNotification, idem?: TenantIdempotencyCompletion): Promise<void> {
    const params = createParams(this.sql, n, idem);
    try {
      // One statement is one transaction: without a key, a single round trip instead of BEGIN,
      // four statements and COMMIT.
      const [r] = idem
        ? await this.sql.tx(async (c) => {
            const rows = await this.sql.q('notification_create', params, c);
            // The reservation was taken over (its lock ran out) by another request: do not commit twice.
            if (rows[0]?.completed !== true) throw new StoreConflictError('idempotency key is no longer reserved', { constraint: 'idempotency_keys' });
            return rows;
          })
        : await this.sql.q('notification_create', params);
      this.sql.wakeListeners((r?.accounts as string[] | null) ?? []);
    } catch (err) {
      throw asConflict(err);
    }
  }

  /**
   * A notification of a producer-named challenge, in a transaction of its own (see
   * writeInChallenge), then the NOTIFY for its accounts.
   */
  private async createInChallenge(n: NewNotification, idem?: TenantIdempotencyCompletion): Promise<CreatedNotification> {
    try {
      const { accounts, superseded } = await this.sql.tx((c) => this.writeInChallenge(n, idem, c));
      this.sql.wakeListeners(accounts);
      return { superseded };
    } catch (err) {
      throw asConflict(err);
    }
  }

  /**
   * Under a per-challenge advisory lock (held to the end of the caller's transaction), refuses an
   * old or repeated generation, inserts, and supersedes the older generations' pending
   * deliveries. Returns the accounts to wake once the caller has committed.
   */
  private async writeInChallenge(
    n: NewNotification,
    idem: TenantIdempotencyCompletion | undefined,
    c: Client,
  ): Promise<{ accounts: string[]; superseded: SupersededDelivery[] }> {
    await this.sql.q('challenge_lock', [n.tenantId, n.groupKey], c);
    const [latest] = await this.sql.q('latest_generation', [n.tenantId, n.groupKey], c);
    checkGeneration(latest?.generation, n.generation);
    // With fallback, only the first channel is a delivery now; the others wait their turn.
    const first = n.fallback ? { ...n, deliveries: n.deliveries.slice(0, 1) } : n;
    const [r] = await this.sql.q('notification_create', createParams(this.sql, first, idem), c);
    if (idem && r?.completed !== true) throw new StoreConflictError('idempotency key is no longer reserved', { constraint: 'idempotency_keys' });
    if (n.retryLadder) await this.sql.q('notification_set_ladder', [n.id, n.retryLadder], c);
    if (n.pinnedChannels?.length) await this.sql.q('notification_set_pinned', [n.id, JSON.stringify(n.pinnedChannels)], c);
    if (n.fallback) {
      const later = n.deliveries.slice(1);
      await this.sql.q('notification_set_fallback', [n.id, n.fallback.afterMs, n.fallback.evidence], c);
      await this.sql.q(
        'fallback_insert',
        [
          n.id,
          later.map((_, i) => i + 1),
          later.map((d) => d.id),
          n.tenantId,
          later.map((d) => d.channel),
          later.map((d) => d.providerAccount),
          later.map((d) => d.destination),
          later.map((d) => d.idempotencyKey),
          // Only the next channel has a deadline; the ones after it start theirs in turn.
          later.map((_, i) => (i === 0 ? (n.dueAt ?? n.createdAt) + n.fallback!.afterMs : null)),
        ],
        c,
      );
    }
    if (n.generation > 1) await this.sql.q('fallbacks_drop_older', [n.tenantId, n.groupKey, n.generation], c);
    const older = pendingOlder(await this.sql.q('challenge_pending_older', [n.tenantId, n.groupKey, n.generation], c));
    const writes = supersedeWrites(
      older.map((o) => o.facts),
      n.createdAt,
    );
    const applied = writes.length > 0 ? await applyRun(this.sql, writes, c) : new Set<string>();
    const superseded = older
      .filter((o) => applied.has(o.facts.deliveryId))
      .map((o) => ({ deliveryId: o.facts.deliveryId, channel: o.channel, purpose: o.purpose }));
    return { accounts: (r?.accounts as string[] | null) ?? [], superseded };
  }

  /**
   * A batch (POST /v1/notifications/batch) in one transaction. The notifications that are their
   * own group (intake's `ntf:<id>`, no fallback, no ladder: the usual item) go in one
   * `notification_create_many` statement; a reservation taken over meanwhile is dropped from it
   * and the statement run again without it, and a statement the server refuses (a uniqueness
   * rule) is rolled back to its savepoint and its items written one by one. Producer-named
   * challenges follow, each under its challenge lock and in a savepoint of its own, in
   * (tenant, group) order so two batches take the locks in the same order and never deadlock;
   * items of one group keep the order given, so a later generation supersedes an earlier one of
   * the same batch. One NOTIFY round after the commit.
   */
  async createBatch(items: BatchNotification[], keys?: BatchKeyTerms): Promise<BatchItemOutcome[]> {
    if (items.length === 0) return [];
    const outcomes = new Array<BatchItemOutcome>(items.length);
    const accounts = new Set<string>();
    const own: number[] = [];
    const named: number[] = [];
    items.forEach(({ notification: n }, i) =>
      (n.groupKey === `ntf:${n.id}` && !n.fallback && !n.retryLadder && !n.pinnedChannels?.length ? own : named).push(i),
    );
    named.sort((a, b) => compareGroups(items[a]!.notification, items[b]!.notification) || a - b);
    await this.sql.tx(async (c) => {
      const alone = keys ? await this.writeManyKeyed(c, items, own, outcomes, accounts, keys) : await this.writeMany(c, items, own, outcomes, accounts);
      for (const i of [...alone, ...named]) await this.writeAlone(c, items[i]!, i, outcomes, accounts, keys);
    });
    this.sql.wakeListeners([...accounts]);
    return outcomes;
  }

  /**
   * The batch's own-group items in one multi-row statement, inside a savepoint. Returns the items
   * still to be written one by one (all of them when the server refused the statement).
   */
  private async writeMany(c: Client, items: BatchNotification[], indexes: number[], outcomes: BatchItemOutcome[], accounts: Set<string>): Promise<number[]> {
    let pending = indexes;
    while (pending.length > 0) {
      await c.query('SAVEPOINT batch_many');
      let r: Row | undefined;
      try {
        [r] = await this.sql.q(
          'notification_create_many',
          createManyParams(
            this.sql,
            pending.map((i) => ({ n: items[i]!.notification, idem: items[i]!.idempotency })),
          ),
          c,
        );
      } catch (err) {
        if (!(err instanceof pg.DatabaseError)) throw err;
        await c.query('ROLLBACK TO SAVEPOINT batch_many');
        return pending;
      }
      const tenants = (r?.completed_tenants as string[] | null) ?? [];
      const done = new Set(((r?.completed_keys as string[] | null) ?? []).map((k, j) => JSON.stringify([tenants[j], k])));
      const lost = pending.filter((i) => {
        const idem = items[i]!.idempotency;
        return idem !== undefined && !done.has(JSON.stringify([idem.tenantId, idem.key]));
      });
      if (lost.length === 0) {
        await c.query('RELEASE SAVEPOINT batch_many');
        for (const i of pending) outcomes[i] = { ok: true, superseded: [] };
        for (const a of (r?.accounts as string[] | null) ?? []) accounts.add(a);
        return [];
      }
      // A reservation was taken over (its lock ran out): that item is refused; the others go again.
      await c.query('ROLLBACK TO SAVEPOINT batch_many');
      for (const i of lost)
        outcomes[i] = { ok: false, conflict: new StoreConflictError('idempotency key is no longer reserved', { constraint: 'idempotency_keys' }) };
      pending = pending.filter((i) => !lost.includes(i));
    }
    return [];
  }

  /**
   * The batch's own-group items and their keys in one statement (`notification_create_many_keyed`),
   * inside a savepoint: a key inserted there is the item's, completed with it. Returns the items
   * to be decided one by one: those whose key already existed, or all of them when the server
   * refused the statement.
   */
  private async writeManyKeyed(
    c: Client,
    items: BatchNotification[],
    indexes: number[],
    outcomes: BatchItemOutcome[],
    accounts: Set<string>,
    keys: BatchKeyTerms,
  ): Promise<number[]> {
    if (indexes.length === 0) return [];
    await c.query('SAVEPOINT batch_many');
    let r: Row | undefined;
    try {
      [r] = await this.sql.q('notification_create_many_keyed', createManyKeyedParams(this.sql, items, indexes, keys), c);
    } catch (err) {
      if (!(err instanceof pg.DatabaseError)) throw err;
      await c.query('ROLLBACK TO SAVEPOINT batch_many');
      return indexes;
    }
    await c.query('RELEASE SAVEPOINT batch_many');
    const tenants = (r?.taken_tenants as string[] | null) ?? [];
    const taken = new Set(((r?.taken_keys as string[] | null) ?? []).map((k, j) => JSON.stringify([tenants[j], k])));
    const rest: number[] = [];
    for (const i of indexes) {
      const idem = items[i]!.idempotency;
      if (idem === undefined || taken.has(JSON.stringify([idem.tenantId, idem.key]))) outcomes[i] = { ok: true, superseded: [] };
      else rest.push(i);
    }
    for (const a of (r?.accounts as string[] | null) ?? []) accounts.add(a);
    return rest;
  }

  /**
   * One batch item in a savepoint of its own: a uniqueness rule it breaks rolls back that item
   * alone. With `keys`, its key is decided first in the same savepoint (decideKey); a key not
   * taken leaves the item unwritten, and a refused item leaves the key as it was.
   */
  private async writeAlone(
    c: Client,
    item: BatchNotification,
    i: number,
    outcomes: BatchItemOutcome[],
    accounts: Set<string>,
    keys?: BatchKeyTerms,
  ): Promise<void> {
    await c.query('SAVEPOINT batch_item');
    try {
      const idem = item.idempotency;
      if (keys && idem) {
        const taken = await decideKey(this.sql, { tenantId: idem.tenantId, key: idem.key, fingerprint: idem.fingerprint, ...keys }, c);
        if (taken.kind !== 'reserved') {
          await c.query('RELEASE SAVEPOINT batch_item');
          outcomes[i] = { ok: false, key: taken };
          return;
        }
      }
      const r = await this.writeInChallenge(item.notification, item.idempotency, c);
      await c.query('RELEASE SAVEPOINT batch_item');
      outcomes[i] = { ok: true, superseded: r.superseded };
      for (const a of r.accounts) accounts.add(a);
    } catch (err) {
      const conflict = asConflict(err);
      if (!(conflict instanceof StoreConflictError)) throw err;
      await c.query('ROLLBACK TO SAVEPOINT batch_item');
      outcomes[i] = { ok: false, conflict };
    }
  }
}

/** Orders notifications by (tenant, group key): the order a batch takes challenge locks in. */
function compareGroups(a: NewNotification, b: NewNotification): number {
  const x = `${a.tenantId}\u0000${a.groupKey}`;
  const y = `${b.tenantId}\u0000${b.groupKey}`;
  return x < y ? -1 : x > y ? 1 : 0;
}

interface CreateItem {
  n: NewNotification;
  idem: TenantIdempotencyCompletion | undefined;
}

/** Thrown inside a group transaction to roll it back and write its members one by one. */
class GroupRetry extends Error {}

/** The `notification.created` outbox payload. */
function createdPayload(n: NewNotification): string {
  return JSON.stringify({ notification_id: n.id, purpose: n.purpose, deliveries: n.deliveries.map((d) => ({ id: d.id, channel: d.channel, state: 'ready' })) });
}

/** Parameters of notification_create_many for a group (deliveries in key order); the campaign fan-out (campaigns.ts) writes its batches with them too. */
export function createManyParams(
  sql: PostgresContext,
  items: ReadonlyArray<{ n: NewNotification; idem?: TenantIdempotencyCompletion | undefined }>,
  campaignId: string | null = null,
): unknown[] {
  const withKey = items.filter((i) => i.idem);
  const nts = items.map((i) => i.n);
  // Deliveries in key order, so two groups naming the same delivery key wait for each other instead of deadlocking.
  const ds = nts
    .flatMap((n) => n.deliveries.map((d, position) => ({ n, d, position })))
    .sort((a, b) => (a.d.idempotencyKey < b.d.idempotencyKey ? -1 : a.d.idempotencyKey > b.d.idempotencyKey ? 1 : 0));
  return [
    nts.map((n) => n.id),
    nts.map((n) => n.tenantId),
    nts.map((n) => n.recipient.id),
    nts.map((n) => JSON.stringify(n.recipient)),
    nts.map((n) => n.purpose),
    nts.map((n) => JSON.stringify(n.channels)),
    nts.map((n) => sql.sealContent(n.content, bindTo('notifications', 'content_json', n.id))),
    nts.map((n) => n.groupKey),
    nts.map((n) => n.generation),
    nts.map((n) => (n.metadata === null ? null : JSON.stringify(n.metadata))),
    nts.map((n) => n.expiresAt),
    nts.map((n) => n.createdAt),
    ds.map((x) => x.d.id),
    ds.map((x) => x.n.id),
    ds.map((x) => x.position),
    ds.map((x) => x.d.channel),
    ds.map((x) => x.d.providerAccount),
    ds.map((x) => x.d.destination),
    ds.map((x) => x.d.idempotencyKey),
    nts.map((n) => createdPayload(n)),
    withKey.map((i) => i.idem!.tenantId),
    withKey.map((i) => i.idem!.key),
    withKey.map((i) => i.idem!.fingerprint),
    withKey.map((i) => i.idem!.statusCode),
    withKey.map((i) => JSON.stringify(i.idem!.body)),
    campaignId,
    nts.map((n) => n.dueAt ?? n.createdAt),
  ];
}

/**
 * Parameters of notification_create_many_keyed for a batch's items at `indexes`, in (tenant, key)
 * order (items without a key last), with each notification's own key columns (NULL without one).
 */
function createManyKeyedParams(sql: PostgresContext, items: BatchNotification[], indexes: number[], keys: BatchKeyTerms): unknown[] {
  const sortKey = (i: number) => {
    const k = items[i]!.idempotency;
    return k ? `0${k.tenantId}\u0000${k.key}` : '1';
  };
  const ordered = [...indexes].sort((a, b) => {
    const x = sortKey(a);
    const y = sortKey(b);
    return x < y ? -1 : x > y ? 1 : a - b;
  });
  const all = createManyParams(
    sql,
    ordered.map((i) => ({ n: items[i]!.notification })),
  );
  const base = all.slice(0, 20);
  const idem = ordered.map((i) => items[i]!.idempotency);
  return [
    ...base,
    idem.map((k) => k?.tenantId ?? null),
    idem.map((k) => k?.key ?? null),
    idem.map((k) => k?.fingerprint ?? null),
    idem.map((k) => k?.statusCode ?? null),
    idem.map((k) => (k ? JSON.stringify(k.body) : null)),
    keys.now + keys.lockMs,
    keys.now,
    keys.now + keys.retentionMs,
    all[26],
  ];
}

/** Parameters of notification_create for one notification (and its idempotency completion). */
function createParams(sql: PostgresContext, n: NewNotification, idem: TenantIdempotencyCompletion | undefined): unknown[] {
  const ds = n.deliveries;
  return [
    n.id,
    n.tenantId,
    n.recipient.id,
    JSON.stringify(n.recipient),
    n.purpose,
    JSON.stringify(n.channels),
    sql.sealContent(n.content, bindTo('notifications', 'content_json', n.id)),
    n.groupKey,
    n.generation,
    n.metadata === null ? null : JSON.stringify(n.metadata),
    n.expiresAt,
    n.createdAt,
    ds.map((d) => d.id),
    ds.map((_, i) => i),
    ds.map((d) => d.channel),
    ds.map((d) => d.providerAccount),
    ds.map((d) => d.destination),
    ds.map((d) => d.idempotencyKey),
    createdPayload(n),
    idem ? idem.key : null,
    idem ? idem.fingerprint : null,
    idem ? idem.statusCode : null,
    idem ? JSON.stringify(idem.body) : null,
    idem ? idem.tenantId : null,
    n.dueAt ?? n.createdAt,
  ];
}

/** Maps a unique violation to the StoreConflictError intake understands; anything else unchanged. */
function asConflict(err: unknown): unknown {
  const e = err as { code?: string; constraint?: string };
  if (e.code !== '23505') return err;
  const constraint =
    e.constraint === 'deliveries_idempotency_key_key'
      ? 'deliveries.idempotency_key'
      : e.constraint === 'notifications_group_generation'
        ? 'notifications.challenge'
        : (e.constraint ?? 'unique');
  return new StoreConflictError('a notification or delivery with this identity already exists', { constraint }, { cause: err });
}
