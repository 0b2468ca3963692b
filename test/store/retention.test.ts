/**
 * Content at rest and the retention job on both drivers: a raw read of the database finds no
 * one-time code or body in clear; the job erases settled OTP content, other content after its
 * window, masks destinations after theirs (suppression still refuses the address), and erases
 * one recipient; all on a ManualClock.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { decide, DEFAULT_RETRY_POLICY } from '../../src/domain/index.js';
import { RetentionService } from '../../src/delivery/retention-service.js';
import { DeliveryCounters } from '../../src/metrics/counters.js';
import { ContentCipher, ContentKeyError } from '../../src/store/content-cipher.js';
import { rotateContent } from '../../src/runtime/content-keys.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { NewNotification, Store } from '../../src/store/store.js';
import { silentLogger } from '../helpers/harness.js';
import { freshSchema, pgUrl } from '../helpers/postgres.js';
import { buildNotification, HOUR, T0 } from './fixtures.js';

const DAY = 24 * HOUR;
const CODE = '482913';
const KEY = randomBytes(32);
const cipher = new ContentCipher([{ id: 'test-1', key: KEY }]);

/** The hc1 envelope as the first ContentCipher wrote it: additional data without the row. */
function sealV1(key: Buffer, keyId: string, plain: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from('herald:content:v1'));
  const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return `hc1:${keyId}:${iv.toString('base64url')}:${c.getAuthTag().toString('base64url')}:${ct.toString('base64url')}`;
}
const POLICY = { contentDays: { otp: 30, transactional: 30, conversational: 30, marketing: 30, alert: 30 }, destinationDays: 90, otpEraseAfterSettled: true };

interface Fixture {
  store: Store;
  /** Every content_json and recipient_json and destination as stored, straight from the database. */
  raw(): Promise<string[]>;
  /** Writes one notification's content_json as given, straight into the database (an attacker with write access, or an old row). */
  setRawContent(id: string, value: string): Promise<void>;
  rawContent(id: string): Promise<string>;
  cleanup(): Promise<void>;
}

