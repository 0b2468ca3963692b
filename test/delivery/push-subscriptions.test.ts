/**
 * Push subscriptions as data, end to end on both drivers: a recipient's devices are registered
 * through the API, a push notification fans out to each active one (one delivery, one state
 * each), a device a push service refuses as unregistered is deactivated after that first
 * definite refusal and never sent to again (queued deliveries to it stop without a call), and
 * registering it anew revives it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { encodePushTarget, type SubmitOutcome } from '../../src/domain/index.js';
import type { ProviderAdapter, SubmitRequest } from '../../src/providers/provider.js';
import { createAdapter } from '../../src/runtime/node.js';
import { createHarness, DRIVERS, silentLogger, type Harness, WORKER_DEFAULTS } from '../helpers/harness.js';

const PHONE = { type: 'fcm', token: 'fcm-token-of-a-phone-that-was-wiped' } as const;
const BROWSER = {
  type: 'webpush',
  endpoint: 'https://push.example.test/send/abc123',
  keys: { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' },
} as const;

describe.each(DRIVERS)('push subscriptions on %s', (driver) => {
  let h: Harness;
  const inner: ProviderAdapter[] = [];
  const calls: SubmitRequest[] = [];
  beforeEach(async () => {
    h = await createHarness({ driver });
    calls.length = 0;
  });
  afterEach(async () => {
    await Promise.allSettled(inner.splice(0).map((a) => a.close()));
    await h.close();
  });

  /** A worker whose push adapter refuses the phone as unregistered (as FCM does for a wiped app) and sends the rest through the sandbox. */
  function worker(batchSize = 64): DeliveryWorker {
    const adapters = new Map(
      h.config.provider_accounts.map((a) => {
        const real = createAdapter(a, h.config.public_url);
        inner.push(real);
        const submit = async (req: SubmitRequest, signal?: AbortSignal): Promise<SubmitOutcome> => {
          calls.push(req);
          if (req.destination === encodePushTarget(PHONE))
            return { kind: 'permanent', reason: 'invalid_destination', code: 'fcm_unregistered', message: 'Requested entity was not found.' };
          return real.submit(req, signal);
        };
        return [a.id, { ...real, kind: real.kind, capabilities: real.capabilities, close: () => real.close(), submit }] as const;
      }),
    );
    return new DeliveryWorker({
      store: h.store,
      adapters,
      clock: h.clock,
      logger: silentLogger,
      workerId: 'w-push',
      settings: { ...WORKER_DEFAULTS, batch_size: batchSize },
      random: () => 0,
      accounts: h.config.provider_accounts,
    });
  }
  const put = (id: string, body: unknown) =>
    h.app.inject({
      method: 'PUT',
      url: `/v1/recipients/user-1/push-subscriptions/${id}`,
      headers: { authorization: `Bearer ${h.apiKey}` },
      payload: body as object,
    });
  const sendPush = () =>
    h.send({ recipient: { id: 'user-1' }, purpose: 'alert', channels: ['push'], content: { subject: 'Disk full', text: 'db-1 is at 95%' } });
  const deliveries = async (id: string) =>
    (await h.get(`/v1/notifications/${id}`)).json.deliveries as Array<{ state: string; terminal_reason: string | null; attempts: unknown[] }>;

  it('fans out to each device; the refused one is deactivated at once and never called again; a new registration revives it', async () => {
    expect((await put('phone', PHONE)).statusCode).toBe(200);
    expect((await put('browser', BROWSER)).statusCode).toBe(200);
    const first = await sendPush();
    const second = await sendPush();
    expect(first.status).toBe(202);
    expect(first.json.deliveries).toHaveLength(2);
    // One delivery at a time: the first refusal lands before the second notification's phone delivery is claimed.
    await worker(1).drain();
    const firstDeliveries = await deliveries(first.json.id);
    expect(firstDeliveries.map((d) => [d.state, d.terminal_reason]).sort()).toEqual([
      ['accepted', null],
      ['terminal', 'rejected'],
    ]);
    const secondDeliveries = await deliveries(second.json.id);
    expect(secondDeliveries.map((d) => [d.state, d.terminal_reason]).sort()).toEqual([
      ['accepted', null],
      ['terminal', 'rejected'],
    ]);
    // The phone was called once, by the first notification; the second's delivery to it stopped without a call.
    expect(calls.filter((c) => c.destination === encodePushTarget(PHONE))).toHaveLength(1);
    const stopped = (await h.get(`/v1/notifications/${second.json.id}`)).json.deliveries.find(
      (d: { terminal_reason: string | null }) => d.terminal_reason === 'rejected',
    );
    expect(stopped.attempts[0].error.code).toBe('push_subscription_inactive');

    const list = await h.get('/v1/recipients/user-1/push-subscriptions');
    // Registered at the same instant: listed by id.
    expect(list.json.items).toEqual([
      expect.objectContaining({ id: 'browser', type: 'webpush', active: true, deactivated_reason: null }),
      expect.objectContaining({
        id: 'phone',
        type: 'fcm',
        active: false,
        deactivated_reason: 'unregistered',
        deactivated_code: 'fcm_unregistered',
        target_hint: '…-wiped',
      }),
    ]);
    expect(JSON.stringify(list.json)).not.toContain(PHONE.token);

    // A later notification goes to the browser alone.
    const third = await sendPush();
    expect(third.json.deliveries).toHaveLength(1);
    await worker().drain();
    expect(calls.filter((c) => c.destination === encodePushTarget(PHONE))).toHaveLength(1);

    // The app registered again (a new install): the phone is active once more.
    expect((await put('phone', PHONE)).json()).toMatchObject({ active: true, deactivated_reason: null });
    expect((await sendPush()).json.deliveries).toHaveLength(2);
  });

  it('a recipient with no active subscription and no push_token is refused, naming the field; removal stops sends', async () => {
    const none = await sendPush();
    expect(none.status).toBe(400);
    expect(none.json.errors[0].field).toBe('recipient.push_token');
    await put('browser', BROWSER);
    const del = await h.app.inject({
      method: 'DELETE',
      url: '/v1/recipients/user-1/push-subscriptions/browser',
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    expect(del.statusCode).toBe(204);
    // DELETE is idempotent for a registered subscription; one never registered is 404.
    const again = await h.app.inject({
      method: 'DELETE',
      url: '/v1/recipients/user-1/push-subscriptions/browser',
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    expect(again.statusCode).toBe(204);
    const never = await h.app.inject({
      method: 'DELETE',
      url: '/v1/recipients/user-1/push-subscriptions/tablet',
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    expect(never.statusCode).toBe(404);
    expect(never.json().code).toBe('not_found');
    expect((await sendPush()).status).toBe(400);
  });

  it('refuses a subscription that is not one, naming the field, and stores nothing', async () => {
    for (const [body, field] of [
      [{ type: 'webpush', endpoint: 'http://push.example.test/1', keys: BROWSER.keys }, 'endpoint'],
      [{ type: 'apns', token: 'not-hex', environment: 'production' }, 'token'],
      [{ type: 'fcm', token: 'x', endpoint: 'https://push.example.test/1' }, 'endpoint'],
      [{ type: 'webpush', endpoint: BROWSER.endpoint, keys: { p256dh: 'has+plus', auth: 'x' } }, 'keys.p256dh'],
    ] as const) {
      const r = await put('bad', body);
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      expect(r.json().errors[0].field).toBe(field);
    }
    expect((await h.get('/v1/recipients/user-1/push-subscriptions')).json.items).toEqual([]);
  });
});
