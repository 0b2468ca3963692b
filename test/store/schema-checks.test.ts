/**
 * The schema and the domain name the same things (STYLE habit 6), in both dialects. Every CHECK
 * constraint is read back from a database the driver migrated (SQLite: the CREATE TABLE text in
 * sqlite_master; PostgreSQL: pg_constraint), normalised to the table, the columns it reads and,
 * for an enum-like check (`column IN (...)`), its allowed values. The two dialects must have the
 * same constraints, and every enum-like one must equal its vocabulary (src/domain, or the Store
 * contract for the store's own words) exactly. Also: the schema refuses a row that breaks
 * "terminal iff terminal_reason".
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAMPAIGN_PURPOSES, CAMPAIGN_STATUSES } from '../../src/domain/campaign-status.js';
import {
  AMBIGUITY_POLICIES,
  CHANNELS,
  DELIVERY_STATES,
  DOWNSTREAM_STATUSES,
  FAILOVER_REASONS,
  FALLBACK_EVIDENCE,
  HOLD_REASONS,
  LADDER_NAMES,
  OPTIONAL_PURPOSES,
  OFFER_STATES,
  OUTCOME_KINDS,
  PHONE_STATES,
  PURPOSES,
  REPLAYABLE_REASONS,
  SUPPRESSION_REASONS,
  TERMINAL_REASONS,
  TRANSITION_TABLE,
  PUSH_TARGET_TYPES,
  ROLLOUT_DECISIONS,
  VELOCITY_SUBJECTS,
} from '../../src/domain/index.js';
import { AUDIENCE_SOURCES, AUDIENCE_STATUSES } from '../../src/store/campaign-store.js';
import { ATTEMPT_RESOLUTIONS } from '../../src/store/core-store.js';
import { SWEEP_CAUSES } from '../../src/store/device-store.js';
import { EVERY } from '../../src/store/preference-rows.js';
import { LOOKUP_LED_TO, LOOKUP_RESULTS } from '../../src/store/evidence-store.js';
import { OPT_OUT_SOURCES } from '../../src/store/preference-store.js';
import { PUSH_DEACTIVATION_REASONS } from '../../src/store/push-store.js';
import { REPORT_KINDS } from '../../src/store/report-store.js';
import { ERASURE_CAUSES, ERASURE_KINDS } from '../../src/store/retention-store.js';
import { ALERT_HISTORY_KINDS, ALERT_OUTCOMES, ALERT_TARGET_KINDS } from '../../src/store/alert-store.js';
import { ALERT_STATUSES, ANNOUNCEMENT_KINDS, INBOUND_KINDS, INBOUND_SOURCES, KEYWORD_ACTIONS } from '../../src/domain/index.js';
import { SESSION_SUBJECT_KINDS, USER_ROLES } from '../../src/store/session-store.js';
import { ACTOR_KINDS, OPERATOR_ACTIONS } from '../../src/store/audit-store.js';
import { ROUTE_CHANGE_ACTIONS } from '../../src/store/route-store.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { WEBHOOK_DISABLED_REASONS, WEBHOOK_ENDPOINT_STATUSES } from '../../src/store/webhook-store.js';
import { openTestPostgresStore, pgUrl } from '../helpers/postgres.js';
import { T0, buildNotification } from './fixtures.js';

/** Each enum-like CHECK (`table.column`) and the vocabulary it must list, no more and no less. */
const VOCABULARY: Record<string, readonly string[]> = {
  // Internal to the drivers' SQL (no type outside src/store names them).
  'idempotency_keys.status': ['in_progress', 'completed'],
  'provider_events.outcome': ['applied', 'no_change', 'orphaned'],

  'notifications.purpose': PURPOSES,
  'notifications.fallback_evidence': FALLBACK_EVIDENCE,
  'notifications.retry_ladder': LADDER_NAMES,
  'deliveries.state': DELIVERY_STATES,
  'deliveries.terminal_reason': TERMINAL_REASONS,
  'deliveries.channel': CHANNELS,
  'deliveries.purpose': PURPOSES,
  'deliveries.downstream_status': DOWNSTREAM_STATUSES,
  'deliveries.hold_reason': HOLD_REASONS,
  'attempts.outcome': [...OUTCOME_KINDS, 'lease_expired'],
  'attempts.ambiguity_policy': AMBIGUITY_POLICIES,
  'attempts.resolution': ATTEMPT_RESOLUTIONS,
  'attempts.failover_reason': FAILOVER_REASONS,
  // A replay starts only where the state machine has a `replay` edge, from a replayable reason.
  'replays.from_state': [...new Set(TRANSITION_TABLE.filter((r) => r.on === 'replay').map((r) => r.from))],
  'replays.from_reason': REPLAYABLE_REASONS,
  'pending_fallbacks.channel': CHANNELS,
  'provider_events.status': DOWNSTREAM_STATUSES,
  // A callback suppresses for a bounce or a complaint; `manual` is the operator's alone.
  'provider_events.suppress': SUPPRESSION_REASONS.filter((r) => r !== 'manual'),
  'suppressions.channel': CHANNELS,
  'suppressions.reason': SUPPRESSION_REASONS,
  'webhook_endpoints.status': WEBHOOK_ENDPOINT_STATUSES,
  'webhook_endpoints.disabled_reason': WEBHOOK_DISABLED_REASONS,
  // "Every channel" and "every optional purpose" are stored as EVERY (see preference-rows.ts).
  'recipient_preferences.channel': [EVERY, ...CHANNELS],
  'recipient_preferences.purpose': [EVERY, ...OPTIONAL_PURPOSES],
  'recipient_preferences.source': OPT_OUT_SOURCES,
  'audiences.status': AUDIENCE_STATUSES,
  'audiences.source': AUDIENCE_SOURCES,
  'campaigns.status': CAMPAIGN_STATUSES,
  'campaigns.channel': CHANNELS,
  'campaigns.purpose': CAMPAIGN_PURPOSES,
  'device_offers.state': OFFER_STATES,
  'device_offers.phone_state': PHONE_STATES,
  'device_sweeps.cause': SWEEP_CAUSES,
  'push_subscriptions.type': PUSH_TARGET_TYPES,
  'push_subscriptions.deactivated_reason': PUSH_DEACTIVATION_REASONS,
  'notification_reports.kind': REPORT_KINDS,
  'notification_reports.channel': CHANNELS,
  // The staged rollout (0010): what was decided on an attempt's outcome, and what the next stage would decide.
  'attempts.decision': ROLLOUT_DECISIONS,
  'attempts.next_stage_decision': ROLLOUT_DECISIONS,
  'alert_states.status': ALERT_STATUSES,
  'alert_states.announced': ANNOUNCEMENT_KINDS,
  'alert_history.kind': ALERT_HISTORY_KINDS,
  'alert_history.target_kind': ALERT_TARGET_KINDS,
  'alert_history.outcome': ALERT_OUTCOMES,
  'users.role': USER_ROLES,
  'sessions.role': USER_ROLES,
  'sessions.subject_kind': SESSION_SUBJECT_KINDS,
  'operator_actions.action': OPERATOR_ACTIONS,
  'operator_actions.actor_kind': ACTOR_KINDS,
  // Retention (0016): why and what was erased.
  'erasures.cause': ERASURE_CAUSES,
  'erasures.what': ERASURE_KINDS,
  // Reconciliation look-ups (0017): what each found and what that led to.
  'reconcile_lookups.result': LOOKUP_RESULTS,
  'reconcile_lookups.led_to': LOOKUP_LED_TO,
  'velocity_events.rule': VELOCITY_SUBJECTS,
  'velocity_events.purpose': PURPOSES,
  // Frequency caps' counted sends (0024).
  'cap_sends.channel': CHANNELS,
  'cap_sends.purpose': PURPOSES,
  // Two-way SMS (0026).
  'inbound_messages.source': INBOUND_SOURCES,
  'inbound_messages.kind': INBOUND_KINDS,
  'inbound_messages.keyword': KEYWORD_ACTIONS,
  // Routes (0027): a demotion or a restoration.
  'route_changes.action': ROUTE_CHANGE_ACTIONS,
};