async function sqlite(): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), 'herald-retention-'));
  const path = join(dir, 'herald.db');
  const store = openSqliteStore({ path, contentCipher: cipher });
  await store.migrate();
  return {
    store,
    async raw() {
      const db = new Database(path, { readonly: true });
      try {
        const rows = db
          .prepare(
            'SELECT content_json AS v FROM notifications UNION ALL SELECT recipient_json FROM notifications UNION ALL SELECT destination FROM deliveries' +
              ' UNION ALL SELECT data_json FROM audience_recipients WHERE data_json IS NOT NULL',
          )
          .all() as Array<{ v: string }>;
        return rows.map((r) => r.v);
      } finally {
        db.close();
      }
    },
    async setRawContent(id, value) {
      const db = new Database(path);
      try {
        db.prepare('UPDATE notifications SET content_json = ? WHERE id = ?').run(value, id);
      } finally {
        db.close();
      }
    },
    async rawContent(id) {
      const db = new Database(path, { readonly: true });
      try {
        return String((db.prepare('SELECT content_json FROM notifications WHERE id = ?').get(id) as { content_json: string }).content_json);
      } finally {
        db.close();
      }
    },
    async cleanup() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function postgres(): Promise<Fixture> {
  const schema = freshSchema();
  const store = openPostgresStore({ connectionString: pgUrl(), schema, maxConnections: 4, contentCipher: cipher });
  await store.migrate();
  const query = async (text: string, params: unknown[] = []): Promise<pg.QueryResult> => {
    const c = new pg.Client({ connectionString: pgUrl() });
    await c.connect();
    try {
      return await c.query(text, params);
    } finally {
      await c.end();
    }
  };
  return {
    store,
    async raw() {
      const r = await query(
        `SELECT content_json AS v FROM ${schema}.notifications UNION ALL SELECT recipient_json FROM ${schema}.notifications UNION ALL SELECT destination FROM ${schema}.deliveries` +
          ` UNION ALL SELECT data_json FROM ${schema}.audience_recipients WHERE data_json IS NOT NULL`,
      );
      return r.rows.map((x: { v: string }) => x.v);
    },
    async setRawContent(id, value) {
      await query(`UPDATE ${schema}.notifications SET content_json = $1 WHERE id = $2`, [value, id]);
    },
    async rawContent(id) {
      return String((await query(`SELECT content_json FROM ${schema}.notifications WHERE id = $1`, [id])).rows[0].content_json);
    },
    async cleanup() {
      await store.close();
      await query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

function otp(createdAt: number, recipientId = 'rcp_ada'): NewNotification {
  const n = buildNotification({ tenantId: 'acme', purpose: 'otp', createdAt, recipientId, deliveries: [{ channel: 'sms', providerAccount: 'acct-sms' }] });
  return { ...n, content: { subject: null, text: `Your code is ${CODE}`, html: null } };
}

/** Ends every pending delivery of `n` as cancelled (settled), through decide. */
async function settle(store: Store, n: NewNotification, now: number): Promise<void> {
  const view = await store.getNotification(n.tenantId, n.id);
  for (const d of view!.deliveries) {
    const t = decide(d, { type: 'cancel' }, { now, policy: DEFAULT_RETRY_POLICY, random: () => 0 });
    if (!t.ok) throw new Error(t.reason);
    await store.applyTransitions([{ deliveryId: d.id, expect: { state: d.state, leaseVersion: d.leaseVersion }, transition: t, now }]);
  }
}

describe.each([
  ['sqlite', sqlite],
  ['postgres', postgres],
] as const)('%s: content at rest and retention', (_driver, open) => {
  let f: Fixture;
  let clock: ManualClock;
  let counters: DeliveryCounters;
  let service: RetentionService;
  const setup = async () => {
    f = await open();
    await f.store.ensureTenant({ id: 'acme', name: 'Acme' }, T0);
    clock = new ManualClock(T0);
    counters = new DeliveryCounters();
    service = new RetentionService({ store: f.store, clock, logger: silentLogger, policy: POLICY, batchSize: 2, counters });
  };
  afterEach(async () => f?.cleanup());

  it('stores no one-time code or body in clear, and reads them back', async () => {
    await setup();
    const n = otp(T0);
    const mail = buildNotification({ tenantId: 'acme', createdAt: T0 });
    await f.store.createNotification(n);
    await f.store.createNotification(mail);
    // A campaign audience row's template data is sealed like content.
    await f.store.campaigns.createAudience({ id: 'aud_1', tenantId: 'acme', source: 'ndjson', now: T0 });
    await f.store.campaigns.appendAudienceRows('aud_1', [
      { position: 1, line: 1, recipient: { id: 'u1', phone: '+15550100009' }, data: { coupon: 'SECRET-COUPON-77' } },
    ]);
    const raw = (await f.raw()).join('\n');
    expect(raw).not.toContain('SECRET-COUPON-77');
    expect((await f.store.campaigns.readAudienceRows('aud_1', 0, 1))[0]!.data).toEqual({ coupon: 'SECRET-COUPON-77' });
    expect(raw).not.toContain(CODE);
    expect(raw).not.toContain(`Body of ${mail.id}`);
    expect(raw).toContain('hc2:test-1:');
    expect((await f.store.getNotification('acme', n.id))!.content).toMatchObject({ text: `Your code is ${CODE}` });
    const [claimed] = await f.store.claimBatch({ providerAccount: 'acct-sms', workerId: 'w', now: T0, leaseMs: 30_000, limit: 5 });
    expect(claimed!.content).toMatchObject({ text: `Your code is ${CODE}` });
  });

  it('refuses a ciphertext copied from another row; reads an hc1 value and re-seals it bound', async () => {
    await setup();
    const a = otp(T0, 'rcp_ada');
    const b = otp(T0, 'rcp_bob');
    await f.store.createNotification(a);
    await f.store.createNotification(b);
    const sealedA = await f.rawContent(a.id);
    // Bob's row given Ada's ciphertext: the key opens it, but the row id in the additional data does not match.
    await f.setRawContent(b.id, sealedA);
    await expect(f.store.getNotification('acme', b.id)).rejects.toThrow(ContentKeyError);
    await expect(f.store.claimBatch({ providerAccount: 'acct-sms', workerId: 'w', now: T0, leaseMs: 30_000, limit: 5 })).rejects.toThrow(ContentKeyError);
    expect((await f.store.getNotification('acme', a.id))!.content).toMatchObject({ text: `Your code is ${CODE}` });
    // An hc1 value (the envelope before rows were bound) still opens; rotation re-seals it as hc2.
    await f.setRawContent(b.id, sealV1(KEY, 'test-1', JSON.stringify({ subject: null, text: 'old form', html: null })));
    expect((await f.store.getNotification('acme', b.id))!.content).toMatchObject({ text: 'old form' });
    expect(await rotateContent(f.store)).toEqual({ scanned: 2, resealed: 1 });
    expect((await f.rawContent(b.id)).startsWith('hc2:test-1:')).toBe(true);
    expect((await f.store.getNotification('acme', b.id))!.content).toMatchObject({ text: 'old form' });
  });

  it('erases OTP content once settled and expired, not before; records and counts it', async () => {
    await setup();
    const n = otp(T0);
    await f.store.createNotification(n);
    clock.set(T0 + 2 * HOUR);
    expect((await service.runOnce()).otpContent).toBe(0); // expired but not settled (still ready)
    await settle(f.store, n, T0 + 2 * HOUR);
    expect((await service.runOnce()).otpContent).toBe(1);
    const content = (await f.store.getNotification('acme', n.id))!.content as unknown;
    expect(content).toEqual({ erased: { at: T0 + 2 * HOUR, cause: 'retention', kind: 'otp_content', removed: 'content' } });
    expect((await f.raw()).join('\n')).not.toContain(CODE);
    expect(counters.series.retentionErased.snapshot()).toContainEqual({ labels: { what: 'otp_content' }, value: 1 });
    expect((await f.store.retention.listErasures('acme', null, 10))[0]).toMatchObject({ cause: 'retention', kind: 'otp_content', tenantId: 'acme', count: 1 });
    expect((await service.runOnce()).otpContent).toBe(0);
  });

  it('keeps other content for its window, then erases it in batches', async () => {
    await setup();
    const mails = [0, 1, 2].map(() => buildNotification({ tenantId: 'acme', createdAt: T0 }));
    for (const m of mails) {
      await f.store.createNotification(m);
      await settle(f.store, m, T0 + 1);
    }
    clock.set(T0 + 29 * DAY);
    expect((await service.runOnce()).content).toBe(0);
    expect((await f.store.getNotification('acme', mails[0]!.id))!.content).toMatchObject({ text: `Body of ${mails[0]!.id}` });
    clock.set(T0 + 31 * DAY);
    expect((await service.runOnce()).content).toBe(3); // batch size 2: two batches
    for (const m of mails) expect((await f.store.getNotification('acme', m.id))!.content).toMatchObject({ erased: { kind: 'content' } });
  });

  it("erases an incoming message's number and text past the conversational window, keeps its hash and STOP; prunes old event ids and health samples", async () => {
    await setup();
    const incoming = (id: string, externalId: string, content: string) => ({
      id,
      tenantId: 'acme',
      providerAccount: 'acct-sms',
      source: 'phone' as const,
      externalId,
      deviceId: null,
      simNumber: null,
      kind: 'sms' as const,
      sender: '+15550100077',
      senderHash: 'a'.repeat(64),
      content,
      keyword: content === 'STOP' ? ('stop' as const) : null,
      receivedAt: T0,
      now: T0,
    });
    const event = (eventId: string) => ({ source: 'device:dev_1', eventId });
    await f.store.inbound.recordInbound(incoming('inb_1', 'ext-1', 'STOP'), event('evt-1'), { suppress: true, lift: false, event: null }, 10);
    await f.store.inbound.recordInbound(incoming('inb_2', 'ext-2', 'hello'), event('evt-2'), { suppress: false, lift: false, event: null }, 10);
    await f.store.inbound.recordInbound(incoming('inb_3', 'ext-3', 'later'), event('evt-3'), { suppress: false, lift: false, event: null }, 10);
    const sample = {
      deviceId: 'dev_1',
      batteryPercent: 50,
      charging: false,
      internet: true,
      transports: null,
      cellular: null,
      signal: null,
      failedLastHour: null,
      appVersion: null,
    };
    await f.store.inbound.recordHealth({ ...sample, at: T0 }, event('ping-1'));
    clock.set(T0 + 29 * DAY);
    expect(await service.runOnce()).toMatchObject({ inboundContent: 0 });
    // Two days on, the health sample is gone; a week on, the event ids: a duplicate of evt-1 would be taken again by id, and refused by its message id.
    expect(await f.store.inbound.healthHistory('dev_1', 0)).toEqual([]);
    expect(await f.store.inbound.takeEvent(event('evt-2'), clock.now())).toBe(true);
    expect((await f.store.inbound.getInbound('acme', 'inb_2'))!.content).toBe('hello');
    clock.set(T0 + 31 * DAY);
    expect(await service.runOnce()).toMatchObject({ inboundContent: 3 }); // batch size 2: two batches
    for (const id of ['inb_1', 'inb_2', 'inb_3']) {
      expect(await f.store.inbound.getInbound('acme', id)).toMatchObject({
        sender: null,
        content: null,
        senderHash: 'a'.repeat(64),
        contentErasedAt: T0 + 31 * DAY,
      });
    }
    expect((await f.store.inbound.getInbound('acme', 'inb_1'))!.keyword).toBe('stop');
    // The STOP is the record that honours it: retention keeps it.
    expect(await f.store.inbound.keywordSuppressionsOf('acme', ['+15550100077'])).toHaveLength(1);
    expect((await service.runOnce()).inboundContent).toBe(0);
  });

  it('masks destinations after 90 days with a keyed hash, and suppression still refuses the address', async () => {
    await setup();
    const old = buildNotification({ tenantId: 'acme', createdAt: T0 });
    await f.store.createNotification(old);
    await settle(f.store, old, T0 + 1);
    await f.store.preferences.addSuppression({ tenantId: 'acme', channel: 'email', destination: 'ada@example.test', now: T0 + 2 });
    clock.set(T0 + 89 * DAY);
    expect((await service.runOnce()).destinations).toBe(0);
    clock.set(T0 + 91 * DAY);
    expect((await service.runOnce()).destinations).toBe(1);
    const raw = (await f.raw()).join('\n');
    expect(raw).not.toContain('ada@example.test');
    expect(raw).not.toContain('+15550100001');
    expect(raw).toContain('masked');
    const fresh = buildNotification({ tenantId: 'acme', createdAt: T0 + 91 * DAY });
    await f.store.createNotification(fresh);
    const [check] = await f.store.preferences.sendabilityOf([fresh.deliveries[0]!.id]);
    expect(check!.verdict).toBe('suppressed');
    expect(await service.destinationHash('email', 'ada@example.test')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('erases one recipient: pending deliveries cancelled, content, destinations, preferences; others untouched', async () => {
    await setup();
    const mine = otp(T0, 'rcp_erase');
    const other = otp(T0, 'rcp_keep');
    await f.store.createNotification(mine);
    await f.store.createNotification(other);
    await f.store.preferences.addOptOut({ tenantId: 'acme', recipientId: 'rcp_erase', optOut: { channel: null, purpose: null }, source: 'api', now: T0 });
    clock.set(T0 + 10);
    const out = await service.eraseRecipient('acme', 'rcp_erase');
    expect(out).toMatchObject({ deliveriesCancelled: 1, notificationsErased: 1, destinationsMasked: 1, preferencesDeleted: 1, notificationsInFlight: 0 });
    const gone = await f.store.getNotification('acme', mine.id);
    expect(gone!.content).toMatchObject({ erased: { cause: 'recipient_request' } });
    expect(gone!.deliveries[0]).toMatchObject({ state: 'terminal', terminalReason: 'cancelled' });
    const mineRaw = (await f.raw()).filter((v) => v.includes('rcp_erase'));
    expect(mineRaw.length).toBe(1);
    expect(mineRaw[0]).not.toContain('+15550100001');
    expect((await f.store.getNotification('acme', other.id))!.content).toMatchObject({ text: `Your code is ${CODE}` });
    expect(await f.store.preferences.listOptOuts('acme', 'rcp_erase')).toEqual([]);
    expect((await f.store.retention.listErasures('acme', null, 5))[0]).toMatchObject({
      cause: 'recipient_request',
      kind: 'recipient',
      recipientId: 'rcp_erase',
    });
  });

  it('records a retention batch once per tenant it touched; each tenant lists only its own erasures, newest first, by page', async () => {
    await setup();
    await f.store.ensureTenant({ id: 'other', name: 'Other' }, T0);
    const acme = [0, 1].map(() => buildNotification({ tenantId: 'acme', createdAt: T0 }));
    const other = buildNotification({ tenantId: 'other', createdAt: T0 });
    for (const n of [...acme, other]) {
      await f.store.createNotification(n);
      await settle(f.store, n, T0);
    }
    clock.set(T0 + 31 * DAY);
    // Batch size 2: one batch erases both tenants' content, so the tenants' records split it.
    expect((await service.runOnce()).content).toBe(3);
    const mine = await f.store.retention.listErasures('acme', null, 10);
    const theirs = await f.store.retention.listErasures('other', null, 10);
    expect(mine.filter((e) => e.kind === 'content').reduce((a, e) => a + e.count, 0)).toBe(2);
    expect(theirs).toEqual([
      {
        id: expect.any(Number),
        cause: 'retention',
        kind: 'content',
        tenantId: 'other',
        recipientId: null,
        count: 1,
        details: { purpose: 'transactional' },
        createdAt: T0 + 31 * DAY,
      },
    ]);
    expect(mine.every((e) => e.tenantId === 'acme')).toBe(true);
    await service.eraseRecipient('acme', acme[0]!.recipient.id);
    const all = await f.store.retention.listErasures('acme', null, 10);
    expect(all[0]).toMatchObject({ cause: 'recipient_request', kind: 'recipient' });
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((a, b) => b - a));
    const page = await f.store.retention.listErasures('acme', all[0]!.id, 10);
    expect(page).toEqual(all.slice(1));
  });
});
