/**
 * The schema and the domain name the same states (STYLE habit 6): every CHECK list on
 * `deliveries` must equal its vocabulary in src/domain exactly, and the schema must refuse a
 * row that breaks "terminal iff terminal_reason". Reads the schema the driver created.
 */
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHANNELS,
  DELIVERY_STATES,
  DOWNSTREAM_STATUSES,
  OUTCOME_KINDS,
  PURPOSES,
  REPLAYABLE_REASONS,
  TERMINAL_REASONS,
  TRANSITION_TABLE,
} from '../../src/domain/index.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { T0, buildNotification } from './fixtures.js';

let dir: string;
let path: string;
let store: SqliteStore;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'herald-schema-'));
  path = join(dir, 'herald.db');
  store = openSqliteStore({ path });
  await store.migrate();
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** The CREATE TABLE statement of one table, as SQLite stored it. */
function tableSql(table: string): string {
  const statements = store.schemaSql().split(';\n');
  const found = statements.filter((s) => new RegExp(`^CREATE TABLE "?${table}"?\\s*\\(`).test(s.trim()));
  expect(found, `CREATE TABLE ${table}`).toHaveLength(1);
  return found[0]!;
}

/** The values of the one `CHECK (column IN (...))` on a column of a table. */
function checkList(table: string, column: string): string[] {
  const matches = [...tableSql(table).matchAll(new RegExp(`CHECK\\s*\\(\\s*${column}\\s+IN\\s*\\(([^)]*)\\)\\s*\\)`, 'g'))];
  expect(matches, `CHECK (${column} IN (...)) on ${table}`).toHaveLength(1);
  return [...matches[0]![1]!.matchAll(/'([^']*)'/g)].map((m) => m[1]!);
}

const sorted = (xs: readonly string[]) => [...xs].sort();

describe('schema CHECK lists match the domain vocabularies', () => {
  it.each([
    ['deliveries', 'state', DELIVERY_STATES],
    ['deliveries', 'terminal_reason', TERMINAL_REASONS],
    ['deliveries', 'channel', CHANNELS],
    ['deliveries', 'purpose', PURPOSES],
    ['deliveries', 'downstream_status', DOWNSTREAM_STATUSES],
    ['notifications', 'purpose', PURPOSES],
    ['attempts', 'outcome', [...OUTCOME_KINDS, 'lease_expired']],
    // A replay starts only where the state machine has a `replay` edge, from a replayable reason.
    ['replays', 'from_state', [...new Set(TRANSITION_TABLE.filter((r) => r.on === 'replay').map((r) => r.from))]],
    ['replays', 'from_reason', REPLAYABLE_REASONS],
  ] as const)('%s.%s', (table, column, vocabulary) => {
    const list = checkList(table, column);
    expect(new Set(list).size, 'no duplicates in the CHECK list').toBe(list.length);
    expect(sorted(list)).toEqual(sorted(vocabulary));
  });
});

describe('deliveries: terminal iff terminal_reason', () => {
  it('refuses a terminal row without a reason and a reason on a non-terminal row', async () => {
    await store.ensureTenant({ id: 't1', name: 'One' }, T0);
    const n = buildNotification({ tenantId: 't1' });
    await store.createNotification(n);

    const raw = new Database(path);
    try {
      const insert = raw.prepare(
        `INSERT INTO deliveries (id, notification_id, tenant_id, position, channel, purpose, provider_account, destination,
                                 idempotency_key, state, terminal_reason, next_attempt_at, expires_at, created_at, updated_at)
         VALUES (@id, @notification_id, 't1', 9, 'email', 'transactional', 'acct', 'a@example.test',
                 @id, @state, @terminal_reason, @next_attempt_at, @expires_at, @now, @now)`,
      );
      const row = (id: string, state: string, terminal_reason: string | null) => ({
        id,
        notification_id: n.id,
        state,
        terminal_reason,
        next_attempt_at: state === 'ready' || state === 'retryable' ? T0 : null,
        expires_at: n.expiresAt,
        now: T0,
      });
      // The control rows are accepted, so the refusals below are the CHECK's doing.
      insert.run(row('ok-terminal', 'terminal', 'cancelled'));
      insert.run(row('ok-ready', 'ready', null));
      expect(() => insert.run(row('bad-1', 'terminal', null))).toThrow(/CHECK constraint failed/);
      expect(() => insert.run(row('bad-2', 'ready', 'expired'))).toThrow(/CHECK constraint failed/);
      expect(() => insert.run(row('bad-3', 'accepted', 'rejected'))).toThrow(/CHECK constraint failed/);
      expect(() => raw.prepare("UPDATE deliveries SET terminal_reason = NULL WHERE id = 'ok-terminal'").run()).toThrow(/CHECK constraint failed/);
      const ids = (raw.prepare("SELECT id FROM deliveries WHERE id LIKE 'ok-%' OR id LIKE 'bad-%' ORDER BY id").all() as Array<{ id: string }>).map((r) => r.id);
      expect(ids).toEqual(['ok-ready', 'ok-terminal']);
    } finally {
      raw.close();
    }
  });
});