/** One CHECK constraint: its table, the columns it reads (sorted), and the allowed values of an enum-like one. */
interface Check {
  table: string;
  columns: string[];
  values: string[] | null;
}

/** The SQL text with `--` comments removed (outside string literals), so a word in a comment is not read as SQL. */
function withoutComments(sql: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < sql.length; i++) {
    if (sql[i] === "'") inString = !inString;
    if (!inString && sql.startsWith('--', i)) {
      while (i < sql.length && sql[i] !== '\n') i++;
    }
    out += sql[i] ?? '';
  }
  return out;
}

/** The expressions of every `CHECK (...)` in a CREATE TABLE statement, parentheses balanced. */
function checkExpressions(createTable: string): string[] {
  const sql = withoutComments(createTable);
  const out: string[] = [];
  const start = /\bCHECK\s*\(/gi;
  for (let m = start.exec(sql); m; m = start.exec(sql)) {
    let depth = 1;
    let inString = false;
    let i = start.lastIndex;
    for (; i < sql.length && depth > 0; i++) {
      if (sql[i] === "'") inString = !inString;
      else if (!inString && sql[i] === '(') depth++;
      else if (!inString && sql[i] === ')') depth--;
    }
    out.push(sql.slice(start.lastIndex, i - 1).trim());
    start.lastIndex = i;
  }
  return out;
}

const quoted = (list: string) => [...list.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!.replace(/''/g, "'"));

/** SQLite's CHECK constraints, parsed from sqlite_master. */
function sqliteChecks(path: string): Check[] {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{
      name: string;
      sql: string;
    }>;
    return tables.flatMap(({ name, sql }) => {
      const columns = (db.prepare(`PRAGMA table_info("${name}")`).all() as Array<{ name: string }>).map((c) => c.name);
      return checkExpressions(sql).map((expr) => {
        const words = new Set(expr.replace(/'(?:[^']|'')*'/g, ' ').match(/\b\w+\b/g) ?? []);
        const enumLike = /^(\w+)\s+IN\s*\(([^()]*)\)$/i.exec(expr);
        return { table: name, columns: columns.filter((c) => words.has(c)).sort(), values: enumLike ? quoted(enumLike[2]!) : null };
      });
    });
  } finally {
    db.close();
  }
}

