/**
 * The retry budget of a provider account: when most recent calls failed retryably, retries
 * are spread over a wider window, and the API shows the account degraded.
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

  const account = async (id: string) => (await h.get('/v1/provider-accounts')).json.items.find((a: any) => a.id === id);

  it('records every call and its failures; more than half of 20+ failing means degraded', async () => {
    expect((await account('sandbox-sms')).retry_budget).toMatchObject({ state: 'healthy', calls: 0, failures: 0 });
    h.sandbox.faults.set({ mode: 'server_error', count: 21 });
    for (let i = 0; i < 30; i++) await h.send(otpBody({ recipient: { id: `u${i}`, phone: '+14155550123' } }));
    await h.newWorker().drain();
    const sms = await account('sandbox-sms');
    expect(sms.retry_budget).toMatchObject({ state: 'degraded', calls: 30, failures: 21, failure_ratio: 0.7 });
    expect(sms).not.toHaveProperty('api_key');
    expect((await account('sandbox-email')).retry_budget.state).toBe('healthy');
    // The window moves on: a minute later the account is healthy again.
    h.clock.advance(70_000);
    expect((await account('sandbox-sms')).retry_budget).toMatchObject({ state: 'healthy', calls: 0 });
  });

  it("spreads a degraded account's retries wider than its ladder alone", async () => {
    const worker = h.newWorker({ random: () => 0.5 });
    h.sandbox.faults.set({ mode: 'server_error', count: 1 });
    const healthy = await h.send(otpBody({ recipient: { id: 'a', phone: '+14155550123' } }));
    await worker.drain();
    const healthyDelay = Date.parse((await h.get(`/v1/notifications/${healthy.json.id}`)).json.deliveries[0].next_attempt_at) - h.clock.now();
    // OTP ladder: 1 s, up to +10% jitter (random 0.5 → 1.05 s).
    expect(healthyDelay).toBe(1_050);

    h.clock.advance(3_000); // past the worker's 2 s budget cache; the first one is due and goes out
    await worker.drain();
    await h.store.health.recordProviderCalls({ providerAccount: 'sandbox-sms', bucketStart: h.clock.now(), calls: 40, failures: 40 });
    h.clock.advance(3_000);
    h.sandbox.faults.set({ mode: 'server_error', count: 1 });
    const degraded = await h.send(otpBody({ recipient: { id: 'b', phone: '+14155550123' } }));
    await worker.runOnce('sandbox-sms');
    const d = (await h.get(`/v1/notifications/${degraded.json.id}`)).json.deliveries[0];
    const degradedDelay = Date.parse(d.next_attempt_at) - h.clock.now();
    // Spread: up to 2x the wait more; random 0.5 → +1.05 s.
    expect(degradedDelay).toBe(2_100);
  });
});
