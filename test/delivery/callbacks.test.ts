/**
 * Provider callbacks end to end: the sandbox signs and posts real HTTP callbacks to a
 * listening Herald, which verifies them over the raw bytes, records each event once and merges
 * it into the delivery's downstream status on the lattice. Also: forged and stale signatures
 * change nothing, a callback can arrive before the send call returns, and a callback settles
 * an `unknown` before any timer does.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mergeDownstream, type DownstreamStatus } from '../../src/domain/index.js';
import { signWebhook } from '../../src/signing/standard-webhooks.js';
import { createHarness, DRIVERS, otpBody, type Harness, type HarnessOptions } from '../helpers/harness.js';

const emailBody = (i: number) => ({
  recipient: { id: `user-${i}`, email: `user${i}@example.com` },
  purpose: 'transactional',
  channels: ['email'],
  content: { subject: 'Receipt', text: `Receipt ${i}` },
  ttl_seconds: 3600,
});

describe.each(DRIVERS)('provider callbacks on %s', (driver) => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });
  const start = async (opts: Omit<HarnessOptions, 'driver' | 'callbacks'> = {}) => {
    h = await createHarness({ driver, callbacks: true, ...opts });
  };
  const deliveryOf = async (notificationId: string) => (await h.get(`/v1/notifications/${notificationId}`)).json.deliveries[0];

  it('merges sent and delivered into the downstream status', async () => {
    await start();
    const sent = await h.send(emailBody(1));
    await h.worker.drain();
    await h.sandbox.idle();
    const pass = await h.evidence.runOnce();
    expect(pass.events).toBe(2);
    const d = await deliveryOf(sent.json.id);
    expect(d).toMatchObject({ state: 'accepted', downstream_status: 'delivered' });
    expect(h.sandbox.callbacks.counters().emitted).toBeGreaterThanOrEqual(2);
  });

  it('a callback that arrives before the send returns is parked, then merged once the call is recorded', async () => {
    await start();
    // The sandbox posts the `sent` callback, and waits for Herald's answer, before it answers
    // the send; without the reference the event names only a provider message id that Herald
    // cannot know until the send's response arrives.
    h.sandbox.behaviour.set({ emit_before_response: true, include_reference: false });
    const sent = await h.send(emailBody(2));
    await h.worker.drain();
    await h.sandbox.idle();
    const d0 = await deliveryOf(sent.json.id);
    expect(d0).toMatchObject({ state: 'accepted', downstream_status: 'accepted' });
    const parked = (await h.store.evidence.listPendingEvidence(10)).filter((p) => p.delivery.deliveryId === d0.id);
    expect(parked.map((p) => p.status).sort()).toEqual(['delivered', 'sent']);
    expect(parked.every((p) => p.reference === null && p.providerMessageId === d0.provider_message_id)).toBe(true);
    await h.evidence.runOnce();
    expect(await deliveryOf(sent.json.id)).toMatchObject({ state: 'accepted', downstream_status: 'delivered' });
  });

  it('evidence beats the timer: a callback settles a lost-response unknown as accepted', async () => {
    await start({ account: (a) => ({ ...a, capabilities: { lookup: false } }) });
    h.sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    const sent = await h.send(emailBody(4));
    await h.worker.drain();
    expect((await deliveryOf(sent.json.id)).state).toBe('unknown');
    await h.sandbox.idle();
    await h.evidence.runOnce();
    const d = await deliveryOf(sent.json.id);
    expect(d).toMatchObject({ state: 'accepted', downstream_status: 'delivered' });
    expect(d.provider_message_id).not.toBeNull();
    expect(d.attempts[0]).toMatchObject({ outcome: 'unknown', resolution: 'callback' });
    // The reconciler finds nothing left to do; the provider has exactly one submission.
    expect(await h.reconciler.runOnce()).toMatchObject({ resent: 0, unresolved: 0, deferred: 0 });
    expect(h.sandbox.ledger.countByKey(d.idempotency_key)).toBe(1);
  });

  it('1,000+ callbacks with 30% duplicates and 30% reordered leave exactly the lattice join on every delivery', async () => {
    await start({ seed: 7 });
    h.sandbox.behaviour.set({
      duplicate_probability: 0.3,
      reorder_probability: 0.3,
      bounce_probability: 0.15,
      complaint_probability: 0.1,
      delay_ms: { min: 0, max: 20 },
    });
    const N = 420;
    const ids: string[] = [];
    for (let i = 0; i < N; i++) ids.push((await h.send(emailBody(100 + i))).json.id);
    // Apply while callbacks are still arriving, so merges interleave with late and repeated events.
    let drained = false;
    const draining = h.worker.drain().then(() => (drained = true));
    let passes = 0;
    await vi.waitFor(
      async () => {
        await h.evidence.runOnce();
        passes++;
        if (!drained) throw new Error('the worker has not drained its queue yet');
      },
      { timeout: 90_000, interval: 10 },
    );
    await draining;
    await h.sandbox.idle();
    await h.evidence.runOnce();
    const counters = h.sandbox.callbacks.counters();
    // Every callback the sandbox posted: first emissions plus repeats of the same event id.
    expect(counters.emitted + counters.duplicates).toBeGreaterThanOrEqual(1000);
    expect(counters.duplicates / (counters.emitted + counters.duplicates)).toBeGreaterThan(0.15);
    expect(counters.failed).toBe(0);
    expect(passes).toBeGreaterThan(1);
    let bounced = 0;
    for (const id of ids) {
      const d = await deliveryOf(id);
      const entry = h.sandbox.ledger.entries({ idempotency_key: d.idempotency_key })[0]!;
      // The expected status, computed from what the sandbox emitted (in emission order; the join does not depend on it).
      const expected = entry.statuses.reduce<DownstreamStatus | null>((acc, s) => mergeDownstream(acc, s), 'accepted');
      expect(d.downstream_status, `${id}: emitted ${entry.statuses.join(',')}`).toBe(expected);
      if (expected === 'bounced') {
        bounced++;
        const s = await h.store.preferences.getSuppression(h.tenantId, 'email', entry.destination);
        expect(s?.reason).toBe('bounced');
      }
    }
    expect(bounced).toBeGreaterThan(0);
    expect(await h.store.evidence.listPendingEvidence(10)).toEqual([]);
  }, 120_000);

  it('rejects 100 forged or stale signatures with 401 and records nothing; a duplicate answers 200', async () => {
    await start();
    const sent = await h.send(emailBody(5));
    await h.worker.drain();
    await h.sandbox.idle();
    await h.evidence.runOnce();
    const before = await deliveryOf(sent.json.id);
    const account = h.config.provider_accounts.find((a) => a.id === 'sandbox-email')!;
    const secret = account.callback_secrets![0]!;
    const body = (eventId: string, status = 'bounced') =>
      JSON.stringify({
        type: `message.${status}`,
        timestamp: new Date(h.clock.now()).toISOString(),
        data: {
          event_id: eventId,
          provider_message_id: before.provider_message_id,
          reference: before.idempotency_key,
          channel: 'email',
          status,
          bounce_type: 'hard',
        },
      });
    const post = (payload: string, headers: Record<string, string>) =>
      h.app.inject({ method: 'POST', url: '/v1/callbacks/sandbox-email', headers: { 'content-type': 'application/json', ...headers }, payload });

    const otherSecret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    const forgeries: Array<(i: number) => Promise<{ statusCode: number }>> = [
      (i) => post(body(`evt_forged_${i}`), signWebhook([otherSecret], `evt_forged_${i}`, h.clock.now(), body(`evt_forged_${i}`))),
      (i) => post(body(`evt_forged_${i}`), signWebhook([secret], `evt_forged_${i}`, h.clock.now() - 301_000, body(`evt_forged_${i}`))),
      (i) => post(body(`evt_forged_${i}`), signWebhook([secret], `evt_forged_${i}`, h.clock.now() + 301_000, body(`evt_forged_${i}`))),
      (i) => post(body(`evt_forged_${i}`, 'delivered'), signWebhook([secret], `evt_forged_${i}`, h.clock.now(), body(`evt_forged_${i}`))),
      (i) =>
        post(body(`evt_forged_${i}`), { ...signWebhook([secret], `evt_other_${i}`, h.clock.now(), body(`evt_forged_${i}`)), 'webhook-id': `evt_forged_${i}` }),
      (i) => post(body(`evt_forged_${i}`), { 'webhook-id': `evt_forged_${i}`, 'webhook-timestamp': String(Math.floor(h.clock.now() / 1000)) }),
      (i) => post(body(`evt_forged_${i}`), { ...signWebhook([secret], `evt_forged_${i}`, h.clock.now(), body(`evt_forged_${i}`)), 'webhook-signature': 'v1,' }),
      (i) =>
        post(body(`evt_forged_${i}`), {
          ...signWebhook([secret], `evt_forged_${i}`, h.clock.now(), body(`evt_forged_${i}`)),
          'webhook-timestamp': String(h.clock.now()),
        }),
      (i) => post(body(`evt_forged_${i}`) + ' ', signWebhook([secret], `evt_forged_${i}`, h.clock.now(), body(`evt_forged_${i}`))),
      (i) =>
        post(JSON.stringify(JSON.parse(body(`evt_forged_${i}`)), null, 2), signWebhook([secret], `evt_forged_${i}`, h.clock.now(), body(`evt_forged_${i}`))),
    ];
    for (let i = 0; i < 100; i++) {
      const r = await forgeries[i % forgeries.length]!(i);
      expect(r.statusCode, `forgery ${i % forgeries.length}`).toBe(401);
    }
    expect(await h.store.evidence.listPendingEvidence(10)).toEqual([]);
    await h.evidence.runOnce();
    const after = await deliveryOf(sent.json.id);
    expect(after.downstream_status).toBe(before.downstream_status);
    expect(await h.store.preferences.getSuppression(h.tenantId, 'email', 'user5@example.com')).toBeNull();
    // Nothing was recorded: the same event ids are new events when genuinely signed.
    const genuine = body('evt_forged_0', 'read');
    const ok = await post(genuine, signWebhook([secret], 'evt_forged_0', h.clock.now(), genuine));
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ received: 1, duplicates: 0 });
    const dup = await post(genuine, signWebhook([secret], 'evt_forged_0', h.clock.now() + 1000, genuine));
    expect(dup.statusCode).toBe(200);
    expect(dup.json()).toEqual({ received: 0, duplicates: 1 });
  });

  it('answers 404 for an account without callbacks, 400 for a signed body it cannot read', async () => {
    await start();
    const r = await h.app.inject({ method: 'POST', url: '/v1/callbacks/nope', headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(r.statusCode).toBe(404);
    expect(r.json().code).toBe('callbacks_not_configured');
    const secret = h.config.provider_accounts[0]!.callback_secrets![0]!;
    const junk = '{"type":"message.sent"}';
    const bad = await h.app.inject({
      method: 'POST',
      url: `/v1/callbacks/${h.config.provider_accounts[0]!.id}`,
      headers: { 'content-type': 'application/json', ...signWebhook([secret], 'evt_junk', h.clock.now(), junk) },
      payload: junk,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('callback_malformed');
    expect(bad.headers['content-type']).toMatch(/application\/problem\+json/);
  });

  it('a transient store fault answers 503 so the provider retries, and the retry is recorded', async () => {
    await start();
    const sent = await h.send(otpBody());
    await h.worker.drain();
    const d = await deliveryOf(sent.json.id);
    const secret = h.config.provider_accounts.find((a) => a.id === 'sandbox-sms')!.callback_secrets![0]!;
    const payload = JSON.stringify({
      type: 'message.delivered',
      timestamp: new Date(h.clock.now()).toISOString(),
      data: { event_id: 'evt_retry', provider_message_id: d.provider_message_id, channel: 'sms', status: 'delivered' },
    });
    const original = h.store.evidence.recordProviderEvents.bind(h.store.evidence);
    let failures = 1;
    h.store.evidence.recordProviderEvents = async (events) => {
      if (failures-- > 0) throw new Error('database is locked');
      return original(events);
    };
    const post = () =>
      h.app.inject({
        method: 'POST',
        url: '/v1/callbacks/sandbox-sms',
        headers: { 'content-type': 'application/json', ...signWebhook([secret], 'evt_retry', h.clock.now(), payload) },
        payload,
      });
    const first = await post();
    expect(first.statusCode).toBe(503);
    expect(first.json().code).toBe('service_unavailable');
    const second = await post();
    expect(second.statusCode).toBe(200);
    await h.evidence.runOnce();
    expect((await deliveryOf(sent.json.id)).downstream_status).toBe('delivered');
  });
});
