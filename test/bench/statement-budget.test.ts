/**
 * The statements-and-WAL budget (issue 24 item 2): a small fixed workload (a 200-recipient
 * email campaign and 20 SMS codes) through the real intake, fan-out, worker, sandbox, callbacks
 * and evidence applier, in one process, on an embedded PostgreSQL of its own with
 * pg_stat_statements loaded. Per message and per phase (intake, claim, record, evidence) it
 * counts statements (pg_stat_statements calls), round trips (a counting wrapper on the pg
 * client) and WAL bytes (pg_stat_statements wal_bytes), and fails when one is over its budget.
 * Counts, not times: the same on any machine.
 *
 * The budget is today's figure plus a small margin (docs/benchmarks.md, "The cost ledger").
 * A change that saves statements or WAL lowers it here, which is how a saving is proven; a
 * change that goes over it must say why in its commit and raise it knowingly.
 *
 * Its own server, not the suite's (test/setup/postgres.ts): pg_stat_statements and the WAL
 * position are per server, and the suite's server runs other files at the same time. So it
 * runs the same way with or without DATABASE_URL, and needs nothing npm does not install.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import {
  addWindow,
  emptyLedger,
  formatLedger,
  perMessage,
  PHASES,
  readStatements,
  RoundTripCounter,
  roundTripsSince,
  shapeOf,
  startLedgerServer,
  statementsSince,
  workerPhase,
  type LedgerServer,
  type Phase,
} from '../../bench/cost-ledger.js';
import { createHarness, otpBody, silentLogger, T0, type Harness } from '../helpers/harness.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { EvidenceApplier } from '../../src/delivery/evidence-applier.js';

const CAMPAIGN = 200;
const CODES = 20;
const MESSAGES = CAMPAIGN + CODES;

/**
 * Per message, per phase: the most each may cost. Today's figures (2026-12-04, after the live-key
 * cache and grouped callback inserts: intake 0.37 / 0.38 / 3,160 B, claim 0.26 / 0.26 / 1,701 B,
 * record 0.98 / 0.90 / 2,502 B, evidence 0.62-0.68 / 0.62-0.68 / 4,597 B; statements / round trips /
 * WAL) plus a margin: ~5% on statements and round trips, ~15% on WAL (b-tree page splits depend on the
 * random ids). docs/benchmarks.md keeps the history.
 */
const BUDGET: Record<Phase, { statements: number; roundTrips: number; walBytes: number }> = {
  intake: { statements: 0.4, roundTrips: 0.4, walBytes: 3_650 },
  claim: { statements: 0.28, roundTrips: 0.28, walBytes: 1_950 },
  // Raised knowingly for frequency caps (issue 28; docs/benchmarks.md): the marketing campaign's
  // cap slots, one transaction per batch. Was 1.03 / 0.95 / 2,750 on 0.98 / 0.90 / 2,384 B.
  record: { statements: 1.42, roundTrips: 1.33, walBytes: 3_300 },
  // Grouped callback inserts share a statement only with callbacks that arrive while one is in
  // flight, so this figure depends on how the callbacks overlap: 0.62-0.68 measured on a busy
  // machine; one insert per event (no grouping) is 2.07. The budget sits between, with room for a
  // quieter machine's smaller groups, and still fails if grouping is lost.
  evidence: { statements: 1.5, roundTrips: 1.5, walBytes: 5_300 },
};

let server: LedgerServer;
let h: Harness;
let workerStore: PostgresStore;
let evidenceStore: PostgresStore;
let reader: pg.Client;
const counter = new RoundTripCounter();

beforeAll(async () => {
  server = await startLedgerServer(['herald_api', 'herald_worker', 'herald_evidence', 'herald_ledger']);
  h = await createHarness({ driver: 'postgres', callbacks: true, pgConnectionString: server.url('herald_api') });
  workerStore = openPostgresStore({ connectionString: server.url('herald_worker'), schema: h.pgSchema!, maxConnections: 4 });
  evidenceStore = openPostgresStore({ connectionString: server.url('herald_evidence'), schema: h.pgSchema!, maxConnections: 2 });
  reader = new pg.Client({ connectionString: server.url('herald_ledger') });
  await reader.connect();
}, 60_000);

