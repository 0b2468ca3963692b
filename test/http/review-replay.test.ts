/**
 * The review queue and safe replay, end to end on both drivers: what needs a person, replaying
 * with the same key (and only with the duplicate risk accepted where the first submission may
 * have arrived), bulk replay, and resending as a new generation of the challenge.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReplayService } from '../../src/delivery/replay-service.js';
import { decide, LADDERS } from '../../src/domain/index.js';
import { HeraldError } from '../../src/errors.js';
import { generateApiKey, hashApiKey } from '../../src/tenants/api-keys.js';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';

const MINUTE = 60_000;

describe.each(DRIVERS)('on %s', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ driver });
  });
  afterEach(async () => {
    await h.close();
  });

  const notification = async (id: string) => {
    const r = await h.get(`/v1/notifications/${id}`);
    expect(r.status).toBe(200);
    return r.json;
  };
  const deliveryOf = async (ntf: string) => (await notification(ntf)).deliveries[0];

  /** Sends one notification and runs the worker once over it, with a fault armed for its one send. */
  async function sendWith(fault: 'lose_response_after_accept' | 'reject_permanent' | null, over: Record<string, unknown> = {}) {
    if (fault) h.sandbox.faults.set({ mode: fault, count: 1 });
    const sent = await h.send(otpBody(over));
    expect(sent.status).toBe(202);
    await h.worker.drain();
    return { ntf: sent.json.id as string, delivery: await deliveryOf(sent.json.id) };
  }

  /** A delivery that used up the otp ladder's 13 attempts on server errors. */
  async function exhausted() {
    h.sandbox.faults.set({ mode: 'server_error', count: LADDERS.otp.maxAttempts });
    const sent = await h.send(otpBody({ ttl_seconds: 3600 }));
    for (let i = 0; i < 40; i++) {
      await h.worker.drain();
      const d = await deliveryOf(sent.json.id);
      if (d.state === 'terminal') break;
      h.clock.set(Date.parse(d.next_attempt_at));
    }
    const d = await deliveryOf(sent.json.id);
    expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'exhausted', attempt_count: LADDERS.otp.maxAttempts });
    return { ntf: sent.json.id as string, delivery: d };
  }

  /** An `unknown` delivery whose ambiguity window closed without an answer (no reconciler yet: written as the reconciler will). */
  async function unresolved() {
    const { ntf, delivery } = await sendWith('lose_response_after_accept', { recipient: { id: 'user-unresolved', phone: '+14155550123' } });
    const d = (await h.store.getDelivery(delivery.id))!;
    const now = h.clock.now();
    const t = decide(d, { type: 'evidence', found: false, authoritative: false, windowClosed: true }, { now, policy: LADDERS.otp, random: () => 0.5 });
    if (!t.ok) throw new Error(t.reason);
    expect(await h.store.applyTransitions([{ deliveryId: d.id, expect: { state: 'unknown', leaseVersion: d.leaseVersion }, transition: t, now }])).toEqual([
      { deliveryId: d.id, applied: true },
    ]);
    return { ntf, delivery: await deliveryOf(ntf) };
  }

  const retry = (id: string, body?: unknown) => h.post(`/v1/deliveries/${id}/retry`, body);

  describe('GET /v1/review', () => {
    it('lists exhausted, rejected and unresolved deliveries, and unknown ones once overdue, with the reason; never accepted ones', async () => {
      const ex = await exhausted();
      const rejected = await sendWith('reject_permanent');
      const unres = await unresolved();
      const unknown = await sendWith('lose_response_after_accept');
      const accepted = await sendWith(null);
      expect(unknown.delivery.state).toBe('unknown');
      expect(accepted.delivery.state).toBe('accepted');

      let r = await h.get('/v1/review');
      expect(r.status).toBe(200);
      expect(r.json.items.map((d: any) => [d.id, d.state, d.terminal_reason, d.review_reason])).toEqual([
        [unres.delivery.id, 'terminal', 'unresolved', 'unresolved'],
        [rejected.delivery.id, 'terminal', 'rejected', 'rejected'],
        [ex.delivery.id, 'terminal', 'exhausted', 'exhausted'],
      ]);
      expect(r.json.next_cursor).toBeNull();
      // Items are deliveries as GET /v1/deliveries shows them, plus the reason.
      expect(r.json.items[1]).toMatchObject({
        notification_id: rejected.ntf,
        idempotency_key: rejected.delivery.idempotency_key,
        last_error_code: 'invalid_destination',
      });

      h.clock.advance(15 * MINUTE - 1);
      expect((await h.get('/v1/review')).json.items.map((d: any) => d.id)).not.toContain(unknown.delivery.id);
      h.clock.advance(1);
      r = await h.get('/v1/review?limit=2');
      expect(r.json.items.map((d: any) => [d.id, d.review_reason])).toEqual([
        [unknown.delivery.id, 'unknown_overdue'],
        [unres.delivery.id, 'unresolved'],
      ]);
      const next = await h.get(`/v1/review?limit=2&cursor=${r.json.next_cursor}`);
      expect(next.json.items.map((d: any) => d.id)).toEqual([rejected.delivery.id, ex.delivery.id]);
      expect(next.json.next_cursor).toBeNull();
      expect((await h.get('/v1/review?cursor=nope')).status).toBe(400);
      expect((await h.get('/v1/review?state=unknown')).status).toBe(400);
    });
  });

  describe('POST /v1/deliveries/:id/retry', () => {
    it('refuses to replay unknown without accept_duplicate_risk and changes nothing; with it, the same key is sent again and the replay is recorded', async () => {
      const { ntf, delivery } = await sendWith('lose_response_after_accept');
      expect(delivery.state).toBe('unknown');
      const key = delivery.idempotency_key;
      expect(h.sandbox.ledger.countByKey(key)).toBe(1);

      const refused = await retry(delivery.id, {});
      expect(refused.status).toBe(409);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.json).toMatchObject({ code: 'duplicate_risk_not_accepted', status: 409, instance: `/v1/deliveries/${delivery.id}/retry` });
      expect(refused.json.errors).toEqual([expect.objectContaining({ field: 'accept_duplicate_risk' })]);
      // A body-less POST is the same request.
      expect((await retry(delivery.id)).json.code).toBe('duplicate_risk_not_accepted');
      expect((await retry(delivery.id, { accept_duplicate_risk: false })).json.code).toBe('duplicate_risk_not_accepted');
      expect(await deliveryOf(ntf)).toEqual(delivery);
      expect(await h.store.review.listReplays(h.tenantId, delivery.id)).toEqual([]);
      expect((await h.worker.drain()).claimed).toBe(0);
      expect(h.sandbox.ledger.countByKey(key)).toBe(1);

      const replayed = await retry(delivery.id, { accept_duplicate_risk: true, note: 'customer never got the code' });
      expect(replayed.status).toBe(202);
      expect(replayed.json).toMatchObject({ id: delivery.id, state: 'ready', terminal_reason: null, idempotency_key: key, attempt_count: 1 });
      expect(replayed.json.next_attempt_at).toBe(new Date(h.clock.now()).toISOString());
      expect(await h.store.review.listReplays(h.tenantId, delivery.id)).toEqual([
        {
          deliveryId: delivery.id,
          tenantId: h.tenantId,
          requestedBy: 'key_test',
          fromState: 'unknown',
          fromReason: null,
          acceptDuplicateRisk: true,
          note: 'customer never got the code',
          createdAt: h.clock.now(),
        },
      ]);

      expect((await h.worker.drain()).claimed).toBe(1);
      const after = await deliveryOf(ntf);
      expect(after).toMatchObject({ state: 'accepted', attempt_count: 2, idempotency_key: key });
      expect(after.attempts.map((a: any) => a.outcome)).toEqual(['unknown', 'accepted']);
      // The accepted duplicate risk, made visible: the provider saw the same key twice.
      expect(h.sandbox.ledger.countByKey(key)).toBe(2);
      // Accepted now: a second replay is refused.
      expect((await retry(delivery.id, { accept_duplicate_risk: true })).json).toMatchObject({ status: 409, code: 'not_replayable' });
      expect(await h.store.review.listReplays(h.tenantId, delivery.id)).toHaveLength(1);
    });

    it('gives an exhausted delivery exactly one more attempt', async () => {
      const { ntf, delivery } = await exhausted();
      const r = await retry(delivery.id, { note: 'provider outage is over' });
      expect(r.status).toBe(202);
      expect(r.json).toMatchObject({ state: 'ready', terminal_reason: null, attempt_count: LADDERS.otp.maxAttempts });
      expect(await h.store.review.listReplays(h.tenantId, delivery.id)).toEqual([
        expect.objectContaining({
          fromState: 'terminal',
          fromReason: 'exhausted',
          acceptDuplicateRisk: false,
          requestedBy: 'key_test',
          note: 'provider outage is over',
        }),
      ]);

      expect((await h.worker.drain()).claimed).toBe(1);
      const after = await deliveryOf(ntf);
      expect(after).toMatchObject({ state: 'accepted', attempt_count: LADDERS.otp.maxAttempts + 1 });
      expect(after.attempts).toHaveLength(LADDERS.otp.maxAttempts + 1);
      expect(h.sandbox.ledger.countByKey(delivery.idempotency_key)).toBe(1);
      h.clock.advance(10 * MINUTE);
      expect((await h.worker.drain()).claimed).toBe(0);
    });

    it('a replay that fails again ends exhausted again after that one attempt', async () => {
      const { ntf, delivery } = await exhausted();
      h.sandbox.faults.set({ mode: 'server_error', count: 5 });
      expect((await retry(delivery.id)).status).toBe(202);
      expect((await h.worker.drain()).claimed).toBe(1);
      expect(await deliveryOf(ntf)).toMatchObject({ state: 'terminal', terminal_reason: 'exhausted', attempt_count: LADDERS.otp.maxAttempts + 1 });
      h.clock.advance(10 * MINUTE);
      expect((await h.worker.drain()).claimed).toBe(0);
    });

    it('after expiry: 409 replay_expired, pointing at resend', async () => {
      const { ntf, delivery } = await sendWith('reject_permanent', { ttl_seconds: 60 });
      expect(delivery).toMatchObject({ state: 'terminal', terminal_reason: 'rejected' });
      h.clock.advance(60_000);
      const r = await retry(delivery.id);
      expect(r.status).toBe(409);
      expect(r.json.code).toBe('replay_expired');
      expect(r.json.detail).toContain(`/v1/notifications/${ntf}/resend`);
      expect(await deliveryOf(ntf)).toEqual(delivery);
      expect(await h.store.review.listReplays(h.tenantId, delivery.id)).toEqual([]);
    });

    it('a replay that loses a race is not_replayable and writes nothing of its own', async () => {
      const { delivery } = await sendWith('reject_permanent');
      // Another operator's replay commits between this one's read and its guarded write.
      let raced = false;
      const review = new Proxy(h.store.review, {
        get(target, prop, receiver) {
          if (prop !== 'replayDelivery') {
            const v = Reflect.get(target, prop, receiver);
            return typeof v === 'function' ? v.bind(target) : v;
          }
          return async (r: Parameters<Harness['store']['review']['replayDelivery']>[0]) => {
            if (!raced) {
              raced = true;
              expect(await target.replayDelivery({ ...r, audit: { ...r.audit, requestedBy: 'key_other' } })).toBe(true);
            }
            return target.replayDelivery(r);
          };
        },
      });
      // The same store, except for its review part.
      const store = Object.create(h.store, { review: { value: review } }) as Harness['store'];
      const service = new ReplayService({ store, clock: h.clock });
      const err = await service
        .replayOne(h.tenantId, delivery.id, { acceptDuplicateRisk: false, note: null, requestedBy: 'key_test' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HeraldError);
      expect(err).toMatchObject({ code: 'not_replayable', status: 409 });
      expect((err as HeraldError).detail).toMatch(/changed while it was being replayed \(it is ready now\)/);
      expect((await h.store.review.listReplays(h.tenantId, delivery.id)).map((r) => r.requestedBy)).toEqual(['key_other']);
    });

    it('not_replayable for accepted and ready deliveries, naming the state; 404 for unknown ids and other tenants', async () => {
      const { delivery } = await sendWith(null);
      let r = await retry(delivery.id, { accept_duplicate_risk: true });
      expect(r.status).toBe(409);
      expect(r.json.code).toBe('not_replayable');
      expect(r.json.detail).toContain('accepted');

      const ready = await h.send(otpBody({ recipient: { id: 'user-2', phone: '+14155550124' } }));
      r = await retry(ready.json.deliveries[0].id);
      expect(r.json).toMatchObject({ status: 409, code: 'not_replayable' });
      expect(r.json.detail).toContain('ready');

      expect((await retry('dlv_01M8KJT9G0DFY79V1TEPAK12VP')).status).toBe(404);
      expect((await retry('nope')).status).toBe(404);
      const other = generateApiKey();
      await h.store.ensureTenant({ id: 'other', name: 'Other' }, h.clock.now());
      await h.store.createApiKey({ id: 'key_other', tenantId: 'other', keyHash: hashApiKey(other), label: 'x', now: h.clock.now() });
      const theirs = await h.app.inject({
        method: 'POST',
        url: `/v1/deliveries/${delivery.id}/retry`,
        headers: { authorization: `Bearer ${other}` },
        payload: {},
      });
      expect(theirs.statusCode).toBe(404);

      r = await retry(delivery.id, { accept_duplicate_risk: 'yes' });
      expect(r.json).toMatchObject({ status: 400, code: 'validation_failed' });
      r = await retry(delivery.id, { force: true });
      expect(r.json).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ field: 'force', message: 'is not a known field' }] });
      expect((await h.app.inject({ method: 'POST', url: `/v1/deliveries/${delivery.id}/retry`, payload: {} })).statusCode).toBe(401);
    });
  });

  describe('POST /v1/deliveries/retry', () => {
    it('replays what the filter matches and reports what it scheduled and why it refused the rest', async () => {
      const expired = await sendWith('reject_permanent', { ttl_seconds: 10, recipient: { id: 'u-expired', phone: '+14155550125' } });
      h.clock.advance(11_000);
      const rejected = await sendWith('reject_permanent', { recipient: { id: 'u-rejected', phone: '+14155550126' } });
      const unknown = await sendWith('lose_response_after_accept', { recipient: { id: 'u-unknown', phone: '+14155550127' } });
      const accepted = await sendWith(null, { recipient: { id: 'u-accepted', phone: '+14155550128' } });
      const email = await sendWith('reject_permanent', { channels: ['email'], recipient: { id: 'u-email', email: 'ada@example.com' } });
      expect(accepted.delivery.state).toBe('accepted');

      let r = await h.post('/v1/deliveries/retry', { filter: { channel: 'sms' }, note: 'after the outage' });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ matched: 3, scheduled: 1, refused: { replay_expired: 1, duplicate_risk_not_accepted: 1 } });
      expect((await deliveryOf(rejected.ntf)).state).toBe('ready');
      expect((await deliveryOf(unknown.ntf)).state).toBe('unknown');
      expect((await deliveryOf(expired.ntf)).terminal_reason).toBe('rejected');
      expect((await deliveryOf(email.ntf)).terminal_reason).toBe('rejected');
      expect(await h.store.review.listReplays(h.tenantId, rejected.delivery.id)).toEqual([
        expect.objectContaining({ requestedBy: 'key_test', fromReason: 'rejected', note: 'after the outage', acceptDuplicateRisk: false }),
      ]);

      r = await h.post('/v1/deliveries/retry', { filter: { state: 'unknown' }, accept_duplicate_risk: true });
      expect(r.json).toEqual({ matched: 1, scheduled: 1, refused: {} });
      expect((await deliveryOf(unknown.ntf)).state).toBe('ready');

      // The replayed ones go out now (so the next armed fault meets the next send).
      expect((await h.worker.drain()).claimed).toBe(2);
      expect(h.sandbox.ledger.countByKey(unknown.delivery.idempotency_key)).toBe(2);

      // By time: only what was created in the window.
      h.clock.advance(1_000);
      const since = new Date(h.clock.now() - 1).toISOString();
      const late = await sendWith('reject_permanent', { recipient: { id: 'u-late', phone: '+14155550129' } });
      r = await h.post('/v1/deliveries/retry', { filter: { created_after: since, created_before: new Date(h.clock.now() + 1).toISOString() } });
      expect(r.json).toEqual({ matched: 1, scheduled: 1, refused: {} });
      expect((await deliveryOf(late.ntf)).state).toBe('ready');
      expect((await deliveryOf(email.ntf)).state).toBe('terminal');
    });

    it('requires a filter with at least one field: replaying everything by accident is refused', async () => {
      const { ntf } = await sendWith('reject_permanent');
      for (const body of [{}, { filter: {} }, { filter: {}, accept_duplicate_risk: true }]) {
        const r = await h.post('/v1/deliveries/retry', body);
        expect(r.status).toBe(400);
        expect(r.json.code).toBe('validation_failed');
        expect(r.json.errors[0].field).toBe('filter');
      }
      expect((await h.post('/v1/deliveries/retry', { filter: { state: 'bogus' } })).status).toBe(400);
      expect((await h.post('/v1/deliveries/retry', { filter: { created_after: 'yesterday' } })).status).toBe(400);
      const t = new Date(h.clock.now()).toISOString();
      expect((await h.post('/v1/deliveries/retry', { filter: { created_after: t, created_before: t } })).json.errors[0].field).toBe('filter.created_before');
      expect((await deliveryOf(ntf)).state).toBe('terminal');
    });
  });

  describe('POST /v1/notifications/:id/resend', () => {
    it('creates the next generation of the challenge with new delivery keys and a new expiry', async () => {
      const first = await h.send(otpBody({ group: { key: 'login-user-1', generation: 1 }, metadata: { flow: 'login' } }));
      const old = await notification(first.json.id);
      h.clock.advance(MINUTE);

      const r = await h.post(`/v1/notifications/${first.json.id}/resend`);
      expect(r.status).toBe(202);
      expect(r.json).toMatchObject({
        purpose: 'otp',
        resend_of: first.json.id,
        created_at: new Date(h.clock.now()).toISOString(),
        // The original lifetime (300 s), counted from now.
        expires_at: new Date(h.clock.now() + 300_000).toISOString(),
        deliveries: [{ channel: 'sms', state: 'ready', provider_account: 'sandbox-sms' }],
      });
      expect(r.json.id).not.toBe(first.json.id);
      const fresh = await notification(r.json.id);
      expect(fresh).toMatchObject({ group: { key: 'login-user-1', generation: 2 }, recipient_id: 'user-1', channels: ['sms'], metadata: { flow: 'login' } });
      expect(fresh.deliveries[0].idempotency_key).not.toBe(old.deliveries[0].idempotency_key);

      // Resending the older generation again still takes the next one.
      const third = await h.post(`/v1/notifications/${first.json.id}/resend`, { ttl_seconds: 120 });
      expect(third.status).toBe(202);
      expect(third.json.expires_at).toBe(new Date(h.clock.now() + 120_000).toISOString());
      expect((await notification(third.json.id)).group).toEqual({ key: 'login-user-1', generation: 3 });

      const at = new Date(h.clock.now() + 7 * MINUTE).toISOString();
      const fourth = await h.post(`/v1/notifications/${r.json.id}/resend`, { expires_at: at });
      expect(fourth.json.expires_at).toBe(at);
      expect((await notification(fourth.json.id)).group.generation).toBe(4);

      // Each newer generation superseded the pending older ones: only the newest is sent, with its own key.
      await h.worker.drain();
      const keys = h.sandbox.ledger.entries().map((e) => e.idempotency_key);
      const newest = await notification(fourth.json.id);
      expect(keys).toEqual([newest.deliveries[0].idempotency_key]);
      expect((await notification(r.json.id)).deliveries[0]).toMatchObject({ state: 'terminal', terminal_reason: 'superseded' });
      expect((await notification(third.json.id)).deliveries[0]).toMatchObject({ state: 'terminal', terminal_reason: 'superseded' });
    });

    it('a notification without a group resends as generation 2 of its own group', async () => {
      const first = await h.send(otpBody());
      const r = await h.post(`/v1/notifications/${first.json.id}/resend`, {});
      expect(r.status).toBe(202);
      expect((await notification(r.json.id)).group).toEqual({ key: `ntf:${first.json.id}`, generation: 2 });
    });

    it('two resends racing for the same generation both succeed, with consecutive generations', async () => {
      const first = await h.send(otpBody({ group: { key: 'race', generation: 1 } }));
      const [a, b] = await Promise.all([h.post(`/v1/notifications/${first.json.id}/resend`), h.post(`/v1/notifications/${first.json.id}/resend`)]);
      expect([a.status, b.status]).toEqual([202, 202]);
      const generations = await Promise.all([a, b].map(async (r) => (await notification(r.json.id)).group.generation));
      expect(generations.sort()).toEqual([2, 3]);
    });

    it('honours Idempotency-Key like POST /v1/notifications', async () => {
      const first = await h.send(otpBody({ group: { key: 'login-user-1', generation: 1 } }));
      const url = `/v1/notifications/${first.json.id}/resend`;
      const headers = { 'idempotency-key': '"resend-1"' };
      const r1 = await h.post(url, { ttl_seconds: 120 }, headers);
      expect(r1.status).toBe(202);
      h.clock.advance(5_000);
      const r2 = await h.post(url, { ttl_seconds: 120 }, headers);
      expect(r2.status).toBe(202);
      expect(r2.headers['idempotent-replayed']).toBe('true');
      expect(r2.json).toEqual(r1.json);
      expect(await h.store.latestGeneration(h.tenantId, 'login-user-1')).toBe(2);

      const mismatch = await h.post(url, { ttl_seconds: 60 }, headers);
      expect(mismatch.json).toMatchObject({ status: 422, code: 'idempotency_key_mismatch' });
      // The same key on POST /v1/notifications is another request too.
      expect((await h.send(otpBody(), headers)).json.code).toBe('idempotency_key_mismatch');
      expect((await h.post(url, {}, { 'idempotency-key': 'a, b' })).json.code).toBe('idempotency_key_invalid');
      expect(await h.store.latestGeneration(h.tenantId, 'login-user-1')).toBe(2);
    });

    it("404 for another tenant's notification and unknown ids; validates its body", async () => {
      const first = await h.send(otpBody());
      const other = generateApiKey();
      await h.store.ensureTenant({ id: 'other', name: 'Other' }, h.clock.now());
      await h.store.createApiKey({ id: 'key_other', tenantId: 'other', keyHash: hashApiKey(other), label: 'x', now: h.clock.now() });
      const theirs = await h.app.inject({
        method: 'POST',
        url: `/v1/notifications/${first.json.id}/resend`,
        headers: { authorization: `Bearer ${other}` },
        payload: {},
      });
      expect(theirs.statusCode).toBe(404);
      expect(theirs.json().code).toBe('not_found');
      expect((await h.post('/v1/notifications/ntf_01M8KJT9G0DFY79V1TEPAK12VN/resend')).status).toBe(404);
      expect((await h.post('/v1/notifications/nope/resend')).status).toBe(404);

      expect((await h.post(`/v1/notifications/${first.json.id}/resend`, { ttl_seconds: 0 })).status).toBe(400);
      expect((await h.post(`/v1/notifications/${first.json.id}/resend`, { channels: ['email'] })).status).toBe(400);
      const both = await h.post(`/v1/notifications/${first.json.id}/resend`, { ttl_seconds: 60, expires_at: new Date(h.clock.now() + MINUTE).toISOString() });
      expect(both.json).toMatchObject({ status: 400, code: 'validation_failed' });
      const past = await h.post(`/v1/notifications/${first.json.id}/resend`, { expires_at: new Date(h.clock.now() - 1).toISOString() });
      expect(past.json.errors[0]).toMatchObject({ field: 'expires_at' });
      expect(await h.store.latestGeneration(h.tenantId, `ntf:${first.json.id}`)).toBe(1);
    });
  });
});
