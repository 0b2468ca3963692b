/**
 * The cost ledger (issue 24 item 2): what one message costs the database, per phase.
 *
 * Three sources, all counts, no times:
 * - statements and WAL bytes from pg_stat_statements (calls, wal_bytes), grouped by the role
 *   that ran them: each Herald part (API, worker, evidence applier) connects as its own role,
 *   so the server itself says which part ran what, whatever ran at the same time;
 * - round trips from a counting wrapper on pg's Client.prototype.query (one call = one round
 *   trip: pg sends a statement's parse/bind/execute/sync in one write and waits for its answer;
 *   a simple query of several statements, `BEGIN; SET LOCAL …`, is one round trip);
 * - the statement names the store sent (the wrapper sees `schema.name`), which split a
 *   worker's statements into the claim (claim, lease, limiter) and the record (the rest).
 *
 * pg_stat_statements must be loaded (`shared_preload_libraries=pg_stat_statements`) and created
 * in the measured database; `startLedgerServer` starts an embedded PostgreSQL that has it.
 */
import pg from 'pg';
import { readFileSync } from 'node:fs';
import { startEmbeddedPostgres } from './embedded-postgres.js';

/** The phases of a message's cost (issue 24): intake, claim, record, evidence. */
export type Phase = 'intake' | 'claim' | 'record' | 'evidence';
export const PHASES: readonly Phase[] = ['intake', 'claim', 'record', 'evidence'];

export interface PhaseCost {
  statements: number;
  roundTrips: number;
  walBytes: number;
}

export type Ledger = Record<Phase, PhaseCost>;

export const emptyLedger = (): Ledger => ({
  intake: { statements: 0, roundTrips: 0, walBytes: 0 },
  claim: { statements: 0, roundTrips: 0, walBytes: 0 },
  record: { statements: 0, roundTrips: 0, walBytes: 0 },
  evidence: { statements: 0, roundTrips: 0, walBytes: 0 },
});

/** Statement names that belong to the claim: the claim itself, its leases and the limiter's permits. */
export const isClaimStatement = (name: string): boolean => /^(claim_|lease_|limiter_)/.test(name);

/**
 * A statement's text with every parameter and constant as `?`, lists of them as one, spaces collapsed and no final
 * `;`: how a named statement's text and pg_stat_statements' normalised text of it (constants as `$n`, constant
 * lists squashed, the `;` gone) are matched.
 */
export function shapeOf(sql: string): string {
  return sql
    .replace(/'(?:[^']|'')*'/g, '?')
    .replace(/\$\d+/g, '?')
    .replace(/(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])/g, '?')
    .replace(/\s*\/\*, \.\.\. \*\//g, '')
    .replace(/\?(?:\s*,\s*\?)+/g, '?')
    .replace(/\s+/g, ' ')
    .replace(/\s*;\s*$/, '')
    .trim();
}

/** One row of pg_stat_statements: who ran which statement, how often, with how much WAL. */
export interface StatementRow {
  role: string;
  queryId: string;
  query: string;
  calls: number;
  walBytes: number;
  /** WAL records and, of them, full-page images (the first change to a page after a checkpoint writes the whole page). */
  walRecords: number;
  walFpi: number;
}

/** pg_stat_statements for the current database, its own reads (role `reader`) left out. */
export async function readStatements(client: pg.Client): Promise<StatementRow[]> {
  const r = await client.query<{ role: string; queryid: string; query: string; calls: string; wal_bytes: string; wal_records: string; wal_fpi: string }>(
    `SELECT r.rolname AS role, s.queryid::text AS queryid, s.query, s.calls::text AS calls, s.wal_bytes::text AS wal_bytes,
            s.wal_records::text AS wal_records, s.wal_fpi::text AS wal_fpi
       FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
      WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND r.rolname <> current_user`,
  );
  return r.rows.map((x) => ({
    role: x.role,
    queryId: x.queryid,
    query: x.query,
    calls: Number(x.calls),
    walBytes: Number(x.wal_bytes),
    walRecords: Number(x.wal_records),
    walFpi: Number(x.wal_fpi),
  }));
}

/** `after` minus `before`, per (role, statement). */
export function statementsSince(before: readonly StatementRow[], after: readonly StatementRow[]): StatementRow[] {
  const key = (s: StatementRow) => `${s.role}\u0000${s.queryId}`;
  const old = new Map(before.map((s) => [key(s), s] as const));
  return after
    .map((s) => {
      const b = old.get(key(s));
      return {
        ...s,
        calls: s.calls - (b?.calls ?? 0),
        walBytes: s.walBytes - (b?.walBytes ?? 0),
        walRecords: s.walRecords - (b?.walRecords ?? 0),
        walFpi: s.walFpi - (b?.walFpi ?? 0),
      };
    })
    .filter((s) => s.calls > 0);
}

/** Round trips counted by the wrapper, per role (the connection's user) and statement name (unnamed: its first word). */
export class RoundTripCounter {
  private readonly counts = new Map<string, Map<string, number>>();
  /** Statement shape (shapeOf its text) to its name, for what pg_stat_statements reports. */
  readonly names = new Map<string, string>();
  private original: typeof pg.Client.prototype.query | null = null;

