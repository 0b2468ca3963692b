/**
 * Channel fallback with an explicit deadline: email first; the SMS delivery exists only if
 * the email has not got through by the deadline (or has ended); never past expiry.
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

  const body = (over: Record<string, unknown> = {}) => otpBody({ channels: ['email', 'sms'], fallback_after_seconds: 30, ttl_seconds: 300, ...over });
  const deliveries = async (id: string) => (await h.get(`/v1/notifications/${id}`)).json.deliveries as any[];

  it('an email accepted before the deadline means no SMS is ever created', async () => {
    const sent = await h.send(body());
    expect(sent.status).toBe(202);
    expect(sent.json.deliveries.map((d: any) => d.channel)).toEqual(['email']);
    expect(sent.json.fallback).toEqual({ after_seconds: 30, evidence: 'accepted', pending_channels: ['sms'] });
    await h.worker.drain();
    h.clock.advance(30_000);
    expect(await h.fallbacks.runOnce()).toEqual({ created: 0, resolved: 1, expired: 0 });
    h.clock.advance(600_000);
    await h.fallbacks.runOnce();
    await h.worker.drain();
    expect((await deliveries(sent.json.id)).map((d) => [d.channel, d.state])).toEqual([['email', 'accepted']]);
    expect(h.sandbox.ledger.entries().map((e) => e.channel)).toEqual(['email']);
  });

  it('a slow email past the deadline means exactly one SMS', async () => {
    h.sandbox.faults.set({ mode: 'server_error', count: 1 });
    const sent = await h.send(body());
    await h.worker.drain();
    expect((await deliveries(sent.json.id))[0].state).toBe('retryable');
    h.clock.advance(29_999);
    expect((await h.fallbacks.runOnce()).created).toBe(0);
    h.clock.advance(1);
    expect((await h.fallbacks.runOnce()).created).toBe(1);
    expect((await h.fallbacks.runOnce()).created).toBe(0);
    await h.worker.drain();
    const ds = await deliveries(sent.json.id);
    expect(ds.map((d) => d.channel)).toEqual(['email', 'sms']);
    expect(ds[1]).toMatchObject({ state: 'accepted', expires_at: ds[0].expires_at });
    expect(h.sandbox.ledger.entries().filter((e) => e.channel === 'sms')).toHaveLength(1);
  });

  it('an email that ended (rejected) falls back at once, not at the deadline', async () => {
    h.sandbox.faults.set({ mode: 'reject_permanent', count: 1 });
    const sent = await h.send(body());
    await h.worker.drain();
    expect((await h.fallbacks.runOnce()).created).toBe(1);
    await h.worker.drain();
    expect((await deliveries(sent.json.id)).map((d) => [d.channel, d.state])).toEqual([
      ['email', 'terminal'],
      ['sms', 'accepted'],
    ]);
  });

  it('a fallback that would start at or after expiry is not created', async () => {
    h.sandbox.faults.set({ mode: 'timeout_before_accept', count: 1 });
    const sent = await h.send(body({ ttl_seconds: 40 }));
    await h.worker.drain(); // email unknown
    h.clock.advance(40_000);
    expect(await h.fallbacks.runOnce()).toEqual({ created: 0, resolved: 0, expired: 1 });
    expect((await deliveries(sent.json.id)).map((d) => d.channel)).toEqual(['email']);
  });

  it('refuses a fallback that could never start before expiry, or with a single channel', async () => {
    const late = await h.send(body({ ttl_seconds: 30 }));
    expect(late.status).toBe(400);
    expect(late.json.errors[0].field).toBe('fallback_after_seconds');
    const single = await h.send(body({ channels: ['sms'] }));
    expect(single.status).toBe(400);
  });

  it("a newer generation drops the older generation's pending fallback", async () => {
    h.sandbox.faults.set({ mode: 'server_error', count: 1 });
    const first = await h.send(body({ group: { key: 'login-1', generation: 1 } }));
    await h.worker.drain();
    await h.send(otpBody({ group: { key: 'login-1', generation: 2 } }));
    h.clock.advance(30_000);
    expect((await h.fallbacks.runOnce()).created).toBe(0);
    expect((await deliveries(first.json.id)).map((d) => [d.channel, d.terminal_reason])).toEqual([['email', 'superseded']]);
  });
});
