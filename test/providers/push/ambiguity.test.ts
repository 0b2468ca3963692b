/**
 * The FCM kind end to end, on both drivers. Its default ambiguity policy: a send whose answer is
 * lost is `unknown`; the reconciler resends it (resend_same_key, which the kind declares because
 * every attempt carries the same collapse identity); FCM receives it twice with the same collapse
 * key and notification tag, so the device shows one notification. A new notification to the same
 * device gets another collapse key. And a registered subscription FCM answers UNREGISTERED for
 * is deactivated (the adapter's `fcm_unregistered`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, otpBody, type Harness } from '../../helpers/harness.js';
import { startFcmFake, type FcmFake } from '../fakes/fcm.js';

const TOKEN = 'fcm-registration-token-e2e:APA91bHpush';

describe.each(DRIVERS)('push ambiguity on %s', (driver) => {
  let h: Harness;
  let fake: FcmFake;

  afterEach(async () => {
    await h?.close();
    await fake?.close();
  });

  async function start(): Promise<void> {
    fake = await startFcmFake();
    h = await createHarness({
      driver,
      account: (a) =>
        a.channel !== 'push'
          ? a
          : {
              ...a,
              kind: 'fcm',
              base_url: fake.url,
              settings: { service_account: fake.serviceAccountJson },
              // The fcm kind's defaults (src/providers/fcm/kind.ts), which the harness does not merge in.
              ambiguity_policy: 'resend_same_key',
              capabilities: { lookup: false, dedupes_by_key: true },
            },
    });
  }

  const pushBody = (over: Record<string, unknown> = {}) => otpBody({ channels: ['push'], recipient: { id: 'user-1', push_token: TOKEN }, ...over });

  async function deliveryOf(id: string) {
    const r = await h.get(`/v1/notifications/${id}`);
    expect(r.status).toBe(200);
    return r.json.deliveries[0];
  }

  it('a lost answer is unknown, resent with the same collapse key and tag, and accepted: one notification on the device', async () => {
    await start();
    fake.proxy.next({ kind: 'reset_after_write' });
    const sent = await h.send(pushBody());
    expect(sent.status).toBe(202);
    await h.worker.drain();
    expect((await deliveryOf(sent.json.id)).state).toBe('unknown');
    expect(fake.accepted).toHaveLength(1);

    expect(await h.reconciler.runOnce()).toMatchObject({ resent: 1 });
    const between = await deliveryOf(sent.json.id);
    expect(between.attempts[0]).toMatchObject({ ambiguity_policy: 'resend_same_key', resolution: 'policy_resend' });
    await h.worker.drain();
    const d = await deliveryOf(sent.json.id);
    expect(d.state).toBe('accepted');
    expect(d.attempts).toHaveLength(2);
    expect(d.provider_message_id).toBe(fake.accepted[1]);

    const [first, resent] = fake.sends().map((s) => s.body.message);
    expect(resent.android.collapse_key).toBe(first.android.collapse_key);
    expect(resent.android.notification.tag).toBe(first.android.notification.tag);
    expect(resent.apns.headers['apns-collapse-id']).toBe(first.apns.headers['apns-collapse-id']);
    expect(resent.webpush.headers.Topic).toBe(first.webpush.headers.Topic);

    // Another notification to the same device is another delivery: another collapse key.
    const next = await h.send(pushBody({ content: { text: 'Your code is 654321' } }));
    await h.worker.drain();
    expect((await deliveryOf(next.json.id)).state).toBe('accepted');
    expect(fake.sends().at(-1)?.body.message.android.collapse_key).not.toBe(first.android.collapse_key);
  });

  it('a subscription FCM answers UNREGISTERED for is rejected and deactivated, and never sent to again', async () => {
    await start();
    const put = await h.app.inject({
      method: 'PUT',
      url: '/v1/recipients/user-1/push-subscriptions/phone',
      headers: { authorization: `Bearer ${h.apiKey}` },
      payload: { type: 'fcm', token: TOKEN },
    });
    expect(put.statusCode).toBe(200);
    fake.script({ kind: 'answer', name: 'unregistered' });
    const sent = await h.send({ recipient: { id: 'user-1' }, purpose: 'alert', channels: ['push'], content: { subject: 'Disk full', text: 'db-1 is at 95%' } });
    expect(sent.status).toBe(202);
    await h.worker.drain();
    expect(await deliveryOf(sent.json.id)).toMatchObject({ state: 'terminal', terminal_reason: 'rejected' });
    const list = await h.get('/v1/recipients/user-1/push-subscriptions');
    expect(list.json.items).toEqual([
      expect.objectContaining({ id: 'phone', active: false, deactivated_reason: 'unregistered', deactivated_code: 'fcm_unregistered' }),
    ]);
    expect(fake.sends()).toHaveLength(1);
  });
});