  install(): void {
    if (this.original) return;
    const original = pg.Client.prototype.query;
    this.original = original;
    const counts = this.counts;
    const names = this.names;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const config = args[0];
      let name: string;
      if (typeof config === 'string')
        name = config
          .trim()
          .split(/[\s;]+/)[0]!
          .toUpperCase();
      else if (config && typeof config === 'object' && 'text' in config) {
        const c = config as { name?: string; text: string };
        name = c.name
          ? c.name.slice(c.name.indexOf('.') + 1)
          : c.text
              .trim()
              .split(/[\s;]+/)[0]!
              .toUpperCase();
        if (c.name) names.set(shapeOf(c.text), name);
      } else name = '?';
      const role = this.user ?? '?';
      let byName = counts.get(role);
      if (!byName) counts.set(role, (byName = new Map()));
      byName.set(name, (byName.get(name) ?? 0) + 1);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof pg.Client.prototype.query;
  }

  uninstall(): void {
    if (this.original) pg.Client.prototype.query = this.original;
    this.original = null;
  }

  /** The counts so far (a copy), per role and statement name. */
  snapshot(): Map<string, Map<string, number>> {
    return new Map([...this.counts].map(([role, m]) => [role, new Map(m)] as const));
  }
}

/** Round trips between two snapshots, per role and name. */
export function roundTripsSince(
  before: Map<string, Map<string, number>>,
  after: Map<string, Map<string, number>>,
): Array<{ role: string; name: string; count: number }> {
  const out: Array<{ role: string; name: string; count: number }> = [];
  for (const [role, m] of after) {
    for (const [name, n] of m) {
      const d = n - (before.get(role)?.get(name) ?? 0);
      if (d > 0) out.push({ role, name, count: d });
    }
  }
  return out;
}

/** Which phase a worker's statement belongs to; transaction control and unknown statements count as the record. */
export function workerPhase(name: string | undefined): Phase {
  return name !== undefined && isClaimStatement(name) ? 'claim' : 'record';
}

/** Adds a window's statements and round trips into `ledger`, each role's share going to the phase `phaseOf` gives it. */
export function addWindow(
  ledger: Ledger,
  statements: readonly StatementRow[],
  roundTrips: ReadonlyArray<{ role: string; name: string; count: number }>,
  phaseOf: (role: string, name: string | undefined) => Phase | null,
  names: ReadonlyMap<string, string>,
): void {
  for (const s of statements) {
    const phase = phaseOf(s.role, names.get(shapeOf(s.query)));
    if (!phase) continue;
    ledger[phase].statements += s.calls;
    ledger[phase].walBytes += s.walBytes;
  }
  for (const r of roundTrips) {
    const phase = phaseOf(r.role, r.name);
    if (phase) ledger[phase].roundTrips += r.count;
  }
}

/** The ledger divided by `messages`. */
export function perMessage(ledger: Ledger, messages: number): Ledger {
  const out = emptyLedger();
  for (const p of PHASES) {
    out[p] = { statements: ledger[p].statements / messages, roundTrips: ledger[p].roundTrips / messages, walBytes: ledger[p].walBytes / messages };
  }
  return out;
}

/** The ledger as printed lines: one per phase and a total, per message. */
export function formatLedger(ledger: Ledger, messages: number): string[] {
  const per = perMessage(ledger, messages);
  const f = (n: number, d = 2) => n.toFixed(d);
  const total = PHASES.reduce(
    (t, p) => ({ statements: t.statements + per[p].statements, roundTrips: t.roundTrips + per[p].roundTrips, walBytes: t.walBytes + per[p].walBytes }),
    {
      statements: 0,
      roundTrips: 0,
      walBytes: 0,
    },
  );
  return [
    `cost per message (${messages} messages): phase   statements  round trips  WAL bytes`,
    ...PHASES.map((p) => `  ${p.padEnd(8)} ${f(per[p].statements).padStart(10)} ${f(per[p].roundTrips).padStart(12)} ${f(per[p].walBytes, 0).padStart(10)}`),
    `  ${'total'.padEnd(8)} ${f(total.statements).padStart(10)} ${f(total.roundTrips).padStart(12)} ${f(total.walBytes, 0).padStart(10)}`,
  ];
}

/** An embedded PostgreSQL with pg_stat_statements, one login role per Herald part, and nothing else running on it. */
export interface LedgerServer {
  /** The connection string for `role` (superuser, password 'ledger'). */
  url(role: string): string;
  /** The postmaster's process id (its CPU: bench/campaign/postgres-cpu.ts). */
  pid: number | null;
  stop(): Promise<void>;
}

/** Starts the server and creates `roles` (each a superuser) and the extension. Autovacuum is off: nothing but the workload writes WAL. */
export async function startLedgerServer(roles: readonly string[]): Promise<LedgerServer> {
  const server = await startEmbeddedPostgres({
    prefix: 'herald-ledger-',
    settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'top', autovacuum: 'off', max_connections: 100 },
  });
  const base = server.url;
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  let pid: number | null = null;
  try {
    await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    for (const role of roles) {
      if (!/^[a-z_][a-z0-9_]*$/.test(role)) throw new Error(`invalid role name ${role}`);
      await c.query(`CREATE ROLE ${role} LOGIN SUPERUSER PASSWORD 'ledger'`);
    }
    // The postmaster is the parent of this connection's backend.
    const b = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    pid = parentOf(b);
  } finally {
    await c.end();
  }
  return {
    url: (role) => `postgres://${role}:ledger@127.0.0.1:${server.port}/postgres`,
    pid,
    stop: () => server.stop(),
  };
}

function parentOf(pid: number): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}
