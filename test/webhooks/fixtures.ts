/**
 * What the webhook tests share: a fresh store of either driver, notifications with an email and
 * an SMS delivery, transitions driven through the Store (each one an outbox row), and the
 * "in order, duplicates allowed, gaps never" check a receiver's log must pass.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { SubmitOutcome } from '../../src/domain/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { openTestPostgresStore } from '../helpers/postgres.js';
import type { Driver } from '../helpers/harness.js';
import { SECOND, buildNotification, mustDecide } from '../store/fixtures.js';

export const TENANT = 't_webhooks';

/** The baseline's list, plus the ranges and schemes it names. */
export const REFUSED_URLS = [
  'http://127.0.0.1',
  'http://127.0.0.1:8080/hooks',
  'http://localhost',
  'http://localhost./x',
  'http://0.0.0.0',
  'http://[::]',
  'http://[::1]',
  'http://[::ffff:127.0.0.1]',
  'http://[0:0:0:0:0:ffff:7f00:1]',
  'http://[::127.0.0.1]',
  'http://2130706433',
  'http://0177.0.0.1',
  'http://0x7f.1',
  'http://127.1',
  'http://169.254.169.254/latest/meta-data/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://metadata',
  'http://100.100.100.200',
  'http://100.64.0.1',
  'http://[fd00::1]',
  'http://[fc00::1]',
  'http://[fe80::1]',
  'http://[64:ff9b::7f00:1]',
  'http://10.0.0.1',
  'http://172.16.0.1',
  'http://192.168.1.1',
  'http://224.0.0.1',
  'http://[ff02::1]',
  'http://255.255.255.255',
  'http://192.0.2.1',
  'http://[2001:db8::1]',
  'http://good.com@127.0.0.1',
  'http://user:pass@example.com',
  'http:\\\\127.0.0.1',
  'http://127.0.0.1\t/',
  'http://exa\nmple.com/',
  'http://127。0。0。1',
  'https://example.com/hooks#fragment',
  'file:///etc/passwd',
  'gopher://127.0.0.1:6379/_INFO',
  'dict://127.0.0.1:11211/stat',
  'ftp://example.com/',
  'javascript:alert(1)',
  '/relative/path',
  `https://example.com/${'a'.repeat(2048)}`,
];

export interface TestStore {
  store: Store;
  /** The SQLite file, for tests that reach under the contract (SQLite only). */
  sqlitePath: string | null;
  /** The Postgres schema, for tests that reach under the contract (Postgres only). */
  pgSchema: string | null;
  close(): Promise<void>;
}

/** A migrated store on a database no other test uses, with the test tenant. */
export async function openTestStore(driver: Driver, now: number): Promise<TestStore> {
  let t: TestStore;
  if (driver === 'postgres') {
    const pg = await openTestPostgresStore();
    t = { store: pg.store, sqlitePath: null, pgSchema: pg.schema, close: async () => (await pg.store.close(), await pg.drop()) };
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'herald-webhooks-'));
    const path = join(dir, 'herald.db');
    const store = openSqliteStore({ path });
    await store.migrate();
    t = { store, sqlitePath: path, pgSchema: null, close: async () => (await store.close(), rmSync(dir, { recursive: true, force: true })) };
  }
  await t.store.ensureTenant({ id: TENANT, name: 'Webhooks' }, now);
  return t;
}

/** Per notification, the events it produced so far, as `type` or `type:delivery_id`, in commit order. */
export type EventLog = Map<string, string[]>;

/** Creates a notification with an email and an SMS delivery; logs its `notification.created`. */
export async function createTwoChannelNotification(store: Store, now: number, log: EventLog): Promise<string> {
  const n = buildNotification({
    tenantId: TENANT,
    createdAt: now,
    // Long-lived: these tests move the clock by days while the deliveries are still transitioning.
    ttlMs: 20 * 24 * 3_600_000,
    deliveries: [
      { channel: 'email', providerAccount: 'acct-email' },
      { channel: 'sms', providerAccount: 'acct-sms' },
    ],
  });
  await store.createNotification(n);
  log.set(n.id, ['notification.created']);
  return n.id;
}

/** Claims every due delivery of an account and reports `outcome` for each; logs the events. */
export async function transitionAll(store: Store, account: string, now: number, outcome: SubmitOutcome, log: EventLog): Promise<number> {
  const claimed = await store.claimBatch({ providerAccount: account, workerId: 'w1', now, leaseMs: 30 * SECOND, limit: 1000 });
  const writes = claimed.map((c) => ({
    deliveryId: c.deliveryId,
    expect: { state: 'submitting' as const, leaseVersion: c.leaseVersion },
    transition: mustDecide(
      { state: 'submitting', attemptCount: c.attemptNumber, expiresAt: c.expiresAt, nextAttemptAt: null },
      { type: 'outcome', outcome },
      now,
    ),
    now,
    attempt: { number: c.attemptNumber, outcome },
  }));
  const results = await store.applyTransitions(writes);
  results.forEach((r, i) => {
    expect(r.applied).toBe(true);
    const c = claimed[i]!;
    log.get(c.notificationId)?.push(`delivery.${writes[i]!.transition.to}:${c.deliveryId}`);
  });
  return claimed.length;
}

/** The event key of a received webhook body, as EventLog spells it. */
export function eventKey(body: string): { notificationId: string; key: string } {
  const b = JSON.parse(body) as { type: string; data: { notification_id: string; delivery_id?: string } };
  return { notificationId: b.data.notification_id, key: b.data.delivery_id ? `${b.type}:${b.data.delivery_id}` : b.type };
}

/**
 * Checks a receiver's log against what was committed: for every notification, each event
 * received is either the next one expected or a repeat of one already received (duplicates
 * allowed), and every expected event arrived (no gaps).
 */
export function expectInOrder(received: Array<{ body: string }>, log: EventLog): void {
  const next = new Map<string, number>();
  for (const r of received) {
    const { notificationId, key } = eventKey(r.body);
    const expected = log.get(notificationId) ?? [];
    const i = expected.indexOf(key);
    const at = next.get(notificationId) ?? 0;
    expect(i, `${key} of ${notificationId} was never committed`).toBeGreaterThanOrEqual(0);
    if (i === at) next.set(notificationId, at + 1);
    else expect(i, `${key} of ${notificationId} arrived out of order (expected ${expected[at]})`).toBeLessThan(at);
  }
  for (const [id, expected] of log) expect(next.get(id) ?? 0, `events of ${id} missing`).toBe(expected.length);
}
