/**
 * Twilio's incoming-message webhook through a whole Herald, on both drivers: requests signed with
 * the official `twilio` package over the public URL Twilio was given, posted to a listening
 * Herald on another origin (as through a proxy). A STOP suppresses the next marketing SMS to the
 * number (terminal/suppressed, `keyword_stop_before_send`, nothing reaches Twilio); START lifts it
 * and the next one is sent; a forged signature is 401 and stores nothing; Twilio's retry of the
 * same MessageSid is stored once with one `message.received` event. HELP and STOP are answered
 * with one TwiML `<Message>` (the account's `keyword_replies`, else the default), and Twilio's
 * retry of the same message with nothing. A message reaches a customer endpoint subscribed to
 * `message.received` once, signed (Standard Webhooks), through the outbox relay and sender.
 */
import twilio from 'twilio';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_KEYWORD_REPLIES } from '../../../src/domain/index.js';
import type { ProviderAccountConfig } from '../../../src/providers/provider.js';
import { verifyWebhook } from '../../../src/signing/standard-webhooks.js';
import { hashApiKey } from '../../../src/tenants/api-keys.js';
import { createHarness, DRIVERS, type Harness } from '../../helpers/harness.js';
import { LOOPBACK, relayAndSendOnce, startReceiver } from '../../webhooks/receiver.js';
import { startTwilioFake, type TwilioFake } from '../fakes/twilio.js';
import { TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM } from './subject.js';

const ACCOUNT = 'sandbox-sms';
const PHONE = '+14155550123';

