/**
 * Runs the Store conformance suite against the SQLite driver, one temp file per test (a
 * file, not `:memory:`, so a peer instance can open it as a second process would), plus the
 * SQLite-only checks the suite cannot express: migrating a brand-new file from two instances.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
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

/** A fresh database file in its own temp directory; `cleanup` closes every instance and removes it. */
async function sqliteFixture(): Promise<StoreFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'herald-store-'));
  const path = join(dir, 'herald.db');
  const opened: SqliteStore[] = [];
  const open = () => {
    const s = openSqliteStore({ path, contentCipher: TEST_CONTENT_CIPHER });
    opened.push(s);
    return s;
  };
  const store = open();
  await store.migrate();
  return {
    store,
    openPeer: async () => open(),
    cleanup: async () => {
      for (const s of opened) await s.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

storeConformance('sqlite', sqliteFixture);
evidenceConformance('sqlite', sqliteFixture);
limiterConformance('sqlite', sqliteFixture);
webhookConformance('sqlite', sqliteFixture);
campaignConformance('sqlite', sqliteFixture);
preferencesConformance('sqlite', sqliteFixture);
deviceConformance('sqlite', sqliteFixture);
pushConformance('sqlite', sqliteFixture);
reportsConformance('sqlite', sqliteFixture);
intakeLimitsConformance('sqlite', sqliteFixture);
inboundConformance('sqlite', sqliteFixture);
routesConformance('sqlite', sqliteFixture);
schedulingConformance('sqlite', sqliteFixture);
alertsConformance('sqlite', sqliteFixture);
templatesConformance('sqlite', sqliteFixture);
observabilityConformance('sqlite', sqliteFixture);
failedMessagesConformance('sqlite', sqliteFixture);
sessionsConformance('sqlite', sqliteFixture);
deliveryListConformance('sqlite', sqliteFixture);
auditConformance('sqlite', sqliteFixture);
tenantConformance('sqlite', sqliteFixture);
batchConformance('sqlite', sqliteFixture);
dashboardReadsConformance('sqlite', sqliteFixture);
eventStreamConformance('sqlite', sqliteFixture);

describe('SQLite migrations on a new file', () => {
  it('apply once when two instances migrate the same new file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'herald-migrate-'));
    const path = join(dir, 'herald.db');
    const a = openSqliteStore({ path });
    const b = openSqliteStore({ path });
    try {
      const [fromA, fromB] = await Promise.all([a.migrate(), b.migrate()]);
      // Every migration in the driver's folder, each applied once (by whichever instance got there first).
      expect([...fromA, ...fromB].sort()).toEqual(
        loadMigrations(fileURLToPath(new URL('../../src/store/sqlite/migrations', import.meta.url))).map((m) => m.name),
      );
      expect(await a.migrate()).toEqual([]);
      expect(await b.migrate()).toEqual([]);
      await a.ensureTenant({ id: 't1', name: 'One' }, T0);
      await b.createApiKey({ id: 'k1', tenantId: 't1', keyHash: 'h', label: 'live', now: T0 });
      expect(await a.findApiKey('h')).toMatchObject({ id: 'k1', tenantId: 't1' });
    } finally {
      await a.close();
      await b.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
