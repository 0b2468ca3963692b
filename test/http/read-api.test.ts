/**
 * The read side of the API: a notification with its deliveries and attempt timeline after a
 * real submission to the sandbox, the filtered and cursor-paginated delivery list, and one
 * delivery, each with its 400/404 problem documents.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, otpBody, T0, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const NTF = /^ntf_[0-9A-HJKMNP-TV-Z]{26}$/;
const DLV = /^dlv_[0-9A-HJKMNP-TV-Z]{26}$/;

function expectNotFound(r: { status: number; json: any }): void {
  expect(r.status).toBe(404);
  expect(r.json).toMatchObject({ status: 404, code: 'not_found', title: 'No such resource' });
  expect(typeof r.json.detail).toBe('string');
}

function expectBadRequest(r: { status: number; json: any }, code: string, field?: string): void {
  expect(r.status).toBe(400);
  expect(r.json).toMatchObject({ status: 400, code });
  if (field !== undefined) expect(r.json.errors.map((e: { field: string }) => e.field)).toContain(field);
}

async function create(over: Record<string, unknown> = {}): Promise<any> {
  const r = await h.send(otpBody(over));
  expect(r.status, JSON.stringify(r.json)).toBe(202);
  return r.json;
}

describe('POST /v1/notifications answer', () => {
  it('is 202 with ids, expiry and one ready delivery per channel, in request order', async () => {
    const r = await create({ channels: ['email', 'sms'] });
    expect(r).toEqual({
      id: expect.stringMatching(NTF),
      purpose: 'otp',
      created_at: new Date(T0).toISOString(),
      expires_at: new Date(T0 + 300_000).toISOString(),
      deliveries: [
        { id: expect.stringMatching(DLV), channel: 'email', state: 'ready', provider_account: 'sandbox-email' },
        { id: expect.stringMatching(DLV), channel: 'sms', state: 'ready', provider_account: 'sandbox-sms' },
      ],
    });
  });
});

describe('GET /v1/notifications/:id', () => {
  it('returns the contract shape, snake_case, before any attempt', async () => {
    const created = await create();
    const r = await h.get(`/v1/notifications/${created.id}`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      id: created.id,
      purpose: 'otp',
      expires_at: created.expires_at,
      deliveries: [
        {
          id: created.deliveries[0].id,
          channel: 'sms',
          state: 'ready',
          terminal_reason: null,
          downstream_status: null,
          provider_account: 'sandbox-sms',
          provider_message_id: null,
          next_attempt_at: expect.stringMatching(ISO),
          attempts: [],
        },
      ],
    });
    // Nothing camelCase leaks out of the store's view types.
    const keys = JSON.stringify(r.json).match(/"[A-Za-z_]+":/g) ?? [];
    for (const k of keys) expect(k).not.toMatch(/[A-Z]/);
  });

  it('after the worker drains: accepted, one attempt with outcome accepted, matching the sandbox ledger', async () => {
    const created = await create();
    const result = await h.worker.drain();
    expect(result.claimed).toBe(1);

    const r = await h.get(`/v1/notifications/${created.id}`);
    expect(r.status).toBe(200);
    const [d] = r.json.deliveries;
    expect(d).toMatchObject({
      id: created.deliveries[0].id,
      channel: 'sms',
      state: 'accepted',
      terminal_reason: null,
      provider_account: 'sandbox-sms',
      provider_message_id: expect.any(String),
      next_attempt_at: null,
    });
    expect(d.attempts).toHaveLength(1);
    const [a] = d.attempts;
    expect(a).toMatchObject({
      number: 1,
      started_at: expect.stringMatching(ISO),
      finished_at: expect.stringMatching(ISO),
      outcome: 'accepted',
      provider_message_id: d.provider_message_id,
      error: null,
    });

    // The sandbox's ground truth: exactly one submission, under the delivery's idempotency key.
    const delivery = await h.get(`/v1/deliveries/${d.id}`);
    const key: string = delivery.json.idempotency_key;
    expect(key.length).toBeGreaterThan(0);
    const entries = h.sandbox.ledger.entries({ idempotency_key: key });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ channel: 'sms', destination: '+14155550123', provider_message_id: d.provider_message_id });
    expect(h.sandbox.ledger.entries()).toHaveLength(1);
  });

  it('unknown, malformed and wrong-kind ids are 404 problem documents', async () => {
    const created = await create();
    for (const id of ['ntf_01JD0000000000000000000000', 'abc', 'ntf_', 'ntf_01jd0000000000000000000000', created.deliveries[0].id, `${created.id}x`]) {
      expectNotFound(await h.get(`/v1/notifications/${encodeURIComponent(id)}`));
    }
  });
});

describe('GET /v1/deliveries/:id', () => {
  it('returns one delivery with its notification, key and times', async () => {
    const created = await create({ channels: ['email'], purpose: 'transactional' });
    const r = await h.get(`/v1/deliveries/${created.deliveries[0].id}`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      id: created.deliveries[0].id,
      notification_id: created.id,
      channel: 'email',
      purpose: 'transactional',
      state: 'ready',
      terminal_reason: null,
      downstream_status: null,
      provider_account: 'sandbox-email',
      provider_message_id: null,
      idempotency_key: expect.any(String),
      attempt_count: 0,
      expires_at: created.expires_at,
      created_at: new Date(T0).toISOString(),
    });
  });

  it('unknown and malformed ids are 404', async () => {
    const created = await create();
    for (const id of ['dlv_01JD0000000000000000000000', 'nope', created.id]) {
      expectNotFound(await h.get(`/v1/deliveries/${id}`));
    }
  });
});

describe('GET /v1/deliveries', () => {
  it('filters by state, channel and purpose', async () => {
    const otp = await create({ channels: ['sms', 'email'] });
    await h.worker.drain(); // both of otp's deliveries are now accepted
    const tx = await create({ channels: ['email'], purpose: 'transactional' });
    const mkt = await create({ channels: ['push'], purpose: 'marketing', recipient: { id: 'user-2', push_token: 'tok-2' } });

    const ids = async (q: string): Promise<string[]> => {
      const r = await h.get(`/v1/deliveries${q}`);
      expect(r.status, q).toBe(200);
      return r.json.items.map((d: { id: string }) => d.id).sort();
    };
    const dl = (n: any, i = 0): string => n.deliveries[i].id;

    expect(await ids('')).toEqual([dl(otp), dl(otp, 1), dl(tx), dl(mkt)].sort());
    expect(await ids('?state=accepted')).toEqual([dl(otp), dl(otp, 1)].sort());
    expect(await ids('?state=ready')).toEqual([dl(tx), dl(mkt)].sort());
    expect(await ids('?state=terminal')).toEqual([]);
    expect(await ids('?channel=email')).toEqual([dl(otp, 1), dl(tx)].sort());
    expect(await ids('?purpose=marketing')).toEqual([dl(mkt)]);
    expect(await ids('?channel=email&state=ready')).toEqual([dl(tx)]);
    expect(await ids('?channel=email&purpose=otp&state=accepted')).toEqual([dl(otp, 1)]);

    const item = (await h.get(`/v1/deliveries?purpose=marketing`)).json.items[0];
    expect(item).toMatchObject({ id: dl(mkt), notification_id: mkt.id, channel: 'push', purpose: 'marketing', state: 'ready' });
  });

  it('limit walks every item exactly once, newest first, and the last page has no cursor', async () => {
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      created.push((await create({ recipient: { id: `user-${i}`, phone: '+14155550123' } })).deliveries[0].id);
      h.clock.advance(1_000);
    }
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const q: string = cursor === null ? '?limit=3' : `?limit=3&cursor=${encodeURIComponent(cursor)}`;
      const r = await h.get(`/v1/deliveries${q}`);
      expect(r.status).toBe(200);
      sizes.push(r.json.items.length);
      seen.push(...r.json.items.map((d: { id: string }) => d.id));
      cursor = r.json.next_cursor;
      if (cursor === null) break;
      expect(typeof cursor).toBe('string');
    }
    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual([...created].reverse());
    expect(new Set(seen).size).toBe(7);
  });

  it('an exact multiple of the limit ends with next_cursor null, not an empty page promise', async () => {
    for (let i = 0; i < 4; i++) await create({ recipient: { id: `user-${i}`, phone: '+14155550123' } });
    const first = await h.get('/v1/deliveries?limit=2');
    expect(first.json.items).toHaveLength(2);
    const second = await h.get(`/v1/deliveries?limit=2&cursor=${first.json.next_cursor}`);
    expect(second.json.items).toHaveLength(2);
    expect(second.json.next_cursor).toBeNull();
  });

  it('pagination and filters combine', async () => {
    for (let i = 0; i < 5; i++) {
      await create({ recipient: { id: `user-${i}`, phone: '+14155550123', email: 'ada@example.com' }, channels: ['sms', 'email'] });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: { status: number; json: any } = await h.get(`/v1/deliveries?channel=email&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      for (const d of r.json.items) expect(d.channel).toBe('email');
      seen.push(...r.json.items.map((d: { id: string }) => d.id));
      cursor = r.json.next_cursor;
    } while (cursor !== null);
    expect(new Set(seen).size).toBe(5);
  });

  it('defaults to 50 per page and accepts limit=200', async () => {
    for (let i = 0; i < 3; i++) await create({ recipient: { id: `user-${i}`, phone: '+14155550123' } });
    expect((await h.get('/v1/deliveries')).json.items).toHaveLength(3);
    expect((await h.get('/v1/deliveries?limit=200')).json).toMatchObject({ next_cursor: null });
    expect((await h.get('/v1/deliveries?limit=1')).json.items).toHaveLength(1);
  });

  it('a cursor this API did not issue is 400 invalid_cursor', async () => {
    await create();
    const fromNotification = Buffer.from('ntf_01JD0000000000000000000000').toString('base64url');
    for (const c of ['garbage', 'dlv_01JD0000000000000000000000', fromNotification, 'x'.repeat(200)]) {
      expectBadRequest(await h.get(`/v1/deliveries?cursor=${c}`), 'invalid_cursor', 'query.cursor');
    }
    // A NUL character is refused before any parameter is read (src/http/nul-guard.ts).
    expectBadRequest(await h.get('/v1/deliveries?cursor=%00'), 'validation_failed', 'query.cursor');
    // Longer than the schema allows: refused before decoding.
    expectBadRequest(await h.get(`/v1/deliveries?cursor=${'x'.repeat(201)}`), 'validation_failed', 'query.cursor');
  });

  it.each(['0', '201', 'abc', '-1', '1.5', '', '050', '1e2'])('limit=%s is 400 validation_failed', async (limit) => {
    expectBadRequest(await h.get(`/v1/deliveries?limit=${limit}`), 'validation_failed', 'query.limit');
  });

  it('unknown query parameters and unknown filter values are 400', async () => {
    expectBadRequest(await h.get('/v1/deliveries?foo=bar'), 'validation_failed', 'query.foo');
    expectBadRequest(await h.get('/v1/deliveries?status=ready'), 'validation_failed', 'query.status');
    expectBadRequest(await h.get('/v1/deliveries?state=delivered'), 'validation_failed', 'query.state');
    expectBadRequest(await h.get('/v1/deliveries?channel=fax'), 'validation_failed', 'query.channel');
    expectBadRequest(await h.get('/v1/deliveries?purpose=spam'), 'validation_failed', 'query.purpose');
  });

  it('a repeated parameter is refused, not silently narrowed', async () => {
    const r = await h.get('/v1/deliveries?state=ready&state=accepted');
    expectBadRequest(r, 'validation_failed', 'query.state');
  });
});
