/**
 * DELETE /v1/recipients/:id on both drivers: a sent notification's content and destination are
 * erased, a queued one is cancelled before it can go, the answer says what was erased, another
 * tenant's recipient of the same id is untouched, and a second request erases nothing more.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../src/tenants/api-keys.js';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';

async function del(h: Harness, url: string) {
  const r = await h.app.inject({ method: 'DELETE', url, headers: { authorization: `Bearer ${h.apiKey}` } });
  return { status: r.statusCode, json: r.json() };
}

describe.each(DRIVERS)('DELETE /v1/recipients/:id on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  it('erases a sent notification, cancels a queued one, and answers with what it erased', async () => {
    h = await createHarness({ driver });
    const sent = await h.send(otpBody());
    await h.worker.drain();
    const queued = await h.send(otpBody({ content: { text: 'Your code is 654321' } }));
    const other = await h.send(otpBody({ recipient: { id: 'user-2', phone: '+14155550124' } }));
    expect(queued.status, JSON.stringify(queued.json)).toBe(202);
    expect(other.status, JSON.stringify(other.json)).toBe(202);
    const r = await del(h, '/v1/recipients/user-1');
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toMatchObject({
      recipient_id: 'user-1',
      deliveries_cancelled: 1,
      notifications_erased: 2,
      notifications_in_flight: 0,
      destinations_masked: 2,
    });
    for (const id of [sent.json.id, queued.json.id]) {
      const n = await h.store.getNotification(h.tenantId, id as string);
      expect(n!.content).toMatchObject({ erased: { cause: 'recipient_request', kind: 'recipient' } });
    }
    const q = await h.get(`/v1/notifications/${queued.json.id}`);
    expect(q.status, JSON.stringify(q.json)).toBe(200);
    expect(q.json.deliveries[0]).toMatchObject({ state: 'terminal', terminal_reason: 'cancelled' });
    const o = await h.store.getNotification(h.tenantId, other.json.id as string);
    expect(o!.content).toMatchObject({ text: 'Your code is 123456' });
    const again = await del(h, '/v1/recipients/user-1');
    expect(again.json).toMatchObject({ deliveries_cancelled: 0, notifications_erased: 0, destinations_masked: 0 });
  });

  it('refuses to replay or resend what was erased: the marker is never sent', async () => {
    h = await createHarness({ driver });
    const queued = await h.send(otpBody());
    await del(h, '/v1/recipients/user-1');
    const n = await h.get(`/v1/notifications/${queued.json.id}`);
    const replay = await h.post(`/v1/deliveries/${n.json.deliveries[0].id}/retry`);
    expect(replay.status, JSON.stringify(replay.json)).toBe(409);
    expect(replay.json).toMatchObject({ code: 'not_replayable' });
    expect(replay.json.detail).toContain('erased');
    const resend = await h.post(`/v1/notifications/${queued.json.id}/resend`, {});
    expect(resend.status, JSON.stringify(resend.json)).toBe(409);
    expect(resend.json).toMatchObject({ code: 'not_replayable' });
    await h.worker.drain();
    expect(h.sandbox.ledger.countByKey(n.json.deliveries[0].idempotency_key)).toBe(0);
  });

  it('GET /v1/erasures lists what was erased in the tenant, newest first, by page; another tenant sees none of it', async () => {
    h = await createHarness({ driver });
    await h.send(otpBody());
    await h.worker.drain();
    await del(h, '/v1/recipients/user-1');
    await del(h, '/v1/recipients/user-2');
    const all = await h.get('/v1/erasures');
    expect(all.status, JSON.stringify(all.json)).toBe(200);
    expect(all.json.items).toHaveLength(2);
    expect(all.json.items[0]).toMatchObject({ cause: 'recipient_request', what: 'recipient', recipient_id: 'user-2', count: 0 });
    expect(all.json.items[1]).toMatchObject({
      cause: 'recipient_request',
      what: 'recipient',
      recipient_id: 'user-1',
      count: 1,
      details: { notificationsErased: 1, destinationsMasked: 1 },
      created_at: expect.any(String),
    });
    expect(JSON.stringify(all.json)).not.toContain('+1415');
    const first = await h.get('/v1/erasures?limit=1');
    expect(first.json.items.map((e: { recipient_id: string }) => e.recipient_id)).toEqual(['user-2']);
    const second = await h.get(`/v1/erasures?limit=1&cursor=${first.json.next_cursor}`);
    expect(second.json).toMatchObject({ items: [{ recipient_id: 'user-1' }], next_cursor: null });
    expect((await h.get('/v1/erasures?cursor=nope')).json.code).toBe('invalid_cursor');
    expect((await h.get('/v1/erasures?limit=0')).status).toBe(400);
    // Another tenant's key lists none of these.
    await h.store.ensureTenant({ id: 'other', name: 'Other' }, Date.now());
    const otherKey = generateApiKey();
    await h.store.createApiKey({ id: 'key_other', tenantId: 'other', keyHash: hashApiKey(otherKey), label: 'o', now: Date.now() });
    const theirs = await h.app.inject({ method: 'GET', url: '/v1/erasures', headers: { authorization: `Bearer ${otherKey}` } });
    expect(theirs.statusCode, theirs.body).toBe(200);
    expect(theirs.json()).toEqual({ items: [], next_cursor: null });
  });

  it('needs an API key', async () => {
    h = await createHarness({ driver });
    const r = await h.app.inject({ method: 'DELETE', url: '/v1/recipients/user-1' });
    expect(r.statusCode).toBe(401);
  });
});
