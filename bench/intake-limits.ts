/**
 * `npm run bench:limits`: what the limits on the way in cost per request (docs/abuse-limits.md).
 * Drives POST /v1/notifications through `app.inject` (no sockets: the HTTP framing is the same in
 * every variant, so the difference is the limits') with --concurrency requests in flight, on a
 * fresh SQLite file (synchronous FULL, the default) and a fresh PostgreSQL schema, in three
 * variants: no limits; the per-key quota only (one upsert per request); the quota plus the
 * default OTP velocity rules and the SMS country check (a locked read and two inserts per code).
 * Every code goes to its own number and recipient, so nothing is refused. Prints requests per
 * second and p50/p99 latency; numbers are printed, never asserted (docs/benchmarks.md).
 *
 *   npm run bench:limits -- [--requests 2000] [--concurrency 32] [--driver sqlite|postgres|both]
 *                           [--pg-url postgres://postgres@127.0.0.1:5432/test]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { systemClock } from '../src/clock.js';
import { sandboxAccounts } from '../src/config/config.js';
import { resolveLimits } from '../src/config/limits-config.js';
import { ReplayService } from '../src/delivery/replay-service.js';
import { NO_INTAKE_LIMITS, type IntakeLimitsPolicy } from '../src/domain/index.js';
import { buildApp } from '../src/http/app.js';
import { generateApiKey, hashApiKey } from '../src/tenants/api-keys.js';
import { IntakeService } from '../src/intake/intake-service.js';
import { openPostgresStore } from '../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';

const { values: flags } = parseArgs({
  options: {
    requests: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '32' },
    driver: { type: 'string', default: 'both' },
    'pg-url': { type: 'string', default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
  },
});
const REQUESTS = Number(flags.requests);
const CONCURRENCY = Number(flags.concurrency);

const VARIANTS: Array<[string, IntakeLimitsPolicy]> = [
  ['no limits', NO_INTAKE_LIMITS],
  ['per-key quota', resolveLimits({ requests: { limit: 10_000_000 }, velocity: { otp: {} }, sms: { refuse_number_types: [] } })],
  ['quota + velocity + countries', resolveLimits({ requests: { limit: 10_000_000 }, sms: { countries: ['US'] } })],
];

async function run(driver: 'sqlite' | 'postgres', name: string, policy: IntakeLimitsPolicy, store: Store): Promise<void> {
  await store.migrate();
  await store.ensureTenant({ id: 'bench', name: 'Bench' }, Date.now());
  const key = generateApiKey();
  await store.createApiKey({ id: `key_${Math.random().toString(36).slice(2)}`, tenantId: 'bench', keyHash: hashApiKey(key), label: 'bench', now: Date.now() });
  const accounts = sandboxAccounts('http://127.0.0.1:9');
  const intake = new IntakeService({ store, accounts, clock: systemClock, logger: pino({ level: 'silent' }), limits: policy });
  const app = await buildApp({ store, intake, replay: new ReplayService({ store, clock: systemClock }), accounts, dashboard: null });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < REQUESTS; i = next++) {
        const t = performance.now();
        const r = await app.inject({
          method: 'POST',
          url: '/v1/notifications',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          payload: {
            recipient: { id: `r-${i}`, phone: `+1415${String(2_000_000 + i)}` },
            purpose: 'otp',
            channels: ['sms'],
            content: { text: 'Your code is 123456' },
            ttl_seconds: 300,
          },
        });
        if (r.statusCode !== 202) throw new Error(`request ${i}: ${r.statusCode} ${r.body}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(2);
  console.log(`${driver.padEnd(8)} ${name.padEnd(30)} ${(REQUESTS / seconds).toFixed(0).padStart(6)} req/s   p50 ${q(0.5)} ms   p99 ${q(0.99)} ms`);
  await app.close();
  await store.close();
}

console.log(`POST /v1/notifications, ${REQUESTS} requests, ${CONCURRENCY} in flight`);
for (const [name, policy] of VARIANTS) {
  if (flags.driver !== 'postgres') {
    const dir = mkdtempSync(join(tmpdir(), 'herald-bench-limits-'));
    try {
      await run('sqlite', name, policy, openSqliteStore({ path: join(dir, 'herald.db') }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (flags.driver !== 'sqlite') {
    const schema = `bench_limits_${Math.random().toString(36).slice(2, 8)}`;
    const store = openPostgresStore({ connectionString: flags['pg-url'], schema });
    try {
      await run('postgres', name, policy, store);
    } finally {
      const { default: pg } = await import('pg');
      const c = new pg.Client({ connectionString: flags['pg-url'] });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    }
  }
}
