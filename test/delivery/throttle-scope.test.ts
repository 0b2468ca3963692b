/**
 * Whose rate a 429 is about: an account-wide throttle pauses every worker of the account
 * (purpose-ladders.test.ts); a throttle about one destination (FCM's per-device limit) holds
 * back that delivery alone, on its ladder, and the account's other deliveries go on.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import type { SubmitOutcome } from '../../src/domain/index.js';
import type { ProviderAdapter } from '../../src/providers/provider.js';
import { createAdapter } from '../../src/runtime/node.js';
import { createHarness, DRIVERS, otpBody, silentLogger, type Harness, WORKER_DEFAULTS } from '../helpers/harness.js';

describe.each(DRIVERS)('throttle scope on %s', (driver) => {
  let h: Harness;
  const inner: ProviderAdapter[] = [];
  beforeEach(async () => {
    h = await createHarness({ driver });
  });
  afterEach(async () => {
    await Promise.allSettled(inner.splice(0).map((a) => a.close()));
    await h.close();
  });

  /** A worker whose SMS adapter answers the first call to `busy` with a 429 of the given scope, and sends everything else through the sandbox. */
  function worker(busy: string, scope: 'account' | 'destination'): DeliveryWorker {
    let refused = false;
    const adapters = new Map(
      h.config.provider_accounts.map((a) => {
        const real = createAdapter(a, h.config.public_url);
        inner.push(real);
        const wrapped: ProviderAdapter = {
          ...real,
          kind: real.kind,
          capabilities: real.capabilities,
          close: () => real.close(),
          submit: async (req, signal): Promise<SubmitOutcome> => {
            if (!refused && req.destination === busy) {
              refused = true;
              return { kind: 'throttled', code: 'device_rate', message: 'too many messages to this device', retryAfterMs: 20_000, scope };
            }
            return real.submit(req, signal);
          },
        };
        return [a.id, wrapped] as const;
      }),
    );
    return new DeliveryWorker({
      store: h.store,
      adapters,
      clock: h.clock,
      logger: silentLogger,
      workerId: `w-${scope}`,
      settings: WORKER_DEFAULTS,
      random: () => 0,
      accounts: h.config.provider_accounts,
    });
  }
  const deliveryOf = async (id: string) => (await h.get(`/v1/notifications/${id}`)).json.deliveries[0];

  it('a per-destination 429 retries that delivery alone; the account keeps sending', async () => {
    const w = worker('+14155550123', 'destination');
    const busy = await h.send(otpBody({ recipient: { id: 'r-busy', phone: '+14155550123' } }));
    await w.drain();
    expect(await deliveryOf(busy.json.id)).toMatchObject({ state: 'retryable' });
    const other = await h.send(otpBody({ recipient: { id: 'r-other', phone: '+14155550124' } }));
    await w.drain();
    expect((await deliveryOf(other.json.id)).state).toBe('accepted');
    const d = await deliveryOf(busy.json.id);
    expect(Date.parse(d.next_attempt_at) - h.clock.now()).toBeGreaterThanOrEqual(20_000);
  });

  it('the same 429 about the account pauses the account: the other delivery waits (the test above can fail)', async () => {
    const w = worker('+14155550123', 'account');
    await h.send(otpBody({ recipient: { id: 'r-busy', phone: '+14155550123' } }));
    await w.drain();
    const other = await h.send(otpBody({ recipient: { id: 'r-other', phone: '+14155550124' } }));
    await w.drain();
    expect((await deliveryOf(other.json.id)).state).toBe('ready');
  });
});
