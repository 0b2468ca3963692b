/**
 * The SMSGate app's own webhooks, against Herald's device API over a real socket, on both
 * drivers: `GET /settings` hands each device its signing key and `GET /webhooks` its endpoints on
 * a path only it knows; a call signed as the app signs (HMAC-SHA256 over body + X-Timestamp) is
 * taken once, however often it comes; a forged, stale or replayed one is refused and changes
 * nothing; an incoming STOP is stored sealed with its suppression and one `message.received`
 * event; a ping is a health sample; `sms:delivered` settles an offer whose PATCH report was lost.
 * A HELP gets exactly one reply and a STOP its one confirmation: an SMS delivery through the same
 * device and SIM, the account's text; the confirmation alone passes its STOP.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_KEYWORD_REPLIES, signPhoneWebhook } from '../../src/domain/index.js';
import { DRIVERS, type Harness } from '../helpers/harness.js';
import { ACCOUNT, deliveryOf, gatewayHarness, messageIdOf, phoneFor, sendSms, until } from './gateway-harness.js';

const UA = { 'user-agent': 'me.capcom.smsgateway/1.40.0' };

describe.each(DRIVERS)('phone-side webhooks on %s', (driver) => {
  let h: Harness;
  let base: string;
  beforeEach(async () => {
    h = await gatewayHarness(driver);
    base = `${h.apiUrl}/mobile/v1`;
  });
  afterEach(async () => {
    await h.close();
  });

  const get = async (path: string, token: string) => {
    const res = await fetch(`${base}${path}`, { headers: { ...UA, authorization: `Bearer ${token}` } });
    return { status: res.status, json: (await res.json()) as any };
  };
  /** A device registered with the private token, with its key and endpoint as the app would fetch them. */
  const device = async () => {
    const sim = phoneFor(h);
    const reg = await sim.register();
    const settings = await get('/settings', reg.token);
    const hooks = await get('/webhooks', reg.token);
    // The endpoints are on the configured public_url (the harness's is not where it listens): post to their path here.
    const url = `${h.apiUrl}${new URL(hooks.json[0].url as string).pathname}`;
    return { sim, reg, key: settings.json.webhooks.signing_key as string, url, hooks: hooks.json };
  };
  /** Posts an event as the app does: its JSON, X-Timestamp in seconds, X-Signature over both. */
  const post = async (url: string, key: string, body: unknown, opts: { at?: number; signature?: string } = {}) => {
    const text = JSON.stringify(body);
    const timestamp = String(Math.floor((opts.at ?? h.clock.now()) / 1000));
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...UA, 'content-type': 'application/json', 'x-timestamp': timestamp, 'x-signature': opts.signature ?? signPhoneWebhook(key, text, timestamp) },
      body: text,
    });
    return { status: res.status, json: (await res.json().catch(() => null)) as any };
  };
  const received = (deviceId: string, id: string, messageId: string, text: string) => ({
    id,
    webhookId: 'herald-sms-received',
    event: 'sms:received',
    deviceId,
    payload: {
      messageId,
      sender: '+14155550123',
      recipient: null,
      simNumber: 1,
      phoneNumber: '+14155550123',
      message: text,
      receivedAt: new Date(h.clock.now()).toISOString(),
    },
  });

  it('hands each device its own signing key, ping interval and endpoints on an unguessable path', async () => {
    const a = await device();
    const b = await device();
    expect((await get('/settings', a.reg.token)).json).toEqual({
      webhooks: { signing_key: expect.stringMatching(/^[\w-]{32}$/) },
      ping: { interval_seconds: 300 },
    });
    expect(a.key).not.toBe(b.key);
    expect(a.hooks.map((w: any) => w.event).sort()).toEqual([
      'mms:received',
      'sms:data-received',
      'sms:delivered',
      'sms:failed',
      'sms:received',
      'sms:sent',
      'system:ping',
    ]);
    for (const w of a.hooks) expect(w).toEqual({ id: expect.stringMatching(/^herald-/), url: a.hooks[0].url, event: w.event });
    expect(a.hooks[0].url).toMatch(new RegExp(`^http://127.0.0.1:8080/mobile/v1/webhooks/${a.reg.id}/[\\w-]{32}$`));
    expect(a.url.split('/').pop()).not.toBe(b.url.split('/').pop());
    expect((await fetch(`${base}/settings`)).status).toBe(401);
  });

  it('stores an incoming STOP once, sealed, suppressed, forwarded once, whatever the app repeats', async () => {
    const { reg, key, url } = await device();
    const stop = received(reg.id, 'evt-1', 'sms-1', ' Stop ');
    expect(await post(url, key, stop)).toMatchObject({ status: 200 });
    // The app's retry (same event, signed again later) and its known duplicate (a new event id).
    h.clock.advance(10_000);
    expect((await post(url, key, stop)).status).toBe(200);
    expect((await post(url, key, { ...stop, id: 'evt-2' })).status).toBe(200);
    const rows = await h.store.inbound.listInbound({ tenantId: 'default', limit: 10 });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      source: 'phone',
      deviceId: reg.id,
      providerAccount: ACCOUNT,
      sender: '+14155550123',
      content: ' Stop ',
      keyword: 'stop',
      simNumber: 1,
    });
    expect(rows[0]!.senderHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await h.store.inbound.keywordSuppressionsOf('default', ['+14155550123'])).toEqual([
      expect.objectContaining({ keyword: 'stop', inboundId: rows[0]!.id, providerAccount: ACCOUNT }),
    ]);
    const events = (await h.store.eventStream.readOutbox('default', 0, 100)).filter((e) => e.type === 'message.received');
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({ id: rows[0]!.id, from: '+14155550123', text: ' Stop ', keyword: 'stop', device_id: reg.id });

    // START lifts it.
    expect((await post(url, key, received(reg.id, 'evt-3', 'sms-2', 'start'))).status).toBe(200);
    expect(await h.store.inbound.keywordSuppressionsOf('default', ['+14155550123'])).toEqual([]);
  });

  it('a STOP from the phone stops the next SMS to that number at send time, whatever its purpose, and START lifts it', async () => {
    const { sim, reg, key, url } = await device();
    await sim.start();
    expect((await post(url, key, received(reg.id, 'evt-1', 'sms-1', 'STOP'))).status).toBe(200);
    const marketing = { purpose: 'marketing', content: { text: 'Spring sale' } };
    const stopped = [await sendSms(h, marketing), await sendSms(h)];
    await h.worker.runOnce(ACCOUNT);
    for (const id of stopped) {
      const d = await deliveryOf(h, id);
      expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'suppressed' });
      expect(d.attempts.at(-1)).toMatchObject({ error: { code: 'keyword_stop_before_send', message: 'not sent: the number replied STOP (START lifts it)' } });
    }
    // Nothing was offered to the phone for them.
    expect(await h.store.devices.currentOffer({ providerAccount: ACCOUNT, idempotencyKey: (await deliveryOf(h, stopped[0]!)).idempotency_key })).toBeNull();

    expect((await post(url, key, received(reg.id, 'evt-2', 'sms-2', 'Start'))).status).toBe(200);
    const after = await sendSms(h, marketing);
    await h.worker.runOnce(ACCOUNT);
    const messageId = await messageIdOf(h, after);
    await until(sim, () => expect(sim.message(messageId)?.state).toBe('Delivered'));
    await sim.close();
  });

  /** The automatic replies: the tenant's transactional deliveries (nothing else in these tests is transactional). */
  const replies = async () => {
    const r = await h.get('/v1/deliveries?purpose=transactional');
    expect(r.status).toBe(200);
    return Promise.all(
      (r.json.items as any[]).map(async (d) => {
        const n = await h.get(`/v1/notifications/${d.notification_id}`);
        return { ...n.json, delivery: n.json.deliveries[0] };
      }),
    );
  };

  it("answers a HELP with exactly one SMS through the same device and SIM, the account's text, whatever the app repeats", async () => {
    await h.close();
    h = await gatewayHarness(driver, { gateway: { keyword_replies: { help: 'Acme: reply STOP to stop.' } } });
    base = `${h.apiUrl}/mobile/v1`;
    const { sim, reg, key, url } = await device();
    await sim.start();
    const help = received(reg.id, 'evt-1', 'sms-1', 'Help');
    expect((await post(url, key, help)).status).toBe(200);
    // The app's retry of the event, and its duplicate under a new event id.
    expect((await post(url, key, help)).status).toBe(200);
    expect((await post(url, key, { ...help, id: 'evt-2' })).status).toBe(200);
    const [inbound] = await h.store.inbound.listInbound({ tenantId: 'default', limit: 10 });
    const [reply, ...more] = await replies();
    expect(more).toEqual([]);
    expect(reply).toMatchObject({
      purpose: 'transactional',
      metadata: { herald_reply_to_inbound: inbound!.id, herald_keyword: 'help', herald_device_id: reg.id, herald_sim_number: 1 },
      delivery: { provider_account: ACCOUNT, state: 'ready' },
    });
    await h.worker.runOnce(ACCOUNT);
    const messageId = await messageIdOf(h, reply!.id);
    await until(sim, () => expect(sim.message(messageId)?.state).toBe('Delivered'));
    expect(sim.message(messageId)!.phoneNumbers).toEqual(['+14155550123']);
    expect(sim.sends.find((x) => x.messageId === messageId)).toMatchObject({ length: 'Acme: reply STOP to stop.'.length, simNumber: 1 });
    // A message that is no keyword gets nothing.
    expect((await post(url, key, received(reg.id, 'evt-3', 'sms-2', 'thanks'))).status).toBe(200);
    expect(await replies()).toHaveLength(1);
    await sim.close();
  });

  it('confirms a STOP once, through its own suppression; a HELP answer still waiting is stopped with everything else', async () => {
    const { sim, reg, key, url } = await device();
    await sim.start();
    expect((await post(url, key, received(reg.id, 'evt-1', 'sms-1', 'HELP'))).status).toBe(200);
    // The STOP comes before the HELP answer is sent.
    const stop = received(reg.id, 'evt-2', 'sms-2', 'stop');
    expect((await post(url, key, stop)).status).toBe(200);
    expect((await post(url, key, { ...stop, id: 'evt-3' })).status).toBe(200);
    const marketing = await sendSms(h, { purpose: 'marketing', content: { text: 'Spring sale' } });
    const all = await replies();
    expect(all.map((r) => r.metadata.herald_keyword).sort()).toEqual(['help', 'stop']);
    const confirmation = all.find((r) => r.metadata.herald_keyword === 'stop')!;
    const helpAnswer = all.find((r) => r.metadata.herald_keyword === 'help')!;
    await h.worker.runOnce(ACCOUNT);
    const messageId = await messageIdOf(h, confirmation.id);
    await until(sim, () => expect(sim.message(messageId)?.state).toBe('Delivered'));
    expect(sim.sends.find((x) => x.messageId === messageId)?.length).toBe(DEFAULT_KEYWORD_REPLIES.stop.length);
    for (const id of [helpAnswer.id, marketing]) {
      const d = await deliveryOf(h, id);
      expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'suppressed' });
      expect(d.attempts.at(-1)).toMatchObject({ error: { code: 'keyword_stop_before_send' } });
    }
    expect(sim.sends.map((x) => x.messageId)).toEqual([messageId]);
    await sim.close();
  });

  it('refuses a forged, stale, replayed or misaddressed call and changes nothing', async () => {
    const { reg, key, url } = await device();
    const other = await device();
    const body = received(reg.id, 'evt-f', 'sms-f', 'STOP');
    expect((await post(url, 'not-the-key', body)).status).toBe(401);
    expect((await post(url, other.key, body)).status).toBe(401);
    expect((await post(url, key, body, { at: h.clock.now() - 301_000 })).status).toBe(401);
    // A captured call replayed after the window: its timestamp is signed, so it cannot be refreshed.
    const text = JSON.stringify(body);
    const ts = String(Math.floor(h.clock.now() / 1000));
    const signature = signPhoneWebhook(key, text, ts);
    h.clock.advance(400_000);
    const replay = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-timestamp': ts, 'x-signature': signature },
      body: text,
    });
    expect(replay.status).toBe(401);
    const fresh = String(Math.floor(h.clock.now() / 1000));
    const refreshed = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-timestamp': fresh, 'x-signature': signature },
      body: text,
    });
    expect(refreshed.status).toBe(401);
    // Another device's path, or a guessed token.
    expect((await post(other.url, key, body)).status).toBe(401);
    expect((await post(url.replace(/[\w-]{32}$/, 'x'.repeat(32)), key, body)).status).toBe(404);
    // Signed right, but for another device.
    expect((await post(other.url, other.key, body)).status).toBe(400);
    expect(await h.store.inbound.listInbound({ tenantId: 'default', limit: 10 })).toEqual([]);
    expect(await h.store.inbound.keywordSuppressionsOf('default', ['+14155550123'])).toEqual([]);
  });

  it('keeps a ping as a health sample, once', async () => {
    const { reg, key, url } = await device();
    const ping = {
      id: 'ping-1',
      webhookId: 'herald-system-ping',
      event: 'system:ping',
      deviceId: reg.id,
      payload: {
        health: {
          status: 'warn',
          version: '1.40.0',
          releaseId: 140,
          checks: {
            'battery:level': { status: 'warn', observedValue: 12, observedUnit: 'percent', description: '' },
            'battery:charging': { status: 'pass', observedValue: 0, observedUnit: 'flags', description: '' },
            'connection:status': { status: 'pass', observedValue: 1, observedUnit: 'boolean', description: '' },
          },
        },
      },
    };
    expect((await post(url, key, ping)).status).toBe(200);
    h.clock.advance(1_000);
    expect((await post(url, key, ping)).status).toBe(200);
    const history = await h.store.inbound.healthHistory(reg.id, 0);
    expect(history).toEqual([expect.objectContaining({ batteryPercent: 12, charging: false, internet: true, appVersion: '1.40.0' })]);
  });

  it('settles an offer by sms:sent and sms:delivered when its PATCH report was lost', async () => {
    const { sim, reg, key, url } = await device();
    sim.script({ kind: 'lose_reports' });
    await sim.start();
    const id = await sendSms(h);
    await h.worker.runOnce(ACCOUNT);
    const messageId = await messageIdOf(h, id);
    await until(sim, () => expect(sim.message(messageId)?.state).toBe('Delivered'));
    const state = (event: string, eventId: string, extra: Record<string, unknown>) => ({
      id: eventId,
      webhookId: `herald-${event}`,
      event,
      deviceId: reg.id,
      payload: { messageId, sender: null, recipient: '+14155550123', simNumber: 1, phoneNumber: '+14155550123', ...extra },
    });
    expect((await post(url, key, state('sms:sent', 's-1', { partsCount: 1, sentAt: new Date(h.clock.now()).toISOString() }))).status).toBe(200);
    expect((await post(url, key, state('sms:delivered', 's-2', { deliveredAt: new Date(h.clock.now()).toISOString() }))).status).toBe(200);
    await vi.waitFor(
      async () => {
        await h.devices!.reports.runOnce();
        expect(await deliveryOf(h, id)).toMatchObject({ state: 'accepted', downstream_status: 'delivered', provider_message_id: messageId });
      },
      { timeout: 5_000, interval: 20 },
    );
    await sim.close();
  });
});
