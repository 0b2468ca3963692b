/**
 * Twilio and Telnyx through a whole Herald (the harness, on both drivers, on the wall clock so
 * the adapters' expiry arithmetic and Herald's agree): a notification is sent to the fake, the
 * fake posts its signed callback over real HTTP to a listening Herald, as a reverse proxy in
 * front of Herald would (the signature is over the public URL, the request arrives on another
 * host and port), and the downstream status moves; a forged callback is refused with 401 and
 * changes nothing. Twilio: a submission whose answer was lost is settled by its status
 * callback, matched through the `ref` in the signed URL. Telnyx: one whose answer was lost is
 * resent with the same key and Telnyx answers from its record, so there is one message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderAccountConfig } from '../../src/providers/provider.js';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';
import { signTelnyxWebhook, startTelnyxFake, telnyxKeyPair, type TelnyxFake } from './fakes/telnyx.js';
import { startTwilioFake, type TwilioFake } from './fakes/twilio.js';
import { TELNYX_API_KEY, TELNYX_FROM } from './telnyx/subject.js';
import { TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM } from './twilio/subject.js';

describe.each(DRIVERS)('SMS providers end to end on %s', (driver) => {
  let h: Harness | undefined;
  let twilio: TwilioFake | undefined;
  let telnyx: TelnyxFake | undefined;
  let listening: string;
  afterEach(async () => {
    await h?.close();
    await twilio?.close();
    await telnyx?.close();
    h = twilio = telnyx = undefined;
  });

  const start = async (sms: (a: ProviderAccountConfig) => ProviderAccountConfig) => {
    h = await createHarness({ driver, wallClock: true, timeoutMs: 2_000, account: (a) => (a.channel === 'sms' ? sms(a) : a) });
    // Herald listens on an ephemeral port; providers were told public_url, which is elsewhere.
    listening = await h.app.listen({ host: '127.0.0.1', port: 0 });
    expect(new URL(listening).origin).not.toBe(new URL(h.config.public_url).origin);
  };
  const deliveryOf = async (notificationId: string) => (await h!.get(`/v1/notifications/${notificationId}`)).json.deliveries[0];

  describe('twilio', () => {
    const twilioAccount = (a: ProviderAccountConfig): ProviderAccountConfig => ({
      ...a,
      kind: 'twilio',
      base_url: twilio!.url,
      settings: { account_sid: TWILIO_ACCOUNT_SID, auth_token: TWILIO_AUTH_TOKEN, from: TWILIO_FROM },
      ambiguity_policy: 'wait_for_evidence',
      capabilities: { lookup: false, dedupes_by_key: false },
    });

    it('a signed status callback moves the downstream status; a forged one is 401 and changes nothing', async () => {
      twilio = await startTwilioFake({ accountSid: TWILIO_ACCOUNT_SID, authToken: TWILIO_AUTH_TOKEN, numbers: [TWILIO_FROM] });
      await start(twilioAccount);
      const sent = await h!.send(otpBody());
      expect(sent.status).toBe(202);
      await h!.worker.drain();
      const d = await deliveryOf(sent.json.id);
      const [message] = twilio.messages;
      expect(d).toMatchObject({ state: 'accepted', provider_message_id: message!.sid });
      expect(message!.params.StatusCallback).toBe(`${h!.config.public_url}/v1/callbacks/sandbox-sms?ref=${d.idempotency_key}`);
      expect(Number(message!.params.ValidityPeriod)).toBeLessThanOrEqual(300);

      expect(await twilio.postStatus(message!.sid, 'delivered', { deliverTo: listening })).toBe(200);
      await h!.evidence.runOnce();
      expect(await deliveryOf(sent.json.id)).toMatchObject({ state: 'accepted', downstream_status: 'delivered' });

      // Forged: signed with another token. `failed` would be final on the lattice if it got in.
      const forged = twilio.statusCallback(message!.sid, 'failed', { errorCode: '30003', authToken: 'forged-token' });
      const r = await fetch(new URL('/v1/callbacks/sandbox-sms' + new URL(forged.url).search, listening), {
        method: 'POST',
        headers: forged.headers,
        body: forged.rawBody,
      });
      expect(r.status).toBe(401);
      await h!.evidence.runOnce();
      expect(await deliveryOf(sent.json.id)).toMatchObject({ state: 'accepted', downstream_status: 'delivered' });

      // A replay of the genuine callback is a duplicate, not a second event.
      const replay = twilio.statusCallback(message!.sid, 'delivered');
      const again = await h!.app.inject({
        method: 'POST',
        url: '/v1/callbacks/sandbox-sms' + new URL(replay.url).search,
        headers: replay.headers,
        payload: replay.rawBody,
      });
      expect(again.json()).toEqual({ received: 0, duplicates: 1 });
    });

    it('an unknown submission is settled by its status callback, matched by the signed ref', async () => {
      twilio = await startTwilioFake({ accountSid: TWILIO_ACCOUNT_SID, authToken: TWILIO_AUTH_TOKEN, numbers: [TWILIO_FROM] });
      await start(twilioAccount);
      await twilio.script({ kind: 'reset_after_write' });
      const sent = await h!.send(otpBody());
      await h!.worker.drain();
      expect(await deliveryOf(sent.json.id)).toMatchObject({ state: 'unknown', provider_message_id: null });
      // Twilio had it: its callback arrives with the SID Herald never learned, and the ref.
      expect(await twilio.postStatus(twilio.messages[0]!.sid, 'sent', { deliverTo: listening })).toBe(200);
      await h!.evidence.runOnce();
      expect(await deliveryOf(sent.json.id)).toMatchObject({ state: 'accepted', downstream_status: 'sent', provider_message_id: twilio.messages[0]!.sid });
      expect(twilio.messages).toHaveLength(1);
    });
  });

  describe('telnyx', () => {
    const telnyxAccount = (a: ProviderAccountConfig): ProviderAccountConfig => ({
      ...a,
      kind: 'telnyx',
      base_url: telnyx!.url,
      settings: { api_key: TELNYX_API_KEY, from: TELNYX_FROM, public_key: telnyx!.publicKey },
      ambiguity_policy: 'resend_same_key',
      capabilities: { lookup: false, dedupes_by_key: true },
    });

    it('a signed webhook moves the downstream status; a forged one is 401 and changes nothing', async () => {
      telnyx = await startTelnyxFake({ apiKey: TELNYX_API_KEY, numbers: [TELNYX_FROM] });
      await start(telnyxAccount);
      const sent = await h!.send(otpBody());
      await h!.worker.drain();
      const [message] = telnyx.messages;
      expect(await deliveryOf(sent.json.id)).toMatchObject({ state: 'accepted', provider_message_id: message!.id });
      expect(message!.payload).toMatchObject({ webhook_url: `${h!.config.public_url}/v1/callbacks/sandbox-sms`, use_profile_webhooks: false });

      expect(await telnyx.postWebhook(message!.id, 'message.sent', 'sent', { deliverTo: listening })).toBe(200);
      expect(await telnyx.postWebhook(message!.id, 'message.finalized', 'delivered', { deliverTo: listening })).toBe(200);
      await h!.evidence.runOnce();
      expect(await deliveryOf(sent.json.id)).toMatchObject({ state: 'accepted', downstream_status: 'delivered' });

      const genuine = telnyx.webhook(message!.id, 'message.finalized', 'delivery_failed');
      const stranger = telnyxKeyPair();
      const r = await fetch(new URL('/v1/callbacks/sandbox-sms', listening), {
        method: 'POST',
        headers: signTelnyxWebhook(stranger.privateKey, genuine.rawBody, Math.floor(Date.now() / 1000)),
        body: genuine.rawBody,
      });
      expect(r.status).toBe(401);
      const stale = telnyx.webhook(message!.id, 'message.finalized', 'delivery_failed', { atMs: Date.now() - 600_000 });
      const s = await fetch(new URL('/v1/callbacks/sandbox-sms', listening), { method: 'POST', headers: stale.headers, body: stale.rawBody });
      expect(s.status).toBe(401);
      await h!.evidence.runOnce();
      expect(await deliveryOf(sent.json.id)).toMatchObject({ state: 'accepted', downstream_status: 'delivered' });
    });

    it('an unknown submission is resent with the same key and Telnyx answers from its record: one message', async () => {
      telnyx = await startTelnyxFake({ apiKey: TELNYX_API_KEY, numbers: [TELNYX_FROM] });
      await start(telnyxAccount);
      await telnyx.script({ kind: 'reset_after_write' });
      const sent = await h!.send(otpBody());
      await h!.worker.drain();
      expect((await deliveryOf(sent.json.id)).state).toBe('unknown');
      expect(await h!.reconciler.runOnce()).toMatchObject({ resent: 1 });
      await h!.worker.drain();
      const d = await deliveryOf(sent.json.id);
      expect(d).toMatchObject({ state: 'accepted', provider_message_id: telnyx.messages[0]!.id });
      expect(d.attempts).toHaveLength(2);
      expect(telnyx.messages).toHaveLength(1);
      expect(telnyx.sends.map((x) => x.idempotencyKey)).toEqual([d.idempotency_key, d.idempotency_key]);
    });
  });
});
