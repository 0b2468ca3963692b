/**
 * Runs the Store conformance suite against the PostgreSQL driver: one schema per test, on
 * DATABASE_URL when set, else on the embedded server the global setup started.
 */
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { freshSchema, openTestPostgresStore, pgUrl } from '../helpers/postgres.js';
import { storeConformance, type StoreFixture } from './conformance.js';
import { evidenceConformance } from './evidence-conformance.js';
import { limiterConformance } from './limiter-conformance.js';
import { T0, TEST_CONTENT_CIPHER } from './fixtures.js';
import { loadMigrations } from '../../src/store/named-sql.js';
import { fileURLToPath } from 'node:url';
import { webhookConformance } from './webhooks-conformance.js';
import { campaignConformance } from './campaign-conformance.js';
import { preferencesConformance } from './preferences-conformance.js';
import { deviceConformance } from './device-conformance.js';
import { pushConformance } from './push-conformance.js';
import { reportsConformance } from './reports-conformance.js';
import { alertsConformance } from './alerts-conformance.js';
import { templatesConformance } from './templates-conformance.js';
import { observabilityConformance } from './observability-conformance.js';
import { failedMessagesConformance } from './failed-messages-conformance.js';
import { sessionsConformance } from './sessions-conformance.js';
import { deliveryListConformance } from './delivery-list-conformance.js';
import { auditConformance } from './audit-conformance.js';
import { tenantConformance } from './tenant-conformance.js';
import { batchConformance } from './batch-conformance.js';
import { dashboardReadsConformance } from './dashboard-reads-conformance.js';
import { intakeLimitsConformance } from './intake-limits-conformance.js';
import { eventStreamConformance } from './event-stream-conformance.js';
import { inboundConformance } from './inbound-conformance.js';
import { routesConformance } from './routes-conformance.js';
import { schedulingConformance } from './scheduling-conformance.js';

async function postgresFixture(): Promise<StoreFixture> {
  const { store, schema, drop } = await openTestPostgresStore(undefined, TEST_CONTENT_CIPHER);
  const peers: PostgresStore[] = [];
  return {
    store,
    openPeer: async () => {
      const peer = openPostgresStore({ connectionString: pgUrl(), schema, maxConnections: 4, contentCipher: TEST_CONTENT_CIPHER });
      peers.push(peer);
      return peer;
    },
    cleanup: async () => {
      for (const p of peers) await p.close();
      await store.close();
      await drop();
    },
  };
}

storeConformance('postgres', postgresFixture);
evidenceConformance('postgres', postgresFixture);
limiterConformance('postgres', postgresFixture);
webhookConformance('postgres', postgresFixture);
campaignConformance('postgres', postgresFixture);
preferencesConformance('postgres', postgresFixture);
deviceConformance('postgres', postgresFixture);
pushConformance('postgres', postgresFixture);
reportsConformance('postgres', postgresFixture);
intakeLimitsConformance('postgres', postgresFixture);
inboundConformance('postgres', postgresFixture);
routesConformance('postgres', postgresFixture);
schedulingConformance('postgres', postgresFixture);
alertsConformance('postgres', postgresFixture);
templatesConformance('postgres', postgresFixture);
observabilityConformance('postgres', postgresFixture);
failedMessagesConformance('postgres', postgresFixture);
sessionsConformance('postgres', postgresFixture);
deliveryListConformance('postgres', postgresFixture);
auditConformance('postgres', postgresFixture);
tenantConformance('postgres', postgresFixture);
batchConformance('postgres', postgresFixture);
dashboardReadsConformance('postgres', postgresFixture);
eventStreamConformance('postgres', postgresFixture);

