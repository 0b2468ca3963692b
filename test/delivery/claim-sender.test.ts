/**
 * The claim → call → record path on its own (src/delivery/claim-sender.ts), without a worker's
 * loops: what the API process's code fast path sends with. `sendNow` claims only the deliveries
 * named, commits the lease and attempt row before the call, writes the outcome under the lease's
 * fencing token (a refused write is kept as a late outcome), and claims nothing that is no longer due.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaimSender } from '../../src/delivery/claim-sender.js';
import type { SubmitOutcome } from '../../src/domain/index.js';
import type { ProviderAdapter, SubmitRequest } from '../../src/providers/provider.js';
import { createHarness, DRIVERS, otpBody, silentLogger, type Harness, WORKER_DEFAULTS } from '../helpers/harness.js';

const ACCOUNT = 'sandbox-sms';

describe.each(DRIVERS)('claim sender on %s', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ driver, timeoutMs: 2_000 });
  });
  afterEach(async () => {
    await h.close();
  });

  /** A sender whose only adapter runs `during` inside each call (the delivery as the store has it then) before answering accepted. */
  const senderWith = (during: (r: SubmitRequest) => Promise<void> = async () => {}) => {
    const requests: SubmitRequest[] = [];
    const adapter: ProviderAdapter = {
      kind: 'fake',
      capabilities: { lookup: false, dedupesByKey: false },
      submit: async (r): Promise<SubmitOutcome> => {
        requests.push(r);
        await during(r);
        return { kind: 'accepted', providerMessageId: `SM${requests.length}` };
      },
      close: async () => {},
    };
    const sender = new ClaimSender({
      store: h.store,
      adapters: new Map([[ACCOUNT, adapter]]),
      clock: h.clock,
      logger: silentLogger,
      workerId: 'api',
      settings: WORKER_DEFAULTS,
      accounts: h.config.provider_accounts,
    });
    return { sender, requests };
  };
  const commitCode = async (phone: string) => {
    const sent = await h.send(otpBody({ recipient: { id: phone, phone } }));
    expect(sent.status).toBe(202);
    return { notificationId: sent.json.id as string, deliveryId: sent.json.deliveries[0].id as string };
  };
  const deliveryOf = async (notificationId: string) => (await h.get(`/v1/notifications/${notificationId}`)).json.deliveries[0];

  it('sends only the deliveries named, with lease and attempt committed before the call, and records the outcome', async () => {
    const seenDuringCall: unknown[] = [];
    const first = await commitCode('+14155550101');
    const second = await commitCode('+14155550102');
    const { sender, requests } = senderWith(async () => {
      seenDuringCall.push(await deliveryOf(first.notificationId));
    });
    const result = await sender.sendNow(ACCOUNT, 'otp', [first.deliveryId]);
    expect(result).toMatchObject({ claimed: 1, applied: 1, stale: 0 });
    expect(requests.map((r) => r.deliveryId)).toEqual([first.deliveryId]);
    // Persisted before the call: the provider is called with the delivery already submitting, attempt 1 written.
    expect(seenDuringCall).toEqual([expect.objectContaining({ state: 'submitting', attempt_count: 1 })]);
    const d = await deliveryOf(first.notificationId);
    expect(d).toMatchObject({ state: 'accepted', attempt_count: 1 });
    expect(d.attempts).toHaveLength(1);
    // The other code was not touched: it is left to the workers.
    expect(await deliveryOf(second.notificationId)).toMatchObject({ state: 'ready', attempt_count: 0 });
  });

  it('claims nothing that is no longer due: a worker that sent it first is not followed by a second call', async () => {
    const code = await commitCode('+14155550103');
    expect((await h.worker.runOnce(ACCOUNT)).claimed).toBe(1);
    const { sender, requests } = senderWith();
    expect(await sender.sendNow(ACCOUNT, 'otp', [code.deliveryId])).toMatchObject({ claimed: 0, applied: 0, stale: 0 });
    expect(requests).toEqual([]);
    expect((await deliveryOf(code.notificationId)).attempts).toHaveLength(1);
  });

  it('an outcome whose lease was rescued during the call is fenced off and kept as a late outcome', async () => {
    const code = await commitCode('+14155550104');
    const { sender } = senderWith(async () => {
      // The sender looks dead: its lease runs out and the sweeper declares the delivery unknown.
      h.clock.advance(WORKER_DEFAULTS.lease_ms + 1);
      expect((await h.sweeper.runOnce()).leasesRescued).toBe(1);
    });
    expect(await sender.sendNow(ACCOUNT, 'otp', [code.deliveryId])).toMatchObject({ claimed: 1, applied: 0, stale: 1 });
    const d = await deliveryOf(code.notificationId);
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ outcome: 'lease_expired', late_outcome: 'accepted' });
  });

  it('sends nothing for no deliveries, and refuses an account it has no adapter for', async () => {
    const { sender, requests } = senderWith();
    expect(await sender.sendNow(ACCOUNT, 'otp', [])).toEqual({ claimed: 0, applied: 0, stale: 0 });
    await expect(sender.sendNow('sandbox-email', 'otp', ['d1'])).rejects.toThrow(/no adapter for provider account sandbox-email/);
    expect(requests).toEqual([]);
  });
});
