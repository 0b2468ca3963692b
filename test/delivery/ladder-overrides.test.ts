/**
 * Which ladder a delivery retries on: the notification's own choice, else its provider
 * account's choice for the purpose, else the purpose's ladder.
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

  /** Delay to the next attempt after one server error, with random = 0. */
  async function firstRetryDelay(body: Record<string, unknown>, overrides?: Map<string, Record<string, string>>): Promise<number> {
    h.sandbox.faults.set({ mode: 'server_error', count: 1 });
    const sent = await h.send(body);
    expect(sent.status).toBe(202);
    const t0 = h.clock.now();
    await h.newWorker({ random: () => 0, ...(overrides ? { ladderOverrides: overrides } : {}) }).drain();
    const d = (await h.get(`/v1/notifications/${sent.json.id}`)).json.deliveries[0];
    expect(d.state).toBe('retryable');
    return Date.parse(d.next_attempt_at) - t0;
  }

  const marketing = (over: Record<string, unknown> = {}) => otpBody({ purpose: 'marketing', ttl_seconds: 86_400, ...over });

  it('uses the purpose ladder by default (marketing: full jitter from 5 min, floor 1 s at random 0)', async () => {
    expect(await firstRetryDelay(marketing())).toBe(1_000);
    expect(await firstRetryDelay(otpBody({ purpose: 'transactional', recipient: { id: 't', phone: '+14155550123' } }))).toBe(15_000);
  });

  it("a notification's retry.ladder wins", async () => {
    expect(await firstRetryDelay(marketing({ retry: { ladder: 'transactional' } }))).toBe(15_000);
  });

  it("a provider account's ladder for the purpose applies when the notification has none, and loses to it", async () => {
    const overrides = new Map([['sandbox-sms', { marketing: 'transactional' }]]);
    expect(await firstRetryDelay(marketing({ recipient: { id: 'a', phone: '+14155550123' } }), overrides)).toBe(15_000);
    expect(await firstRetryDelay(marketing({ recipient: { id: 'b', phone: '+14155550123' }, retry: { ladder: 'conversational' } }), overrides)).toBe(1_000);
  });

  it('refuses an unknown ladder name', async () => {
    const r = await h.send(marketing({ retry: { ladder: 'sometimes' } }));
    expect(r.status).toBe(400);
    expect(r.json.errors[0].field).toBe('retry.ladder');
  });
});