describe.each(DRIVERS)('Twilio incoming messages on %s', (driver) => {
  let h: Harness;
  let fake: TwilioFake;
  let listening: string;
  afterEach(async () => {
    await h?.close();
    await fake?.close();
  });

  const start = async (over: Partial<ProviderAccountConfig> = {}) => {
    fake = await startTwilioFake({ accountSid: TWILIO_ACCOUNT_SID, authToken: TWILIO_AUTH_TOKEN, numbers: [TWILIO_FROM] });
    const twilioAccount = (a: ProviderAccountConfig): ProviderAccountConfig => ({
      ...a,
      kind: 'twilio',
      base_url: fake.url,
      settings: { account_sid: TWILIO_ACCOUNT_SID, auth_token: TWILIO_AUTH_TOKEN, from: TWILIO_FROM },
      ambiguity_policy: 'wait_for_evidence',
      capabilities: { lookup: false, dedupes_by_key: false },
      ...over,
    });
    h = await createHarness({ driver, wallClock: true, webhookAllowNetworks: LOOPBACK, account: (a) => (a.id === ACCOUNT ? twilioAccount(a) : a) });
    listening = await h.app.listen({ host: '127.0.0.1', port: 0 });
    // The wall clock may fall in marketing's quiet hours, and two marketing SMS in a test are capped: off, for this test's tenant.
    const off = { quiet_hours: { marketing: null }, frequency_caps: { marketing: null } };
    const put = await h.app.inject({ method: 'PUT', url: '/v1/scheduling', headers: { authorization: `Bearer ${h.apiKey}` }, payload: off });
    expect(put.statusCode, put.body).toBe(200);
  };

  /** Posts an incoming SMS as Twilio does: form-encoded, signed over the public URL it was configured with. */
  const inbound = async (sid: string, body: string, opts: { authToken?: string } = {}) => {
    const path = `/v1/callbacks/${ACCOUNT}/inbound`;
    const params = {
      ToCountry: 'US',
      SmsMessageSid: sid,
      NumMedia: '0',
      MessageSid: sid,
      AccountSid: TWILIO_ACCOUNT_SID,
      From: PHONE,
      To: TWILIO_FROM,
      Body: body,
      NumSegments: '1',
      ApiVersion: '2010-04-01',
    };
    const signature = twilio.getExpectedTwilioSignature(opts.authToken ?? TWILIO_AUTH_TOKEN, `${h.config.public_url}${path}`, params);
    const res = await fetch(`${listening}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      body: new URLSearchParams(params).toString(),
    });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };
  const marketing = async () => {
    const r = await h.send({
      recipient: { id: `user-${Math.random().toString(36).slice(2, 10)}`, phone: PHONE },
      purpose: 'marketing',
      channels: ['sms'],
      content: { text: 'Spring sale' },
      ttl_seconds: 600,
    });
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    await h.worker.drain();
    return (await h.get(`/v1/notifications/${r.json.id}`)).json.deliveries[0];
  };
  const answering = (text: string) => `<?xml version="1.0" encoding="UTF-8"?><Response><Message>${text}</Message></Response>`;
  const receivedEvents = async () => (await h.store.eventStream.readOutbox('default', 0, 100)).filter((e) => e.type === 'message.received');

  it('STOP suppresses the next marketing SMS to the number; START lifts it', async () => {
    await start();
    const stop = await inbound('SM0000000000000000000000000000stop', 'Stop');
    // Its confirmation, once, from the same number: the default text.
    expect(stop).toEqual({ status: 200, type: expect.stringMatching(/^text\/xml/), text: answering(DEFAULT_KEYWORD_REPLIES.stop) });
    const [row] = await h.store.inbound.listInbound({ tenantId: 'default', limit: 10 });
    expect(row).toMatchObject({
      source: 'twilio',
      providerAccount: ACCOUNT,
      externalId: 'SM0000000000000000000000000000stop',
      sender: PHONE,
      content: 'Stop',
      keyword: 'stop',
    });
    expect(await h.store.inbound.keywordSuppressionsOf('default', [PHONE])).toEqual([
      expect.objectContaining({ keyword: 'stop', providerAccount: ACCOUNT, inboundId: row!.id }),
    ]);

    const stopped = await marketing();
    expect(stopped).toMatchObject({ state: 'terminal', terminal_reason: 'suppressed' });
    expect(stopped.attempts.at(-1)).toMatchObject({ error: { code: 'keyword_stop_before_send' } });
    expect(fake.messages).toHaveLength(0);

    // START gets no reply.
    expect((await inbound('SM000000000000000000000000000start', 'start')).text).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');
    expect(await h.store.inbound.keywordSuppressionsOf('default', [PHONE])).toEqual([]);
    const sent = await marketing();
    expect(sent).toMatchObject({ state: 'accepted' });
    expect(fake.messages.map((m) => m.params.To)).toEqual([PHONE]);
    // The START links to the last notification Herald sent that number on the account (the suppressed one).
    expect((await receivedEvents()).map((e) => e.payload)).toEqual([
      expect.objectContaining({ keyword: 'stop', from: PHONE, text: 'Stop', provider_account: ACCOUNT, device_id: null }),
      expect.objectContaining({ keyword: 'start', reply_to_notification_id: stopped.notification_id }),
    ]);
  });

  it("HELP gets exactly one reply, the account's text; Twilio's retry of it gets none; an empty text sends none", async () => {
    await start({ keyword_replies: { help: 'Acme alerts: reply STOP to stop. Help: acme.example/help & more', stop: '' } });
    const sid = 'SM000000000000000000000000000help';
    const help = await inbound(sid, ' help ');
    expect(help).toEqual({
      status: 200,
      type: expect.stringMatching(/^text\/xml/),
      text: answering('Acme alerts: reply STOP to stop. Help: acme.example/help &amp; more'),
    });
    expect((await inbound(sid, ' help ')).text).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');
    expect(await h.store.inbound.listInbound({ tenantId: 'default', limit: 10 })).toEqual([expect.objectContaining({ keyword: 'help' })]);
    // HELP suppresses nothing.
    expect(await h.store.inbound.keywordSuppressionsOf('default', [PHONE])).toEqual([]);
    // This account's STOP confirmation is turned off (Twilio's own opt-out handling sends one).
    expect((await inbound('SM0000000000000000000000000000stop', 'STOP')).text).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');
    expect(await h.store.inbound.keywordSuppressionsOf('default', [PHONE])).toHaveLength(1);
    // Nothing was sent through the API: the replies are the webhook's answers.
    expect(fake.messages).toHaveLength(0);
  });

  it('message.received reaches a customer endpoint, signed, once', async () => {
    await start();
    const receiver = await startReceiver();
    try {
      const hook = await h.app.inject({
        method: 'POST',
        url: '/v1/webhooks',
        headers: { authorization: `Bearer ${h.apiKey}` },
        payload: { url: receiver.url, event_types: ['message.received'] },
      });
      expect(hook.statusCode, hook.body).toBe(201);
      const secret = hook.json().secret as string;
      const sid = 'SM0000000000000000000000000000hook';
      expect((await inbound(sid, 'Is my order on its way?')).status).toBe(200);
      expect((await inbound(sid, 'Is my order on its way?')).status).toBe(200);
      await relayAndSendOnce(h.store, h.clock);
      expect(receiver.delivered).toHaveLength(1);
      const r = receiver.delivered[0]!;
      expect(verifyWebhook([secret], r.headers, r.body, h.clock.now())).toMatchObject({ ok: true });
      const [row] = await h.store.inbound.listInbound({ tenantId: 'default', limit: 10 });
      expect(JSON.parse(r.body)).toMatchObject({
        type: 'message.received',
        data: { id: row!.id, provider_account: ACCOUNT, from: PHONE, text: 'Is my order on its way?', keyword: null, device_id: null },
      });
    } finally {
      await receiver.close();
    }
  });

  it('a forged signature is 401 and stores nothing', async () => {
    await start();
    const forged = await inbound('SM00000000000000000000000000forged', 'STOP', { authToken: 'not-the-auth-token' });
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.text)).toMatchObject({ code: 'callback_signature_invalid' });
    expect(await h.store.inbound.listInbound({ tenantId: 'default', limit: 10 })).toEqual([]);
    expect(await h.store.inbound.keywordSuppressionsOf('default', [PHONE])).toEqual([]);
    expect(await receivedEvents()).toEqual([]);
    const d = await marketing();
    expect(d.state, JSON.stringify(d)).toBe('accepted');
  });

  it("Twilio's retry of the same MessageSid is stored once, with one message.received event", async () => {
    await start();
    const sid = 'SM00000000000000000000000000000dup';
    expect((await inbound(sid, 'Hello there')).status).toBe(200);
    const again = await inbound(sid, 'Hello there');
    expect(again).toMatchObject({ status: 200, text: '<?xml version="1.0" encoding="UTF-8"?><Response/>' });
    const rows = await h.store.inbound.listInbound({ tenantId: 'default', limit: 10 });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ content: 'Hello there', keyword: null });
    expect(await receivedEvents()).toHaveLength(1);
  });

  it('on an account two tenants share, a reply belongs to the tenant that last texted the number, else to the default tenant', async () => {
    await start();
    const now = Date.now();
    await h.store.ensureTenant({ id: 'acme', name: 'Acme' }, now);
    await h.store.createApiKey({ id: 'key_acme', tenantId: 'acme', keyHash: hashApiKey('acme-key-0123456789'), label: 'acme', now });
    for (const tenant of ['acme', h.tenantId]) expect(await h.store.tenants.assignAccount(tenant, ACCOUNT, now)).toEqual({ ok: true });
    // Nobody has texted the number: the default tenant's.
    expect((await inbound('SM0000000000000000000000000000000a', 'Hi')).status).toBe(200);
    expect(await h.store.inbound.listInbound({ tenantId: 'default', limit: 10 })).toHaveLength(1);
    // Acme texts it; its STOP is Acme's, and suppresses nothing of the default tenant's.
    const sent = await h.app.inject({
      method: 'POST',
      url: '/v1/notifications',
      headers: { authorization: 'Bearer acme-key-0123456789' },
      payload: { recipient: { id: 'acme-user', phone: PHONE }, purpose: 'otp', channels: ['sms'], content: { text: 'Your code is 123456' }, ttl_seconds: 600 },
    });
    expect(sent.statusCode, sent.body).toBe(202);
    await h.worker.drain();
    expect((await inbound('SM0000000000000000000000000000000b', 'STOP')).status).toBe(200);
    expect(await h.store.inbound.listInbound({ tenantId: 'acme', limit: 10 })).toEqual([
      expect.objectContaining({ keyword: 'stop', replyToNotificationId: sent.json().id }),
    ]);
    expect(await h.store.inbound.keywordSuppressionsOf('acme', [PHONE])).toHaveLength(1);
    expect(await h.store.inbound.keywordSuppressionsOf('default', [PHONE])).toEqual([]);
  });
});
