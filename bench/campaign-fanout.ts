/**
 * `npx tsx bench/campaign-fanout.ts [N]` (default 50,000): how fast an audience is loaded and
 * a campaign fanned out, on SQLite (a temp file, synchronous=FULL) and, with DATABASE_URL set,
 * on PostgreSQL (a throwaway schema). No provider and no worker: this is the store cost of
 * turning recipients into ready deliveries (intake's checks and inserts, the cursor, the link),
 * one pass of the campaign runner with a lane fast enough that pacing does not stop it.
 * Numbers are printed, never asserted; other processes on the machine distort them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import { AudienceLoader } from '../src/campaigns/audience-loader.js';
import { parseAudience } from '../src/campaigns/audience-parser.js';
import { CampaignRunner } from '../src/campaigns/campaign-runner.js';
import { ManualClock } from '../src/clock.js';
import { IntakeService } from '../src/intake/intake-service.js';
import type { ProviderAccountConfig } from '../src/providers/provider.js';
import { openPostgresStore } from '../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';

const N = Number(process.argv[2] ?? 50_000);
const T0 = Date.UTC(2026, 10, 29, 12);
const account: ProviderAccountConfig = {
  id: 'bench-email',
  kind: 'sandbox',
  channel: 'email',
  base_url: 'http://127.0.0.1:9',
  rate_per_second: 1_000_000,
  burst: 1_000,
  ambiguity_policy: 'wait_for_evidence',
  timeout_ms: 10_000,
};

function csv(n: number): Readable {
  return Readable.from(
    (function* () {
      yield 'id,email,locale\n';
      for (let i = 0; i < n; i += 1_000) {
        let chunk = '';
        for (let j = i; j < Math.min(n, i + 1_000); j++) chunk += `u${j},u${j}@example.com,en\n`;
        yield chunk;
      }
    })(),
  );
}

async function run(name: string, store: Store): Promise<void> {
  await store.migrate();
  const clock = new ManualClock(T0);
  await store.ensureTenant({ id: 't', name: 'Bench' }, T0);
  // Not the default tenant: it sends only through accounts assigned to it (docs/tenants.md).
  await store.tenants.assignAccount('t', account.id, T0);
  let t = performance.now();
  const audience = await new AudienceLoader({ store, clock, logger: pino({ level: 'silent' }) }).load(
    't',
    'csv',
    parseAudience(csv(N), 'csv'),
    (l) => `line ${l}`,
  );
  const loadMs = performance.now() - t;
  await store.campaigns.createCampaign({
    id: 'cmp_01JBENCH0000000000000000000',
    tenantId: 't',
    name: 'bench',
    status: 'running',
    channel: 'email',
    purpose: 'marketing',
    providerAccount: account.id,
    lane: 'bulk',
    content: { subject: 'Bench', text: 'Hello' },
    template: null,
    metadata: null,
    ttlMs: 3600_000,
    audienceId: audience.id,
    audienceSize: audience.size,
    deadlineAt: T0 + 3600_000,
    sendAt: null,
    plan: {},
    createdAt: T0,
    startedAt: T0,
  });
  const runner = new CampaignRunner({
    store,
    clock,
    logger: pino({ level: 'silent' }),
    intake: new IntakeService({ store, accounts: [account], clock, logger: pino({ level: 'silent' }) }),
    accounts: [account],
  });
  t = performance.now();
  const pass = await runner.runOnce();
  const fanMs = performance.now() - t;
  t = performance.now();
  await store.campaigns.campaignDeliveryCounts('cmp_01JBENCH0000000000000000000');
  const countMs = performance.now() - t;
  const rate = (n: number, ms: number) => `${Math.round((n / ms) * 1000).toLocaleString('en')}/s`;
  console.log(
    `${name}: upload ${audience.size} rows in ${Math.round(loadMs)} ms (${rate(audience.size, loadMs)}); ` +
      `fan-out ${pass.fannedOut} in ${Math.round(fanMs)} ms (${rate(pass.fannedOut, fanMs)}); progress query ${Math.round(countMs)} ms`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'herald-fanout-'));
try {
  const sqlite = openSqliteStore({ path: join(dir, 'herald.db') });
  await run('sqlite (synchronous=FULL)', sqlite);
  await sqlite.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (process.env.DATABASE_URL) {
  const schema = `herald_fanout_${process.pid}`;
  const pgStore = openPostgresStore({ connectionString: process.env.DATABASE_URL, schema });
  try {
    await run('postgres', pgStore);
  } finally {
    await pgStore.close();
    // The store's pool is its own; a short connection of the bench's drops the schema.
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin
      .connect()
      .then(() => admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))
      .catch(() => {})
      .finally(() => admin.end().catch(() => {}));
  }
}
