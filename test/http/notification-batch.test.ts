/**
 * POST /v1/notifications/batch on both drivers: each item answered on its own and in order,
 * invalid items never stopping valid ones, per-item idempotency (replay, mismatch, a key repeated
 * inside one batch, keys shared with POST /v1/notifications), challenge generations inside a
 * batch, the limits, and what a failure before the commit leaves behind (nothing, keys free).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { notificationFingerprint } from '../../src/intake/fingerprint.js';
import { ACCOUNT_ACCESS_MAX_AGE_MS } from '../../src/intake/recent-account-access.js';
import { createHarness, DRIVERS, otpBody, T0, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const sms = (i: number, over: Record<string, unknown> = {}) =>
  otpBody({ recipient: { id: `user-${i}`, phone: '+14155550123' }, content: { text: `Your code is ${100000 + i}` }, ...over });

async function totalDeliveries(hh: Harness): Promise<number> {
  return Object.values(await hh.store.countByState()).reduce((a, b) => a + b, 0);
}

describe.each(DRIVERS)('POST /v1/notifications/batch (%s)', (driver) => {
  it('answers each item in order: valid ones accepted and stored, invalid ones refused with their problem, nothing of them stored', async () => {
    h = await createHarness({ driver });
    const items = [
      sms(0),
      sms(1, { recipient: { id: 'user-1', phone: '12345' } }), // intake check: not E.164
      sms(2, { unknown_field: true }), // schema: unknown field
      sms(3),
      sms(4, { channels: ['email'] }), // no recipient.email
      sms(5, { purpose: 'nope' }),
    ];
    const r = await h.post('/v1/notifications/batch', { items });
    expect(r.status).toBe(200);
    expect(r.json.results.map((x: { index: number; status: number }) => [x.index, x.status])).toEqual([
      [0, 202],
      [1, 400],
      [2, 400],
      [3, 202],
      [4, 400],
      [5, 400],
    ]);
    expect(r.json).toMatchObject({ accepted: 2, replayed: 0, refused: 4 });
    const [ok0, bad1, bad2, ok3, bad4, bad5] = r.json.results;
    expect(bad1.problem).toMatchObject({ code: 'validation_failed', errors: [{ field: 'recipient.phone' }], instance: '/v1/notifications/batch' });
    expect(bad2.problem).toMatchObject({ code: 'validation_failed', errors: [{ field: 'unknown_field', message: 'is not a known field' }] });
    expect(bad4.problem.errors).toEqual([{ field: 'recipient.email', message: 'is required for the email channel' }]);
    expect(bad5.problem.errors[0].field).toBe('purpose');
    for (const bad of [bad1, bad2, bad4, bad5]) expect(bad.notification).toBeNull();
    for (const ok of [ok0, ok3]) {
      expect(ok.problem).toBeNull();
      expect(ok.notification).toMatchObject({ id: expect.stringMatching(/^ntf_/), purpose: 'otp', deliveries: [{ channel: 'sms', state: 'ready' }] });
      // What the batch answered is what is stored: the single read endpoint finds it.
      const got = await h.get(`/v1/notifications/${ok.notification.id}`);
      expect(got.status).toBe(200);
      expect(got.json.deliveries.map((d: { id: string }) => d.id)).toEqual(ok.notification.deliveries.map((d: { id: string }) => d.id));
    }
    expect(await totalDeliveries(h)).toBe(2);
    // The workers see the batch's work.
    await h.worker.runOnce(ok0.notification.deliveries[0].provider_account);
    expect((await h.get(`/v1/notifications/${ok0.notification.id}`)).json.deliveries[0].state).toBe('accepted');
  });

  it('per-item keys: a replayed batch answers 200 with the same notifications and writes nothing; another body under a key is 422', async () => {
    h = await createHarness({ driver });
    const items = [0, 1, 2].map((i) => ({ ...sms(i), idempotency_key: `k-${i}` }));
    const first = await h.post('/v1/notifications/batch', { items });
    expect(first.json.results.map((x: { status: number }) => x.status)).toEqual([202, 202, 202]);

    h.clock.advance(60_000);
    const changed = { ...sms(9), idempotency_key: 'k-1' };
    const again = await h.post('/v1/notifications/batch', { items: [items[0], changed, items[2], { ...sms(3), idempotency_key: 'k-3' }] });
    expect(again.status).toBe(200);
    expect(again.json.results.map((x: { status: number; replayed: boolean }) => [x.status, x.replayed])).toEqual([
      [200, true],
      [422, false],
      [200, true],
      [202, false],
    ]);
    expect(again.json.results[0].notification).toEqual(first.json.results[0].notification);
    expect(again.json.results[2].notification).toEqual(first.json.results[2].notification);
    expect(again.json.results[1].problem.code).toBe('idempotency_key_mismatch');
    expect(again.json).toMatchObject({ accepted: 1, replayed: 2, refused: 1 });
    expect(await totalDeliveries(h)).toBe(4);
  });

  it('a mixed batch sent again whole: keyed good items replay, bad items are refused again, unkeyed ones are new, nothing half-written', async () => {
    h = await createHarness({ driver });
    const g1 = (key: string, generation: number) => ({
      ...sms(7, { group: { key: 'login-7', generation } }),
      idempotency_key: key,
    });
    const items = [
      { ...sms(0), idempotency_key: 'm-0' },
      { ...sms(1, { recipient: { id: 'user-1', phone: '12345' } }), idempotency_key: 'm-1' }, // not E.164
      sms(2),
      g1('m-g2', 2),
      g1('m-g1', 1), // older than the batch's generation 2: refused, and replays as refused
      { ...sms(4), idempotency_key: 'm-4' },
    ];
    const first = await h.post('/v1/notifications/batch', { items });
    expect(first.json.results.map((x: { status: number }) => x.status)).toEqual([202, 400, 202, 202, 409, 202]);
    expect(await totalDeliveries(h)).toBe(4);
    h.clock.advance(1_000);
    const again = await h.post('/v1/notifications/batch', { items });
    expect(again.json.results.map((x: { status: number; replayed: boolean }) => [x.status, x.replayed])).toEqual([
      [200, true],
      [400, false],
      [202, false],
      [200, true],
      [409, true],
      [200, true],
    ]);
    expect(again.json.results[4].problem).toEqual(first.json.results[4].problem);
    for (const i of [0, 3, 5]) expect(again.json.results[i].notification).toEqual(first.json.results[i].notification);
    // Only the unkeyed item was written again.
    expect(await totalDeliveries(h)).toBe(5);
    for (const r of [...first.json.results, ...again.json.results].filter((x: { status: number }) => x.status === 202)) {
      expect((await h.get(`/v1/notifications/${r.notification.id}`)).json.deliveries).toHaveLength(1);
    }
  });

  it('shares the key namespace with POST /v1/notifications: the same key and body replay across the two endpoints', async () => {
    h = await createHarness({ driver });
    const single = await h.send(sms(0), { 'idempotency-key': 'shared' });
    expect(single.status).toBe(202);
    const batch = await h.post('/v1/notifications/batch', { items: [{ ...sms(0), idempotency_key: 'shared' }] });
    expect(batch.json.results[0]).toMatchObject({ status: 200, replayed: true, notification: single.json });

    const fromBatch = await h.post('/v1/notifications/batch', { items: [{ ...sms(1), idempotency_key: 'from-batch' }] });
    const replay = await h.send(sms(1), { 'idempotency-key': 'from-batch' });
    expect(replay.status).toBe(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json).toEqual(fromBatch.json.results[0].notification);
    expect(await totalDeliveries(h)).toBe(2);
  });

  it('an item whose key another request holds right now is 409 idempotency_key_in_use, and nothing of it is written', async () => {
    h = await createHarness({ driver });
    const held = sms(0);
    // Another process reserved this key for the same body and has not committed yet.
    await h.store.reserveIdempotencyKey({
      tenantId: h.tenantId,
      key: 'held',
      fingerprint: notificationFingerprint(held),
      now: T0,
      lockMs: 60_000,
      retentionMs: 86_400_000,
    });
    const r = await h.post('/v1/notifications/batch', { items: [{ ...held, idempotency_key: 'held' }, sms(1)] });
    expect(r.json.results.map((x: { status: number }) => x.status)).toEqual([409, 202]);
    expect(r.json.results[0].problem.code).toBe('idempotency_key_in_use');
    expect(await totalDeliveries(h)).toBe(1);
  });

  it('a key repeated inside one batch is taken in turn: the same body replays the first item, another body is 422', async () => {
    h = await createHarness({ driver });
    const items = [{ ...sms(0), idempotency_key: 'dup' }, { ...sms(0), idempotency_key: 'dup' }, { ...sms(1), idempotency_key: 'dup' }, sms(2)];
    const r = await h.post('/v1/notifications/batch', { items });
    expect(r.json.results.map((x: { status: number }) => x.status)).toEqual([202, 200, 422, 202]);
    expect(r.json.results[1].notification).toEqual(r.json.results[0].notification);
    expect(await totalDeliveries(h)).toBe(2);
  });

  it('challenge generations inside a batch: a later generation supersedes an earlier one, a repeated or older one is refused and replays as refused', async () => {
    h = await createHarness({ driver });
    const g = (generation: number, key?: string) => ({ ...sms(0, { group: { key: 'login-ada', generation } }), ...(key ? { idempotency_key: key } : {}) });
    const r = await h.post('/v1/notifications/batch', { items: [g(1), g(2), g(2), g(1, 'old')] });
    expect(r.json.results.map((x: { status: number }) => x.status)).toEqual([202, 202, 409, 409]);
    expect(r.json.results[2].problem.code).toBe('duplicate_challenge');
    expect(r.json.results[3].problem.code).toBe('stale_generation');
    const first = await h.get(`/v1/notifications/${r.json.results[0].notification.id}`);
    expect(first.json.deliveries[0]).toMatchObject({ state: 'terminal', terminal_reason: 'superseded' });
    const second = await h.get(`/v1/notifications/${r.json.results[1].notification.id}`);
    expect(second.json.deliveries[0].state).toBe('ready');
    // The refusal under a key is a definite answer: it replays as itself.
    const again = await h.post('/v1/notifications/batch', { items: [g(1, 'old')] });
    expect(again.json.results[0]).toMatchObject({ status: 409, replayed: true, problem: r.json.results[3].problem });
  });

  it('refuses the batch itself when it is malformed, empty, over 1,000 items or carries an Idempotency-Key header', async () => {
    h = await createHarness({ driver });
    expect((await h.post('/v1/notifications/batch', { items: [] })).json.code).toBe('validation_failed');
    expect((await h.post('/v1/notifications/batch', { notifications: [sms(0)] })).status).toBe(400);
    expect((await h.post('/v1/notifications/batch', { items: [sms(0), 'x'] })).json.errors[0].field).toBe('items[1]');
    const tooMany = await h.post('/v1/notifications/batch', { items: Array.from({ length: 1001 }, (_, i) => sms(i)) });
    expect(tooMany.status).toBe(413);
    expect(tooMany.json).toMatchObject({ code: 'batch_too_large', errors: [{ field: 'items' }] });
    const huge = await h.post('/v1/notifications/batch', { items: [sms(0, { metadata: { pad: 'x'.repeat(17 * 1024 * 1024) } })] });
    expect(huge.status).toBe(413);
    expect(huge.json.code).toBe('batch_too_large');
    const header = await h.post('/v1/notifications/batch', { items: [sms(0)] }, { 'idempotency-key': 'k' });
    expect(header.status).toBe(400);
    expect(header.json.errors[0].field).toBe('Idempotency-Key');
    expect(await totalDeliveries(h)).toBe(0);
  });

  it('a failure before the commit stores no item of the batch and frees its keys, so the same batch sent again is accepted', async () => {
    let fail = true;
    h = await createHarness({
      driver,
      intake: {
        beforeCommit: async () => {
          if (fail) throw new Error('the process died before its commit');
        },
      },
    });
    const items = [0, 1, 2].map((i) => ({ ...sms(i), idempotency_key: `crash-${i}` }));
    const r = await h.post('/v1/notifications/batch', { items });
    expect(r.status).toBe(500);
    expect(await totalDeliveries(h)).toBe(0);
    fail = false;
    const retry = await h.post('/v1/notifications/batch', { items });
    expect(retry.json.results.map((x: { status: number }) => x.status)).toEqual([202, 202, 202]);
    expect(await totalDeliveries(h)).toBe(3);
  });

  it('wakes the workers once per account per batch, after the commit, and not for a batch that accepted nothing', async () => {
    const woken: string[] = [];
    h = await createHarness({ driver, intake: { wake: (account) => woken.push(account) } });
    const r = await h.post('/v1/notifications/batch', {
      items: [sms(0), sms(1), otpBody({ recipient: { id: 'e', email: 'ada@example.com' }, channels: ['email'] }), sms(2)],
    });
    expect(r.json.accepted).toBe(4);
    const smsAccount = r.json.results[0].notification.deliveries[0].provider_account;
    const emailAccount = r.json.results[2].notification.deliveries[0].provider_account;
    expect(woken.sort()).toEqual([emailAccount, smsAccount].sort());
    woken.length = 0;
    await h.post('/v1/notifications/batch', { items: [sms(3, { purpose: 'nope' })] });
    expect(woken).toEqual([]);
  });

  it("reads the tenant's account access once per batch, not once per item, and not at all when every item is refused first", async () => {
    h = await createHarness({ driver });
    const tenants = h.store.tenants;
    const read = tenants.accountAccess.bind(tenants);
    let reads = 0;
    tenants.accountAccess = (tenantId) => {
      reads++;
      return read(tenantId);
    };
    const r = await h.post('/v1/notifications/batch', { items: [0, 1, 2, 3, 4].map((i) => sms(i)) });
    expect(r.json.accepted).toBe(5);
    expect(reads).toBe(1);
    reads = 0;
    // A second later (a read is trusted for a second, src/intake/recent-account-access.ts).
    h.clock.advance(ACCOUNT_ACCESS_MAX_AGE_MS);
    await h.post('/v1/notifications/batch', { items: [sms(5, { recipient: { id: 'x', phone: '12345' } }), sms(6, { purpose: 'nope' })] });
    expect(reads).toBe(0);
    // A single POST reads it once, and a second one within the second not again.
    await h.post('/v1/notifications', sms(7));
    await h.post('/v1/notifications', sms(8));
    expect(reads).toBe(1);
  });

  it('is in the OpenAPI document with the full item schema, its limit and the per-item answer', async () => {
    h = await createHarness({ driver });
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/v1/notifications/batch'].post;
    const items = op.requestBody.content['application/json'].schema.properties.items;
    expect(items.maxItems).toBe(1000);
    expect(items.items.additionalProperties).toBe(false);
    expect(Object.keys(items.items.properties)).toEqual(expect.arrayContaining(['recipient', 'purpose', 'channels', 'content', 'idempotency_key']));
    expect(op.responses['200'].content['application/json'].schema.properties.results.items.required).toEqual(
      expect.arrayContaining(['index', 'status', 'notification', 'problem']),
    );
    expect(op.responses['413']).toBeDefined();
  });

  it('1,000 items in one batch are all accepted and stored', async () => {
    h = await createHarness({ driver });
    const items = Array.from({ length: 1000 }, (_, i) => ({ ...sms(i), ...(i % 2 === 0 ? { idempotency_key: `bulk-${i}` } : {}) }));
    const r = await h.post('/v1/notifications/batch', { items });
    expect(r.status).toBe(200);
    expect(r.json.accepted).toBe(1000);
    expect(new Set(r.json.results.map((x: { notification: { id: string } }) => x.notification.id)).size).toBe(1000);
    expect(await totalDeliveries(h)).toBe(1000);
  });
});
