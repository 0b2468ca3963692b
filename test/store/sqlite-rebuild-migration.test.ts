/**
 * Migration 0010 rebuilds `deliveries` and `replays` in SQLite (a CHECK can change only that
 * way). On a database that already holds data at 0009, the upgrade must keep every row and
 * column, every index, every foreign key (still enforced afterwards), and leave a store that works.
 */
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { decideAtStage } from '../../src/domain/index.js';
import { loadMigrations } from '../../src/store/named-sql.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { HOUR, SECOND, T0, TEST_POLICY, buildNotification } from './fixtures.js';

const MIGRATIONS = loadMigrations(fileURLToPath(new URL('../../src/store/sqlite/migrations', import.meta.url)));

/** A database file migrated up to and including `last`, as an older Herald left it. */
function migrateUpTo(path: string, last: number): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  for (const m of MIGRATIONS.filter((x) => x.version <= last)) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, T0);
  }
  db.close();
}

const indexes = (db: Database.Database, table: string) =>
  db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? ORDER BY name").all(table) as Array<{ name: string; sql: string }>;

describe('SQLite migration 0010 on a database with data', () => {
  let dir: string;
  const opened: Array<SqliteStore | Database.Database> = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps every delivery, attempt and replay, their indexes and foreign keys; the store works afterwards', async () => {
    dir = await mkdtemp(join(tmpdir(), 'herald-0010-'));
    const path = join(dir, 'herald.db');
    migrateUpTo(path, 9);
    const store = openSqliteStore({ path });
    opened.push(store);
    await store.ensureTenant({ id: 't_a', name: 'A' }, T0);
    for (let i = 0; i < 3; i++)
      await store.createNotification(
        buildNotification({ tenantId: 't_a', createdAt: T0 + i * SECOND, ttlMs: 2 * HOUR, deliveries: [{ channel: 'email', providerAccount: 'acct' }] }),
      );
    // What an older Herald's claim wrote, at 0009's columns: today's claim statement reads columns
    // later migrations add (notifications.pinned_channels, 0031), so it cannot run on this schema.
    const raw = new Database(path);
    opened.push(raw);
    const claimedAt = T0 + 10 * SECOND;
    const claimed = (
      raw.prepare('SELECT id AS deliveryId, expires_at AS expiresAt FROM deliveries ORDER BY created_at, id LIMIT 2').all() as Array<{
        deliveryId: string;
        expiresAt: number;
      }>
    ).map((d) => {
      raw
        .prepare(
          "UPDATE deliveries SET state = 'submitting', lease_owner = 'w1', lease_until = ?, lease_version = lease_version + 1, attempt_count = 1, next_attempt_at = NULL WHERE id = ?",
        )
        .run(claimedAt + 30_000, d.deliveryId);
      raw.prepare("INSERT INTO attempts (delivery_id, number, lease_version, worker_id, started_at) VALUES (?, 1, 1, 'w1', ?)").run(d.deliveryId, claimedAt);
      return { ...d, attemptNumber: 1, leaseVersion: 1 };
    });
    expect(claimed).toHaveLength(2);
    // One delivery ended exhausted and was replayed, one is still in flight.
    const first = claimed[0]!.deliveryId;
    raw.prepare("UPDATE attempts SET outcome = 'retryable', finished_at = ?, error_code = 'http_503' WHERE delivery_id = ?").run(T0 + 11 * SECOND, first);
    raw.prepare("UPDATE deliveries SET state = 'terminal', terminal_reason = 'exhausted', lease_owner = NULL, lease_until = NULL WHERE id = ?").run(first);
    raw
      .prepare(
        "INSERT INTO replays (delivery_id, tenant_id, requested_by, from_state, from_reason, accept_duplicate_risk, note, created_at) VALUES (?, 't_a', 'key_ops', 'terminal', 'exhausted', 0, 'x', ?)",
      )
      .run(first, T0 + 12 * SECOND);
    const before = {
      deliveries: raw.prepare('SELECT * FROM deliveries ORDER BY id').all(),
      attempts: raw.prepare('SELECT * FROM attempts ORDER BY delivery_id, number').all(),
      replays: raw.prepare('SELECT * FROM replays ORDER BY id').all(),
      deliveryIndexes: indexes(raw, 'deliveries'),
      replayIndexes: indexes(raw, 'replays'),
    };
    expect(before.deliveries).toHaveLength(3);

    // 0010 and every later migration (which may add columns and indexes of their own).
    expect(await store.migrate()).toEqual(MIGRATIONS.filter((m) => m.version > 9).map((m) => m.name));

    const columnsOf = (rows: unknown[], like: unknown[]) =>
      rows.map((r) => Object.fromEntries(Object.keys(like[0] as object).map((k) => [k, (r as Record<string, unknown>)[k]])));
    expect(columnsOf(raw.prepare('SELECT * FROM deliveries ORDER BY id').all(), before.deliveries)).toEqual(before.deliveries);
    const attempts = raw.prepare('SELECT * FROM attempts ORDER BY delivery_id, number').all() as Array<Record<string, unknown>>;
    expect(
      columnsOf(attempts, before.attempts).map((a) => ({
        ...a,
        decision: undefined,
        decision_retry_at: undefined,
        next_stage_decision: undefined,
        next_stage_retry_at: undefined,
      })),
    ).toEqual(
      before.attempts.map((a) => ({
        ...(a as object),
        decision: undefined,
        decision_retry_at: undefined,
        next_stage_decision: undefined,
        next_stage_retry_at: undefined,
      })),
    );
    expect(attempts.every((a) => a.decision === null && a.next_stage_decision === null)).toBe(true);
    expect(columnsOf(raw.prepare('SELECT * FROM replays ORDER BY id').all(), before.replays)).toEqual(before.replays);
    // Every index 0009 had survives the rebuild, except those a later migration drops on purpose.
    const droppedLater = new Set(['deliveries_due']); // 0020_write_cost: no statement needs it
    expect(indexes(raw, 'deliveries')).toEqual(expect.arrayContaining(before.deliveryIndexes.filter((i) => !droppedLater.has(i.name))));
    expect(indexes(raw, 'deliveries').map((i) => i.name)).not.toContain('deliveries_due');
    expect(indexes(raw, 'replays')).toEqual(expect.arrayContaining(before.replayIndexes));
    // The references into the rebuilt tables still name them, and none dangles.
    expect((raw.pragma('foreign_key_list(attempts)') as Array<{ table: string }>).map((f) => f.table)).toEqual(['deliveries']);
    expect((raw.pragma('foreign_key_list(device_offers)') as Array<{ table: string }>).map((f) => f.table)).toContain('deliveries');
    expect(raw.pragma('foreign_key_check')).toEqual([]);
    // The new CHECK holds: `held` is a reason now, a made-up one still is not.
    expect(() => raw.prepare("UPDATE deliveries SET terminal_reason = 'nonsense' WHERE id = ?").run(first)).toThrow(/CHECK/);

    raw.close();
    opened.splice(opened.indexOf(raw), 1);
    const second = claimed[1]!;
    const r = decideAtStage(
      { state: 'submitting', attemptCount: second.attemptNumber, expiresAt: second.expiresAt, nextAttemptAt: null },
      { kind: 'retryable', code: 'http_503', message: 'unavailable' },
      { now: T0 + 20 * SECOND, policy: TEST_POLICY, random: () => 0.5, stage: 'shadow', unknownSettlement: 'reconcile_lookup' },
    );
    expect(
      await store.applyTransitions([
        {
          deliveryId: second.deliveryId,
          expect: { state: 'submitting', leaseVersion: second.leaseVersion },
          transition: r.transition,
          now: T0 + 20 * SECOND,
          attempt: { number: second.attemptNumber, outcome: { kind: 'retryable', code: 'http_503', message: 'unavailable' }, decisions: r },
        },
      ]),
    ).toEqual([{ deliveryId: second.deliveryId, applied: true }]);
    expect(await store.getDelivery(second.deliveryId)).toMatchObject({ state: 'terminal', terminalReason: 'held' });
    // Foreign keys are off only while migrations run: the store's own connection enforces them
    // again (a per-connection setting, so only that connection can tell; no API write exposes it).
    const connection = (store as unknown as { sql: { db: Database.Database } }).sql.db;
    expect(connection.pragma('foreign_keys', { simple: true })).toBe(1);
  });
});
