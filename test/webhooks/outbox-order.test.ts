/**
 * Outbox rows that commit out of id order are not skipped. PostgreSQL hands out sequence values before commit: a transaction holding a lower id can
 * commit after a higher id was already relayed. SQLite has one writer, so rowids follow commit
 * order, but a row with a lower id can still appear late (written with an explicit id). In both,
 * the relay reads `published_at IS NULL`, not "after the last id seen", and gets the late row.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { pgUrl } from '../helpers/postgres.js';
import { SECOND, T0, newId } from '../store/fixtures.js';
import { TENANT, createTwoChannelNotification, openTestStore, transitionAll, type EventLog, type TestStore } from './fixtures.js';

const accepted = { kind: 'accepted', providerMessageId: 'pm' } as const;

async function endpoint(store: Store): Promise<string> {
  const id = newId('whe');
  await store.webhooks.createWebhookEndpoint({
    id,
    tenantId: TENANT,
    url: 'https://hooks.example.com/',
    description: null,
    eventTypes: ['*'],
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    now: T0,
  });
  return id;
}

const insertLate = `INSERT INTO outbox (tenant_id, notification_id, delivery_id, event_type, payload_json, created_at)
                    VALUES ($1, $2, NULL, 'notification.created', '{}', $3) RETURNING id`;

let t: TestStore | null = null;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await t?.close();
  t = null;
});

describe('outbox relay on PostgreSQL', () => {
  it('relays a row whose transaction held a lower id and committed after a higher id was relayed', async () => {
    t = await openTestStore('postgres', T0);
    const store = t.store;
    const e = await endpoint(store);
    const held = new pg.Client({ connectionString: pgUrl(), options: `-c search_path=${t.pgSchema}` });
    await held.connect();
    cleanups.push(() => held.end());

    await held.query('BEGIN');
    const [late] = (await held.query(insertLate, [TENANT, 'ntf_late', T0])).rows as Array<{ id: string }>;
    const log: EventLog = new Map();
    const early = await createTwoChannelNotification(store, T0 + SECOND, log); // a higher id, committed first

    // The relay neither waits for the open transaction nor sees its row.
    expect(await store.webhooks.relayOutbox({ now: T0 + 2 * SECOND, limit: 100 })).toEqual({ published: 1, messages: 1 });
    await held.query('COMMIT');
    const ids = (await held.query('SELECT id, notification_id FROM outbox ORDER BY id')).rows as Array<{ id: string; notification_id: string }>;
    expect(ids.map((r) => r.notification_id)).toEqual(['ntf_late', early]);
    expect(Number(late!.id)).toBeLessThan(Number(ids[1]!.id)); // "id > last relayed" would have skipped it

    expect(await store.webhooks.relayOutbox({ now: T0 + 3 * SECOND, limit: 100 })).toEqual({ published: 1, messages: 1 });
    const heads = await store.webhooks.listWebhookHeads({ endpointId: e, now: T0 + 3 * SECOND, limit: 10 });
    expect(heads.map((m) => m.notificationId)).toEqual([early, 'ntf_late']);
  });

  it('publishes every row exactly once while writers and two relays race', async () => {
    t = await openTestStore('postgres', T0);
    const store = t.store;
    const peer = openPostgresStore({ connectionString: pgUrl(), schema: t.pgSchema!, maxConnections: 4 });
    cleanups.push(() => peer.close());
    const e = await endpoint(store);
    const log: EventLog = new Map();
    let writing = true;
    const relays = [store, peer].map(async (s) => {
      let published = 0;
      while (writing) {
        published += (await s.webhooks.relayOutbox({ now: T0, limit: 7 })).published;
        await new Promise((r) => setImmediate(r));
      }
      return published;
    });
    await Promise.all(
      Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; i < 15; i++) await createTwoChannelNotification(store, T0 + w * 100 + i, log);
      }),
    );
    await transitionAll(store, 'acct-email', T0 + 1_000, accepted, log);
    writing = false;
    const during = (await Promise.all(relays)).reduce((a, b) => a + b, 0);
    const after = (await store.webhooks.relayOutbox({ now: T0, limit: 1_000 })).published;
    expect(during + after).toBe(120);
    expect((await store.webhooks.getWebhookEndpoint(TENANT, e))!.pending).toBe(120);
    // Each notification's created event is ahead of its accepted event: the sendable heads are exactly the 60 created ones.
    const heads = await store.webhooks.listWebhookHeads({ endpointId: e, now: T0, limit: 1_000 });
    expect(heads).toHaveLength(60);
    expect(new Set(heads.map((m) => m.eventType))).toEqual(new Set(['notification.created']));
  });
});

describe('outbox relay on SQLite', () => {
  it('relays a row that appears with a lower id after higher ids were relayed', async () => {
    t = await openTestStore('sqlite', T0);
    const store = t.store;
    const e = await endpoint(store);
    const raw = new Database(t.sqlitePath!);
    cleanups.push(async () => {
      raw.close();
    });
    const insert = raw.prepare(
      "INSERT INTO outbox (id, tenant_id, notification_id, delivery_id, event_type, payload_json, created_at) VALUES (?, ?, ?, NULL, 'notification.created', '{}', ?)",
    );
    insert.run(10, TENANT, 'ntf_ten', T0);
    insert.run(11, TENANT, 'ntf_eleven', T0);
    expect(await store.webhooks.relayOutbox({ now: T0, limit: 100 })).toEqual({ published: 2, messages: 2 });
    insert.run(5, TENANT, 'ntf_five', T0);
    expect(await store.webhooks.relayOutbox({ now: T0, limit: 100 })).toEqual({ published: 1, messages: 1 });
    const heads = await store.webhooks.listWebhookHeads({ endpointId: e, now: T0, limit: 10 });
    expect(heads.map((m) => m.notificationId)).toEqual(['ntf_ten', 'ntf_eleven', 'ntf_five']);
  });
});
