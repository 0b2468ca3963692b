/**
 * The dashboard's actions on both drivers: cancel (ready/retryable only, 409 not_cancellable
 * otherwise), a dry-run bulk retry that counts without changing anything, and the audit trail
 * (who did what) shown on the delivery and its notification, for API keys and signed-in users.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/http/passwords.js';
import { createHarness, DRIVERS, otpBody, T0, type Harness } from '../helpers/harness.js';

describe.each(DRIVERS)('operator actions on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  it('cancels a ready delivery once, refuses what has ended, and records who did it', async () => {
    h = await createHarness({ driver });
    const sent = await h.send(otpBody());
    const id = sent.json.deliveries[0].id as string;
    const cancelled = await h.post(`/v1/deliveries/${id}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.json)).toBe(200);
    expect(cancelled.json).toMatchObject({ id, state: 'terminal', terminal_reason: 'cancelled' });
    const again = await h.post(`/v1/deliveries/${id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ code: 'not_cancellable', detail: expect.stringContaining('terminal/cancelled') });
    // Nothing is sent for a cancelled delivery.
    await h.worker.drain();
    expect(h.sandbox.ledger.countByKey(cancelled.json.idempotency_key)).toBe(0);
    const d = await h.get(`/v1/deliveries/${id}`);
    expect(d.json.actions).toEqual([
      {
        at: new Date(T0).toISOString(),
        action: 'cancel',
        by: { kind: 'api_key', id: 'key_test', name: null },
        delivery_id: id,
        detail: { from_state: 'ready' },
      },
    ]);
    const n = await h.get(`/v1/notifications/${sent.json.id}`);
    expect(n.json.actions.map((a: { action: string }) => a.action)).toEqual(['cancel']);
    expect((await h.post('/v1/deliveries/dlv_01JD0000000000000000000000/cancel')).status).toBe(404);

    // An accepted delivery has ended too.
    const other = await h.send(otpBody({ recipient: { id: 'user-2', phone: '+14155550124' } }));
    await h.worker.drain();
    const refused = await h.post(`/v1/deliveries/${other.json.deliveries[0].id}/cancel`);
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe('not_cancellable');
  });

  it('a dry-run bulk retry counts what would be retried and refused and changes nothing; the real one records each delivery', async () => {
    h = await createHarness({ driver });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await h.send(otpBody({ recipient: { id: `user-${i}`, phone: `+1415555012${i}` } }));
      ids.push(s.json.deliveries[0].id as string);
      await h.post(`/v1/deliveries/${ids[i]}/cancel`);
    }
    const body = { filter: { state: 'terminal' }, note: 'provider outage' };
    const dry = await h.post('/v1/deliveries/retry', { ...body, dry_run: true });
    expect(dry.status, JSON.stringify(dry.json)).toBe(200);
    expect(dry.json).toEqual({ dry_run: true, matched: 3, would_retry: 3, refused: [] });
    for (const id of ids) expect((await h.get(`/v1/deliveries/${id}`)).json).toMatchObject({ state: 'terminal', terminal_reason: 'cancelled' });
    // Past their expiry, the dry run names the refusal.
    h.clock.advance(301_000);
    expect((await h.post('/v1/deliveries/retry', { ...body, dry_run: true })).json).toEqual({
      dry_run: true,
      matched: 3,
      would_retry: 0,
      refused: [{ reason: 'replay_expired', count: 3 }],
    });
    h.clock.advance(-301_000);
    const real = await h.post('/v1/deliveries/retry', body);
    expect(real.json).toMatchObject({ matched: 3, scheduled: 3 });
    for (const id of ids) {
      const d = await h.get(`/v1/deliveries/${id}`);
      expect(d.json.state).toBe('ready');
      expect(d.json.actions.map((a: { action: string }) => a.action)).toEqual(['cancel', 'bulk_retry']);
      expect(d.json.actions[1].detail).toEqual({ accept_duplicate_risk: false, note: 'provider outage', filter: { state: 'terminal' } });
    }
  });

  it('records a signed-in user’s retry and resend under the user’s name', async () => {
    h = await createHarness({ driver });
    await h.store.sessions.createUser({
      id: 'usr_ops',
      tenantId: h.tenantId,
      username: 'ops',
      passwordHash: await hashPassword('an operator pass'),
      role: 'operator',
      now: T0,
    });
    const s = await h.app.inject({ method: 'POST', url: '/v1/session', payload: { username: 'ops', password: 'an operator pass' } });
    const headers = { cookie: String(s.headers['set-cookie']).split(';')[0]!, 'x-csrf-token': s.json().csrf_token as string };
    const sent = await h.send(otpBody());
    const id = sent.json.deliveries[0].id as string;
    expect((await h.app.inject({ method: 'POST', url: `/v1/deliveries/${id}/cancel`, headers, payload: {} })).statusCode).toBe(200);
    const retry = await h.app.inject({ method: 'POST', url: `/v1/deliveries/${id}/retry`, headers, payload: { note: 'customer asked' } });
    expect(retry.statusCode, retry.body).toBe(202);
    const resend = await h.app.inject({ method: 'POST', url: `/v1/notifications/${sent.json.id}/resend`, headers, payload: {} });
    expect(resend.statusCode, resend.body).toBe(202);
    const n = await h.get(`/v1/notifications/${sent.json.id}`);
    expect(n.json.actions.map((a: { action: string; by: object }) => [a.action, a.by])).toEqual([
      ['cancel', { kind: 'user', id: 'usr_ops', name: 'ops' }],
      ['retry', { kind: 'user', id: 'usr_ops', name: 'ops' }],
      ['resend', { kind: 'user', id: 'usr_ops', name: 'ops' }],
    ]);
    expect(n.json.actions[2].detail).toEqual({ new_notification_id: resend.json().id });
  });
});
