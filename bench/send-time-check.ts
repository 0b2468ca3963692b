/**
 * `npm run build && npx tsx bench/send-time-check.ts`: what the worker's send-time check (one
 * `sendabilityOf` per claimed batch: opt-outs and suppressions) costs next to the claim itself,
 * on SQLite (synchronous=FULL) and on PostgreSQL (DATABASE_URL, else the chaos run's embedded server). 20,000 deliveries to 5,000
 * recipients, half marketing; every 7th recipient opted out of marketing e-mail, every 50th
 * address suppressed. Claims and checks run back to back, without provider calls. Numbers are
 * printed, never asserted; results in docs/benchmarks.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Store } from '../src/store/store.js';
import { dropSchema, provideDatabase } from './chaos/database.js';

// The compiled Herald (npm run build), with the types of its sources, as bench/throughput.ts does.
async function dist<T>(rel: string): Promise<T> {
  return (await import(new URL(`../dist/${rel}`, import.meta.url).href)) as T;
}
const { deriveDeliveryKey } = await dist<typeof import('../src/domain/index.js')>('domain/index.js');
const { openSqliteStore } = await dist<typeof import('../src/store/sqlite/sqlite-store.js')>('store/sqlite/sqlite-store.js');
const { openPostgresStore } = await dist<typeof import('../src/store/postgres/postgres-store.js')>('store/postgres/postgres-store.js');

const N = 20_000,
  BATCH = 64,
  T0 = 1_700_000_000_000;
async function seed(store: Store) {
  await store.ensureTenant({ id: 't', name: 't' }, T0);
  const ps: Promise<unknown>[] = [];
  for (let i = 0; i < N; i++) {
    const id = `ntf_${String(i).padStart(8, '0')}`,
      rid = `user-${i % 5000}`;
    ps.push(
      store.createNotification({
        id,
        tenantId: 't',
        recipient: { id: rid, email: `u${i % 5000}@example.com` },
        purpose: i % 2 ? 'marketing' : 'otp',
        channels: ['email'],
        content: { subject: 's', text: 'x' },
        groupKey: id,
        generation: 1,
        metadata: null,
        expiresAt: T0 + 3_600_000,
        createdAt: T0,
        deliveries: [
          {
            id: `dlv_${String(i).padStart(8, '0')}`,
            channel: 'email',
            providerAccount: 'a',
            destination: `u${i % 5000}@example.com`,
            idempotencyKey: deriveDeliveryKey({
              tenantId: 't',
              recipientId: rid,
              groupKey: id,
              generation: 1,
              channel: 'email',
              purpose: i % 2 ? 'marketing' : 'otp',
            }),
          },
        ],
      }),
    );
    if (ps.length === 500) {
      await Promise.all(ps);
      ps.length = 0;
    }
  }
  await Promise.all(ps);
  // Some opt-outs and suppressions, as a real tenant has.
  for (let r = 0; r < 5000; r += 7)
    await store.preferences.addOptOut({ tenantId: 't', recipientId: `user-${r}`, optOut: { channel: 'email', purpose: 'marketing' }, source: 'api', now: T0 });
  for (let r = 0; r < 5000; r += 50) await store.preferences.addSuppression({ tenantId: 't', channel: 'email', destination: `u${r}@example.com`, now: T0 });
}
async function measure(name: string, store: Store) {
  await seed(store);
  let claimMs = 0,
    checkMs = 0,
    batches = 0,
    stopped = 0;
  for (;;) {
    let t = performance.now();
    const claimed = await store.claimBatch({ providerAccount: 'a', workerId: 'w', now: T0 + 1, leaseMs: 30_000, limit: BATCH });
    claimMs += performance.now() - t;
    if (claimed.length === 0) break;
    t = performance.now();
    const checks = await store.preferences.sendabilityOf(claimed.map((c) => c.deliveryId));
    checkMs += performance.now() - t;
    stopped += checks.filter((c) => c.verdict !== 'send').length;
    batches++;
  }
  console.log(
    `${name}: ${batches} batches of ${BATCH}: claimBatch ${(claimMs / batches).toFixed(2)} ms/batch, sendabilityOf ${(checkMs / batches).toFixed(2)} ms/batch (${((1000 * checkMs) / N).toFixed(1)} µs/delivery); ${stopped} of ${N} stopped`,
  );
}
const dir = mkdtempSync(join(tmpdir(), 'herald-check-'));
const sqlite = openSqliteStore({ path: join(dir, 'h.db') });
await sqlite.migrate();
await measure('sqlite (synchronous=FULL)', sqlite);
await sqlite.close();
rmSync(dir, { recursive: true, force: true });
// DATABASE_URL (a real server, fsync as configured), else an embedded one (fsync off): the chaos run's.
const db = await provideDatabase();
try {
  const store = openPostgresStore({ connectionString: db.url, schema: 'bench_send_time_check' });
  await store.migrate();
  await measure(`postgres (${db.source === 'embedded' ? 'embedded, fsync off' : 'DATABASE_URL'})`, store);
  await store.close();
} finally {
  await dropSchema(db.url, 'bench_send_time_check').catch(() => {});
  await db.stop();
}
