/**
 * The device API answers as the reference server does, over a real socket: registration with the
 * private token, a login or a one-time code; `{message}` errors (401 makes the app register
 * again); bodies validated whole before anything is written; the pulled message in the shape the
 * app parses; SSE framing, several connections per device, keep-alives that count as presence.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DRIVERS, type Harness } from '../helpers/harness.js';
import { ACCOUNT, gatewayHarness, PHONE_TOKEN, phoneFor, sendSms, until } from './gateway-harness.js';

/** The app's Gson date pattern `yyyy-MM-dd'T'HH:mm:ss.SSSXXX`, as Date.toISOString() writes it. */
const GSON_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(Z|[+-]\d{2}:\d{2})$/;
const UA = { 'user-agent': 'me.capcom.smsgateway/1.40.0' };

describe.each(DRIVERS)('device API on %s', (driver) => {
  let h: Harness;
  let base: string;
  beforeEach(async () => {
    h = await gatewayHarness(driver);
    base = `${h.apiUrl}/mobile/v1`;
  });
  afterEach(async () => {
    await h.close();
  });

  const call = async (method: string, path: string, opts: { auth?: string; body?: unknown } = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...UA, ...(opts.auth ? { authorization: opts.auth } : {}), ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(opts.body === undefined ? {} : { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
  const register = (
    auth = `Bearer ${PHONE_TOKEN}`,
    body: unknown = {
      name: 'Google/sdk_gphone64',
      pushToken: null,
      simCards: [{ slotIndex: 0, simNumber: 1, phoneNumber: '+15550001234', carrierName: 'Carrier', iccid: null }],
    },
  ) => call('POST', '/device', { auth, body });
  const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

  it('registers with the private token: a device id of 21 characters, a token, a login and its password; SIM numbers masked', async () => {
    const r = await register();
    expect(r.status).toBe(201);
    expect(r.json).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{21}$/),
      token: expect.any(String),
      login: expect.stringMatching(/^[A-Z0-9]{6}$/),
      password: expect.stringMatching(/^[a-z0-9]{16}$/),
    });
    const d = await h.store.devices.getDevice(r.json.id);
    expect(d).toMatchObject({ providerAccount: ACCOUNT, tenantId: 'default', name: 'Google/sdk_gphone64', appVersion: '1.40.0' });
    expect(d!.simCards).toEqual([{ slotIndex: 0, simNumber: 1, phoneNumber: '********1234', carrierName: '***rier', iccid: null }]);
  });

  it('refuses a wrong or missing registration secret with 401 {message} and writes nothing', async () => {
    for (const auth of [undefined, 'Bearer wrong-token-wrong-token', 'Basic bm9ib2R5Om5vdGhpbmc=', 'Code 123456']) {
      const r = await call('POST', '/device', { ...(auth ? { auth } : {}), body: { name: 'x', pushToken: null } });
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ message: 'Unauthorized' });
    }
    expect(await h.store.devices.listDevices({})).toEqual([]);
  });

  it('refuses a malformed registration with 400 {message} and writes nothing', async () => {
    for (const body of ['not json', [], { name: 7 }, { pushToken: null, simCards: [{ slotIndex: 0, simNumber: 9 }] }]) {
      const r = await register(`Bearer ${PHONE_TOKEN}`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json).toEqual({ message: expect.any(String) });
    }
    expect(await h.store.devices.listDevices({})).toEqual([]);
  });

  it('a second phone joins the same login with login and password, or with a one-time code (once)', async () => {
    const first = (await register()).json;
    const withLogin = await register(basic(first.login, first.password));
    expect(withLogin.status).toBe(201);
    expect(withLogin.json).toEqual({ id: expect.any(String), token: expect.any(String), login: first.login });
    expect((await register(basic(first.login, 'wrong-password!'))).status).toBe(401);
    const code = await call('GET', '/user/code', { auth: basic(first.login, first.password) });
    expect(code.status).toBe(200);
    expect(code.json).toEqual({ code: expect.stringMatching(/^\d{6}$/), validUntil: expect.stringMatching(GSON_DATE) });
    expect((await register(`Code ${code.json.code}`)).status).toBe(201);
    expect((await register(`Code ${code.json.code}`)).status).toBe(401);
    expect((await h.store.devices.listDevices({ providerAccount: ACCOUNT })).map((d) => d.login)).toEqual([first.login, first.login, first.login]);
  });

  it('PATCH /device: 204, 403 for another id, 400 for a bad body, 401 for an unknown token (the app then registers again)', async () => {
    const { id, token } = (await register()).json;
    const auth = `Bearer ${token}`;
    expect((await call('PATCH', '/device', { auth, body: { id, pushToken: null, simCards: [] } })).status).toBe(204);
    expect((await h.store.devices.getDevice(id))!.simCards).toEqual([]);
    expect((await call('PATCH', '/device', { auth, body: { id: 'someone-else', pushToken: null, simCards: null } })).status).toBe(403);
    expect((await call('PATCH', '/device', { auth, body: { pushToken: null } })).status).toBe(400);
    const unknown = await call('PATCH', '/device', { auth: 'Bearer not-a-device-token', body: { id, pushToken: null, simCards: null } });
    expect(unknown).toMatchObject({ status: 401, json: { message: 'Unauthorized' } });
    // GET /device answers without a token too: the app reads only externalIp.
    expect((await call('GET', '/device')).json).toEqual({ externalIp: '127.0.0.1' });
    expect((await call('GET', '/device', { auth })).json).toMatchObject({ externalIp: '127.0.0.1', device: { id } });
    // The phone's own webhooks (test/devices/phone-webhooks.test.ts): its key, its endpoints.
    expect(await call('GET', '/settings', { auth })).toMatchObject({ status: 200, json: { webhooks: { signing_key: expect.any(String) } } });
    expect(await call('GET', '/webhooks', { auth })).toMatchObject({
      status: 200,
      json: expect.arrayContaining([expect.objectContaining({ event: 'sms:received' })]),
    });
    expect((await call('GET', '/settings')).status).toBe(401);
    expect(await call('GET', '/nothing-here', { auth })).toMatchObject({ status: 404, json: { message: expect.any(String) } });
  });

  it('GET /message: the offers in the shape the app parses, each once; 401 without a token, 400 for a bad order', async () => {
    const { id, token } = (await register()).json;
    const auth = `Bearer ${token}`;
    await sendSms(h, { purpose: 'otp' });
    await sendSms(h, { purpose: 'transactional' });
    await h.worker.runOnce(ACCOUNT);
    expect((await call('GET', '/message')).status).toBe(401);
    expect((await call('GET', '/message?order=random', { auth })).status).toBe(400);
    const pulled = await call('GET', '/message?order=fifo', { auth });
    expect(pulled.status).toBe(200);
    expect(pulled.json).toHaveLength(2);
    const [code, receipt] = pulled.json;
    expect(code).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{28}-1$/),
      message: 'Your code is 123456',
      textMessage: { text: 'Your code is 123456' },
      phoneNumbers: ['+14155550123'],
      withDeliveryReport: true,
      isEncrypted: false,
      // Codes skip the phone's own delays: Herald paces them in their lane.
      priority: 100,
      validUntil: expect.stringMatching(GSON_DATE),
      state: 'Pending',
      createdAt: expect.stringMatching(GSON_DATE),
    });
    expect(receipt.priority).toBe(0);
    expect((await call('GET', '/messages', { auth })).json).toEqual([]);
    expect(await h.store.devices.listDeviceMessages(id, { state: 'pulled' }, null, 10)).toHaveLength(2);
  });

  it('GET /message hands out at most 100 at a time', async () => {
    const { token } = (await register()).json;
    for (let i = 0; i < 101; i++) await sendSms(h, { purpose: 'transactional' });
    await h.worker.drain();
    // The harness's phone takes a burst of 100: the 101st waits for its pace (a minute covers it).
    h.clock.advance(60_000);
    await h.worker.drain();
    expect((await call('GET', '/message', { auth: `Bearer ${token}` })).json).toHaveLength(100);
    expect((await call('GET', '/message', { auth: `Bearer ${token}` })).json).toHaveLength(1);
  });

  it('PATCH /message: a body is validated whole (one bad item: nothing recorded); unknown ids are skipped with 204', async () => {
    const { id, token } = (await register()).json;
    const auth = `Bearer ${token}`;
    await sendSms(h);
    await h.worker.runOnce(ACCOUNT);
    const [m] = (await call('GET', '/message', { auth })).json;
    const item = (state: string, states: Record<string, string> = {}) => ({ id: m.id, state, recipients: [{ phoneNumber: '+14155550123', state }], states });
    const bad = await call('PATCH', '/message', { auth, body: [item('Processed'), { ...item('Sent'), state: 'Teleported' }] });
    expect(bad).toMatchObject({ status: 400, json: { message: expect.stringContaining('state') } });
    expect((await h.store.devices.listDeviceMessages(id, {}, null, 10))[0]).toMatchObject({ state: 'pulled', phoneState: null });
    for (const body of [
      {},
      [{ ...item('Sent'), recipients: [] }],
      [{ ...item('Sent'), states: { Sent: 'yesterday' } }],
      [{ ...item('Sent'), states: { Nope: '2026-11-29T12:00:00.000Z' } }],
    ]) {
      expect((await call('PATCH', '/message', { auth, body })).status, JSON.stringify(body)).toBe(400);
    }
    // The app's dates carry the phone's UTC offset.
    const ok = await call('PATCH', '/message', {
      auth,
      body: [
        item('Sent', { Pending: '2026-11-29T14:00:00.000+02:00', Processed: '2026-11-29T14:00:01.000+02:00', Sent: '2026-11-29T14:00:02.000+02:00' }),
        { ...item('Sent'), id: 'not-a-message-of-ours' },
      ],
    });
    expect(ok.status).toBe(204);
    expect((await h.store.devices.listDeviceMessages(id, {}, null, 10))[0]).toMatchObject({ state: 'reported', phoneState: 'Sent', sent: true });
  });

  it('PATCH /user/password: at least 14 characters, 401 for a wrong current password; the new one logs in', async () => {
    const { token, login, password } = (await register()).json;
    const auth = `Bearer ${token}`;
    expect((await call('PATCH', '/user/password', { auth, body: { currentPassword: password, newPassword: 'short' } })).status).toBe(400);
    expect((await call('PATCH', '/user/password', { auth, body: { currentPassword: 'not-the-password', newPassword: 'a-new-password-123' } })).status).toBe(
      401,
    );
    expect((await call('PATCH', '/user/password', { auth, body: { currentPassword: password, newPassword: 'a-new-password-123' } })).status).toBe(204);
    expect((await call('GET', '/user/code', { auth: basic(login, 'a-new-password-123') })).status).toBe(200);
    expect((await call('GET', '/user/code', { auth: basic(login, password) })).status).toBe(401);
  });

  it('SSE: event-stream framing, MessageEnqueued on every connection of the device, keep-alives that count as presence', async () => {
    const a = phoneFor(h);
    await a.start();
    // A second connection of the same device (the app may hold several).
    const raw = await fetch(`${base}/events`, { headers: { ...UA, authorization: `Bearer ${a.registration!.token}` } });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toBe('text/event-stream');
    expect(raw.headers.get('cache-control')).toBe('no-cache');
    const reader = raw.body!.getReader();
    const seen: string[] = [];
    const reading = (async () => {
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        seen.push(decoder.decode(value));
      }
    })().catch(() => {});
    await sendSms(h);
    await h.worker.runOnce(ACCOUNT);
    await until(a, () => expect(seen.join('')).toContain('event: MessageEnqueued\ndata: null\n\n'));
    expect(a.events).toContain('MessageEnqueued');
    expect(h.devices!.hub.connected(a.registration!.id)).toBe(2);
    // Keep-alives (1 s in this harness) mark the device seen at the clock's time.
    h.clock.advance(30_000);
    await until(a, async () => {
      expect(seen.join('')).toContain(':keepalive\n\n');
      expect((await h.store.devices.getDevice(a.registration!.id))!.lastSeenAt).toBe(h.clock.now());
    });
    await reader.cancel();
    await reading;
    await a.close();
  });
});