describe('Postgres migrations', () => {
  it('apply once when several processes migrate a new schema at the same time', async () => {
    const schema = freshSchema();
    const stores = Array.from({ length: 4 }, () => openPostgresStore({ connectionString: pgUrl(), schema, maxConnections: 2 }));
    try {
      const applied = (await Promise.all(stores.map((s) => s.migrate()))).flat();
      // Every migration in the driver's folder, each applied once.
      expect(applied.sort()).toEqual(loadMigrations(fileURLToPath(new URL('../../src/store/postgres/migrations', import.meta.url))).map((m) => m.name));
      await stores[0]!.ensureTenant({ id: 't1', name: 'One' }, T0);
      await stores[1]!.createApiKey({ id: 'k1', tenantId: 't1', keyHash: 'h', label: 'live', now: T0 });
      expect(await stores[2]!.findApiKey('h')).toMatchObject({ id: 'k1', tenantId: 't1' });
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await (await openTestPostgresStore(schema)).drop();
    }
  });

  it('wakes a listener when another process commits ready work', async () => {
    const { store, schema, drop } = await openTestPostgresStore();
    const listener = openPostgresStore({ connectionString: pgUrl(), schema, maxConnections: 1 });
    const woken: string[] = [];
    const unsubscribe = await listener.listenForReady((account) => woken.push(account));
    try {
      await store.ensureTenant({ id: 't1', name: 'One' }, T0);
      await store.createNotification({
        id: 'ntf_01JDQ0000000000000000000A1',
        tenantId: 't1',
        recipient: { id: 'r1', phone: '+14155550123' },
        purpose: 'otp',
        channels: ['sms'],
        content: { text: 'hi' },
        groupKey: 'g',
        generation: 1,
        metadata: null,
        expiresAt: T0 + 60_000,
        createdAt: T0,
        deliveries: [
          { id: 'dlv_01JDQ0000000000000000000A2', channel: 'sms', providerAccount: 'acct-sms', destination: '+14155550123', idempotencyKey: 'hk_1' },
        ],
      });
      await vi.waitFor(() => expect(woken.length).toBeGreaterThan(0), { timeout: 5_000, interval: 10 });
      expect(woken).toEqual(['acct-sms']);
    } finally {
      await unsubscribe();
      await listener.close();
      await store.close();
      await drop();
    }
  });
});

describe('Postgres limiter: the lock a code does not wait for', () => {
  it("a borrowing reservation (wait: false) grants nothing at once while another transaction holds the shared row; a lane's own row is not held by it", async () => {
    const { store, schema, drop } = await openTestPostgresStore();
    const holder = new pg.Client({ connectionString: pgUrl() });
    await holder.connect();
    try {
      const shared = { row: '*', limit: { ratePerSecond: 100, burst: 10 } };
      const own = { row: 'auth', limit: { ratePerSecond: 20, burst: 2 } };
      // Creates both rows.
      await store.limiter.reservePermits({ providerAccount: 'a', now: T0, requested: 1, rows: [shared] });
      await store.limiter.reservePermits({ providerAccount: 'a', now: T0, requested: 1, rows: [own] });
      // A campaign claim's reservation in progress, holding the shared row.
      await holder.query('BEGIN');
      await holder.query(`SELECT tat_us FROM ${schema}.rate_limiters WHERE provider_account = 'a' AND lane = '*' FOR UPDATE`);
      expect(await store.limiter.reservePermits({ providerAccount: 'a', now: T0 + 1000, requested: 5, rows: [shared], wait: false })).toMatchObject({
        granted: 0,
        retryAt: null,
      });
      expect((await store.limiter.reservePermits({ providerAccount: 'a', now: T0 + 1000, requested: 5, rows: [own] })).granted).toBe(2);
      // A waiting reservation waits for the holder and then gets its permits.
      const waiting = store.limiter.reservePermits({ providerAccount: 'a', now: T0 + 1000, requested: 5, rows: [shared] });
      const first = await Promise.race([waiting.then(() => 'granted'), new Promise((r) => setTimeout(() => r('waiting'), 200))]);
      expect(first).toBe('waiting');
      await holder.query('COMMIT');
      expect((await waiting).granted).toBe(5);
    } finally {
      await holder.end();
      await store.close();
      await drop();
    }
  });
});