afterAll(async () => {
  counter.uninstall();
  await reader?.end();
  await h?.close();
  await workerStore?.close();
  await evidenceStore?.close();
  await server?.stop();
});

const recipients = Array.from({ length: CAMPAIGN }, (_, i) => ({ id: `u${i + 1}`, email: `u${i + 1}@example.com` }));

it('a campaign message and a code cost no more statements, round trips and WAL than the budget', async () => {
  const worker = h.newWorker({ store: workerStore });
  const evidence = new EvidenceApplier({ store: evidenceStore, clock: h.clock, logger: silentLogger, counters: h.counters });
  const ledger = emptyLedger();
  counter.install();
  const window = async (run: () => Promise<void>, phaseOf: (role: string, name: string | undefined) => Phase | null) => {
    const s0 = await readStatements(reader);
    const r0 = counter.snapshot();
    await run();
    const st = statementsSince(s0, await readStatements(reader));
    // LEDGER_DEBUG=1 prints each statement of the window: role, calls, WAL bytes, WAL records, full-page images, its name.
    if (process.env.LEDGER_DEBUG)
      for (const x of st)
        console.log(x.role, x.calls, x.walBytes, x.walRecords, x.walFpi, counter.names.get(shapeOf(x.query)) ?? `UNMATCHED ${shapeOf(x.query).slice(0, 300)}`);
    addWindow(ledger, st, roundTripsSince(r0, counter.snapshot()), phaseOf, counter.names);
  };

  // Intake: the campaign's creation and fan-out, and the codes' POSTs (the API's role only).
  await window(
    async () => {
      const created = await h.post('/v1/campaigns', {
        name: 'budget',
        channel: 'email',
        purpose: 'marketing',
        content: { subject: 'News', text: 'Hello from Herald' },
        deadline_at: new Date(T0 + 3600_000).toISOString(),
        audience: { recipients },
        start: 'if_feasible',
      });
      expect(created.status).toBe(201);
      let fanned = 0;
      while (fanned < CAMPAIGN) {
        const pass = await h.campaigns.runOnce();
        expect(pass.fannedOut).toBeGreaterThan(0);
        fanned += pass.fannedOut;
      }
      for (let i = 0; i < CODES; i++) {
        const r = await h.send(otpBody({ recipient: { id: `code-${i}`, phone: `+1415555${String(1000 + i)}` } }));
        expect(r.status).toBe(202);
      }
    },
    (role) => (role === 'herald_api' ? 'intake' : null),
  );

  // Claim and record: the worker drains every account; the sandbox's callbacks reach the API
  // meanwhile, and what the API writes for them is evidence.
  await window(
    async () => {
      const drained = await worker.drain();
      expect(drained.claimed).toBe(MESSAGES);
      await h.sandbox.idle();
    },
    (role, name) => (role === 'herald_worker' ? workerPhase(name) : role === 'herald_api' ? 'evidence' : null),
  );

  // Evidence: the applier merges what the callbacks recorded.
  await window(
    async () => {
      let events = 0;
      for (;;) {
        const pass = await evidence.runOnce();
        if (pass.events === 0) break;
        events += pass.events;
      }
      expect(events).toBeGreaterThanOrEqual(MESSAGES);
    },
    (role) => (role === 'herald_evidence' || role === 'herald_api' ? 'evidence' : null),
  );
  counter.uninstall();

  const per = perMessage(ledger, MESSAGES);
  console.log(formatLedger(ledger, MESSAGES).join('\n'));
  const over: string[] = [];
  for (const p of PHASES) {
    for (const k of ['statements', 'roundTrips', 'walBytes'] as const) {
      if (per[p][k] > BUDGET[p][k]) over.push(`${p} ${k}: ${per[p][k].toFixed(2)} per message, budget ${BUDGET[p][k]}`);
    }
  }
  expect(over).toEqual([]);
}, 60_000);