/** PostgreSQL's CHECK constraints of one schema, from pg_constraint. */
async function postgresChecks(schema: string): Promise<Check[]> {
  const c = new pg.Client({ connectionString: pgUrl() });
  await c.connect();
  try {
    const { rows } = await c.query<{ table_name: string; columns: string[]; def: string }>(
      `SELECT cl.relname AS table_name, pg_get_constraintdef(con.oid) AS def,
              ARRAY(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = con.conrelid AND a.attnum = ANY (con.conkey) ORDER BY 1) AS columns
       FROM pg_constraint con
       JOIN pg_class cl ON cl.oid = con.conrelid
       JOIN pg_namespace ns ON ns.oid = cl.relnamespace
       WHERE con.contype = 'c' AND ns.nspname = $1`,
      [schema],
    );
    // PostgreSQL writes `column IN ('a', 'b')` back as `CHECK ((column = ANY (ARRAY['a'::text, 'b'::text])))`.
    return rows.map((r) => {
      const enumLike = /^CHECK \(\("?(\w+)"? = ANY \(ARRAY\[(.*)\]\)\)\)$/.exec(r.def);
      return { table: r.table_name, columns: [...r.columns].sort(), values: enumLike ? quoted(enumLike[2]!) : null };
    });
  } finally {
    await c.end();
  }
}

/** A dialect's checks as comparable lines, e.g. `deliveries(state) IN [accepted, ...]`, `deliveries(state, terminal_reason)`. */
const describeChecks = (checks: Check[]) =>
  checks.map((k) => `${k.table}(${k.columns.join(', ')})${k.values ? ` IN [${[...k.values].sort().join(', ')}]` : ''}`).sort();

/** The enum-like checks as `table.column` → allowed values. */
function enumChecks(checks: Check[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const k of checks.filter((x) => x.values !== null)) {
    expect(k.columns, `an enum-like check on ${k.table} reads one column`).toHaveLength(1);
    const key = `${k.table}.${k.columns[0]}`;
    expect(out.has(key), `one enum-like check on ${key}`).toBe(false);
    out.set(key, k.values!);
  }
  return out;
}

let dir: string;
let path: string;
let store: SqliteStore;
let checks: Record<'sqlite' | 'postgres', Check[]>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'herald-schema-'));
  path = join(dir, 'herald.db');
  store = openSqliteStore({ path });
  await store.migrate();
  const postgres = await openTestPostgresStore();
  try {
    checks = { sqlite: sqliteChecks(path), postgres: await postgresChecks(postgres.schema) };
  } finally {
    await postgres.store.close();
    await postgres.drop();
  }
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const sorted = (xs: readonly string[]) => [...xs].sort();

describe('CHECK constraints: the same in both dialects', () => {
  it('each dialect has CHECK constraints to compare (the readers found them)', () => {
    expect(checks.sqlite.length).toBeGreaterThan(40);
    expect(enumChecks(checks.sqlite).size).toBe(Object.keys(VOCABULARY).length);
  });

  it('SQLite and PostgreSQL have the same constraints: tables, columns read, allowed values', () => {
    expect(describeChecks(checks.sqlite)).toEqual(describeChecks(checks.postgres));
  });
});

describe.each(['sqlite', 'postgres'] as const)('%s: enum-like CHECK lists match the vocabularies', (dialect) => {
  it('every enum-like CHECK has a vocabulary here, and every vocabulary here a CHECK', () => {
    expect(sorted([...enumChecks(checks[dialect]).keys()])).toEqual(sorted(Object.keys(VOCABULARY)));
  });

  it.each(Object.entries(VOCABULARY))('%s', (key, vocabulary) => {
    const list = enumChecks(checks[dialect]).get(key) ?? [];
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
      const ids = (raw.prepare("SELECT id FROM deliveries WHERE id LIKE 'ok-%' OR id LIKE 'bad-%' ORDER BY id").all() as Array<{ id: string }>).map(
        (r) => r.id,
      );
      expect(ids).toEqual(['ok-ready', 'ok-terminal']);
    } finally {
      raw.close();
    }
  });
});
