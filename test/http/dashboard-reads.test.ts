/**
 * The dashboard's reads through the API, on both drivers, with the sandbox as the provider:
 * a delivery's evidence on GET /v1/deliveries/:id (real signed callbacks with their times and
 * effect, the same for a masked role; the reconciler's look-ups with what they found and led to), GET /v1/campaigns
 * (newest first, cursor, status filter, progress), and each provider account's recent errors
 * by class on GET /v1/provider-accounts/recent-errors over 15 min / 1 h / 24 h.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/http/passwords.js';
import { createHarness, DRIVERS, otpBody, T0, type Harness, type HarnessOptions } from '../helpers/harness.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

const emailBody = (i: number) => ({
  recipient: { id: `user-${i}`, email: `user${i}@example.com` },
  purpose: 'transactional',
  channels: ['email'],
  content: { subject: 'Receipt', text: `Receipt ${i}` },
  ttl_seconds: 3600,
});

describe.each(DRIVERS)('dashboard reads on %s', (driver) => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });
  const start = async (opts: Omit<HarnessOptions, 'driver'> = {}) => {
    h = await createHarness({ driver, ...opts });
  };
  const deliveryIdOf = async (notificationId: string): Promise<string> => (await h.get(`/v1/notifications/${notificationId}`)).json.deliveries[0].id;

  it("shows a delivery's callbacks with their times and effect, ordered by time, without its destination", async () => {
    await start({ callbacks: true });
    const sent = await h.send(emailBody(1));
    await h.worker.drain();
    await h.sandbox.idle();
    await h.evidence.runOnce();
    const id = await deliveryIdOf(sent.json.id);
    const r = await h.get(`/v1/deliveries/${id}`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id, state: 'accepted', downstream_status: 'delivered' });
    const ev = r.json.evidence as Array<Record<string, unknown>>;
    expect(ev.map((e) => [e.kind, e.status, e.effect])).toEqual([
      ['callback', 'sent', 'applied'],
      ['callback', 'delivered', 'applied'],
    ]);
    for (const e of ev) {
      expect(e).toMatchObject({ provider_account: 'sandbox-email', provider_message_id: r.json.provider_message_id, at: e.received_at });
      expect(typeof e.event_id).toBe('string');
      expect(Date.parse(String(e.applied_at))).toBeGreaterThanOrEqual(Date.parse(String(e.received_at)));
    }
    expect(JSON.stringify(ev)).not.toContain('user1@example.com');
    // The attempt timeline is still there beside it.
    expect(r.json.attempts).toHaveLength(1);

    // A viewer (a masked role) sees the same evidence: none of it is a destination.
    await h.store.sessions.createUser({
      id: 'usr_v',
      tenantId: h.tenantId,
      username: 'vic',
      passwordHash: await hashPassword('a viewer password'),
      role: 'viewer',
      now: T0,
    });
    const s = await h.app.inject({ method: 'POST', url: '/v1/session', payload: { username: 'vic', password: 'a viewer password' } });
    const cookie = String(s.headers['set-cookie']).split(';')[0]!;
    const viewed = await h.app.inject({ method: 'GET', url: `/v1/deliveries/${id}`, headers: { cookie } });
    expect(viewed.statusCode).toBe(200);
    expect(viewed.json().evidence).toEqual(ev);
  });

  it('shows each look-up of an unknown delivery: when, what it found and what that led to', async () => {
    await start();
    h.sandbox.faults.set({ mode: 'timeout_before_accept', count: 1 });
    const sent = await h.send(otpBody());
    await h.worker.drain();
    const id = await deliveryIdOf(sent.json.id);
    const first = h.clock.now();
    // Inside the grace period "not found" only means "ask again", then it counts.
    expect(await h.reconciler.runOnce()).toMatchObject({ deferred: 1 });
    h.clock.advance(30 * SECOND);
    expect(await h.reconciler.runOnce()).toMatchObject({ notFoundByLookup: 1 });
    const r = await h.get(`/v1/deliveries/${id}`);
    expect(r.json.state).toBe('retryable');
    expect(r.json.evidence).toEqual([
      {
        kind: 'lookup',
        at: new Date(first).toISOString(),
        attempt: 1,
        result: 'not_found',
        led_to: 'asked_later',
        provider_message_id: null,
        error_code: null,
      },
      {
        kind: 'lookup',
        at: new Date(first + 30 * SECOND).toISOString(),
        attempt: 1,
        result: 'not_found',
        led_to: 'retryable',
        provider_message_id: null,
        error_code: null,
      },
    ]);
    expect(JSON.stringify(r.json.evidence)).not.toContain('+14155550123');
  });

  it('lists campaigns newest first with status and progress, pages by cursor, filters by status, refuses a foreign cursor', async () => {
    await start();
    const create = async (name: string, start?: 'if_feasible') =>
      h.post('/v1/campaigns', {
        name,
        channel: 'email',
        purpose: 'marketing',
        content: { subject: 'Sale', text: 'Everything must go' },
        deadline_at: new Date(h.clock.now() + 60 * MINUTE).toISOString(),
        audience: { recipients: [1, 2, 3].map((i) => ({ id: `${name}-${i}`, email: `${name}${i}@example.com` })) },
        ...(start ? { start } : {}),
      });
    const a = await create('spring');
    expect(a.status).toBe(201);
    h.clock.advance(SECOND);
    const b = await create('summer', 'if_feasible');
    expect(b.json.status).toBe('running');
    h.clock.advance(SECOND);
    const c = await create('autumn');
    await h.campaigns.runOnce();

    const page1 = await h.get('/v1/campaigns?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.json.items.map((x: { name: string }) => x.name)).toEqual(['autumn', 'summer']);
    const summer = page1.json.items[1];
    expect(summer).toMatchObject({ id: b.json.id, status: 'running', deadline_at: b.json.deadline_at, plan: { feasible: true } });
    expect(summer.progress).toMatchObject({ audience_size: 3, fanned_out: 3, queued: 3, not_fanned_out: 0 });
    expect(summer.progress.projected_finish.finish_at).not.toBeNull();
    // The list shows what the campaign itself shows.
    const one = await h.get(`/v1/campaigns/${b.json.id}`);
    expect(summer.progress).toEqual(one.json.progress);
    const page2 = await h.get(`/v1/campaigns?limit=2&cursor=${page1.json.next_cursor}`);
    expect(page2.json.items.map((x: { id: string }) => x.id)).toEqual([a.json.id]);
    expect(page2.json.next_cursor).toBeNull();
    expect((await h.get('/v1/campaigns?status=draft')).json.items.map((x: { id: string }) => x.id)).toEqual([c.json.id, a.json.id]);
    expect((await h.get('/v1/campaigns?status=completed')).json.items).toEqual([]);

    // A delivery list's cursor is not a campaign cursor; nor is garbage.
    const deliveries = await h.get('/v1/deliveries?limit=1');
    for (const cursor of [deliveries.json.next_cursor as string, 'bm90LWEtY3Vyc29y']) {
      const bad = await h.get(`/v1/campaigns?cursor=${cursor}`);
      expect(bad.status).toBe(400);
      expect(bad.json.code).toBe('invalid_cursor');
    }
    expect((await h.get('/v1/campaigns?status=sleeping')).json.code).toBe('validation_failed');
  });

  it('counts recent errors by class per provider account over 15 min, 1 h and 24 h', async () => {
    await start();
    // One SMS call answered 500 (retryable), one refused for good (rejected); e-mail stays clean.
    h.sandbox.faults.set({ mode: 'server_error', count: 1 });
    await h.send(otpBody({ recipient: { id: 'u-a', phone: '+14155550101' } }));
    await h.worker.drain();
    h.sandbox.faults.set({ mode: 'reject_permanent', count: 1 });
    await h.send(otpBody({ recipient: { id: 'u-b', phone: '+14155550102' } }));
    await h.worker.drain();
    await h.send(emailBody(3));
    await h.worker.drain();

    const errorsOf = async (id: string) => {
      const r = await h.get('/v1/provider-accounts/recent-errors');
      expect(r.status).toBe(200);
      expect(r.json.items.map((a: { provider_account: string }) => a.provider_account).sort()).toEqual(['sandbox-email', 'sandbox-push', 'sandbox-sms']);
      const { provider_account: _, ...counts } = r.json.items.find((a: { provider_account: string }) => a.provider_account === id);
      return counts;
    };
    expect(await errorsOf('sandbox-sms')).toEqual({
      attempts: [
        { class: 'permanent', last_15m: 1, last_1h: 1, last_24h: 1 },
        { class: 'retryable', last_15m: 1, last_1h: 1, last_24h: 1 },
      ],
      terminal: [{ reason: 'rejected', last_15m: 1, last_1h: 1, last_24h: 1 }],
    });
    expect(await errorsOf('sandbox-email')).toEqual({ attempts: [], terminal: [] });
    // 20 minutes on, they have left the 15-minute window only; after a day, every window.
    h.clock.advance(20 * MINUTE);
    expect((await errorsOf('sandbox-sms')).terminal).toEqual([{ reason: 'rejected', last_15m: 0, last_1h: 1, last_24h: 1 }]);
    h.clock.set(T0 + 25 * 60 * MINUTE);
    expect(await errorsOf('sandbox-sms')).toEqual({ attempts: [], terminal: [] });
  });
});
