/**
 * Challenge generations: a newer generation supersedes the older ones' pending deliveries in
 * the transaction that accepts it, and an older or repeated generation is refused.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';

describe.each(DRIVERS)('on %s', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ driver });
  });
  afterEach(async () => {
    await h.close();
  });

  const deliveryOf = async (id: string) => (await h.get(`/v1/notifications/${id}`)).json.deliveries[0];
  const gen = (generation: number, over: Record<string, unknown> = {}) => otpBody({ group: { key: 'login-user-1', generation }, ...over });

  it('a newer generation supersedes the older pending delivery; only the newest is sent', async () => {
    h.sandbox.faults.set({ mode: 'server_error', count: 1 });
    const first = await h.send(gen(1));
    await h.worker.drain();
    expect((await deliveryOf(first.json.id)).state).toBe('retryable');

    const second = await h.send(gen(2));
    expect(second.status).toBe(202);
    expect(await deliveryOf(first.json.id)).toMatchObject({ state: 'terminal', terminal_reason: 'superseded', next_attempt_at: null });

    h.clock.advance(60_000);
    await h.worker.drain();
    const newest = await deliveryOf(second.json.id);
    expect(newest.state).toBe('accepted');
    expect(newest.idempotency_key).not.toBe((await deliveryOf(first.json.id)).idempotency_key);
    expect(h.sandbox.ledger.entries().map((e) => e.idempotency_key)).toEqual([newest.idempotency_key]);
  });

  it('supersedes ready deliveries too, but never what may already be out (unknown) or accepted', async () => {
    const ready = await h.send(gen(1, { channels: ['sms', 'email'] }));
    h.sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    await h.worker.runOnce('sandbox-sms');
    const beforeSms = (await h.get(`/v1/notifications/${ready.json.id}`)).json.deliveries;
    expect(beforeSms.map((d: any) => d.state)).toEqual(['unknown', 'ready']);

    expect((await h.send(gen(2, { channels: ['sms', 'email'] }))).status).toBe(202);
    const after = (await h.get(`/v1/notifications/${ready.json.id}`)).json.deliveries;
    expect(after.map((d: any) => [d.channel, d.state, d.terminal_reason])).toEqual([
      ['sms', 'unknown', null],
      ['email', 'terminal', 'superseded'],
    ]);
  });

  it('counts what a newer generation superseded, per channel and purpose', async () => {
    await h.send(gen(1, { channels: ['sms', 'email'] }));
    await h.send(gen(2, { channels: ['sms', 'email'] }));
    expect(h.counters.get('superseded_deliveries', { channel: 'sms', purpose: 'otp' })).toBe(1);
    expect(h.counters.get('superseded_deliveries', { channel: 'email', purpose: 'otp' })).toBe(1);
    await h.send(gen(3));
    expect(h.counters.total('superseded_deliveries')).toBe(4); // both of generation 2's deliveries
  });

  it('refuses an older generation (stale) and a repeated one (duplicate), writing nothing', async () => {
    expect((await h.send(gen(2))).status).toBe(202);
    const stale = await h.send(gen(1));
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({ code: 'stale_generation', errors: [{ field: 'group.generation' }] });
    const dup = await h.send(gen(2));
    expect(dup.status).toBe(409);
    expect(dup.json.code).toBe('duplicate_challenge');
    const list = await h.get('/v1/deliveries');
    expect(list.json.items).toHaveLength(1);
  });

  it('a stale refusal replays for the same Idempotency-Key', async () => {
    await h.send(gen(3));
    const a = await h.send(gen(2), { 'idempotency-key': 'stale-1' });
    const b = await h.send(gen(2), { 'idempotency-key': 'stale-1' });
    expect(a.status).toBe(409);
    expect(b.status).toBe(409);
    expect(b.json).toEqual(a.json);
  });

  it('reserves the ntf: prefix for notifications without a group, and inb: for the automatic replies to HELP and STOP', async () => {
    for (const key of ['ntf:anything', 'inb:inb_01JD0000000000000000000000']) {
      const r = await h.send(otpBody({ group: { key, generation: 1 } }));
      expect(r.status, key).toBe(400);
      expect(r.json.errors[0].field).toBe('group.key');
    }
  });

  it('a user resend is a new generation that supersedes the pending one', async () => {
    h.sandbox.faults.set({ mode: 'server_error', count: 1 });
    const first = await h.send(gen(1));
    await h.worker.drain();
    const resend = await h.post(`/v1/notifications/${first.json.id}/resend`, {});
    expect(resend.status).toBe(202);
    expect(await deliveryOf(first.json.id)).toMatchObject({ state: 'terminal', terminal_reason: 'superseded' });
    const n = await h.get(`/v1/notifications/${resend.json.id}`);
    expect(n.json.group).toEqual({ key: 'login-user-1', generation: 2 });
  });
});
