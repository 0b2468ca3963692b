/**
 * SMSGate's third-party API on Herald, driven by the official `android-sms-gateway` client
 * unchanged (only its base URL points at Herald): it sends through a simulated phone, reads the
 * message's state back as it moves to Delivered, and lists the devices. A second send with the
 * same message id sends nothing new; wrong credentials and bad bodies answer as SMSGate does.
 * The loose ends of issue 25: a validUntil already past is refused ("TTL expired") and nothing
 * is sent; any valid key works as the Basic password (a HERALD_BOOTSTRAP_KEY of any shape too);
 * /health answers the official client, which sends its credentials; a known id with other
 * content is 409 "duplicate id", as the reference server answers, also for concurrent repeats;
 * `simNumber` and `withDeliveryReport` reach the phone's offer, the SIM within Herald's SIM pacing.
 */
import smsgate from 'android-sms-gateway';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureBootstrapKey } from '../../src/cli/bootstrap-key.js';
import type { PhoneSim } from '../../src/devices/phone-sim.js';
import { DRIVERS, type Harness } from '../helpers/harness.js';
import { ACCOUNT, gatewayHarness, phoneFor, until } from './gateway-harness.js';

// The package ships ESM syntax without "type": "module": TypeScript reads it as CommonJS, whose
// default export is `.default`; at run time the test runner hands over the class itself.
const Client = ((smsgate as unknown as { default?: typeof smsgate.default }).default ?? smsgate) as typeof smsgate.default;

/** The fetch-based HTTP client from the package's README. */
const json = async <T>(r: Promise<Response>): Promise<T> => (await (await r).json()) as T;
const httpFetchClient = {
  get: <T>(url: string, headers?: Record<string, string>) => json<T>(fetch(url, { method: 'GET', ...(headers ? { headers } : {}) })),
  post: <T>(url: string, body: unknown, headers?: Record<string, string>) =>
    json<T>(fetch(url, { method: 'POST', ...(headers ? { headers } : {}), body: JSON.stringify(body) })),
  put: <T>(url: string, body: unknown, headers?: Record<string, string>) =>
    json<T>(fetch(url, { method: 'PUT', ...(headers ? { headers } : {}), body: JSON.stringify(body) })),
  patch: <T>(url: string, body: unknown, headers?: Record<string, string>) =>
    json<T>(fetch(url, { method: 'PATCH', ...(headers ? { headers } : {}), body: JSON.stringify(body) })),
  delete: <T>(url: string, headers?: Record<string, string>) => json<T>(fetch(url, { method: 'DELETE', ...(headers ? { headers } : {}) })),
};

describe.each(DRIVERS)('the SMSGate third-party API on %s', (driver) => {
  let h: Harness;
  let sim: PhoneSim | null = null;
  afterEach(async () => {
    await sim?.close();
    sim = null;
    await h?.close();
  });

  it('the official client sends through Herald and a phone, and reads the state back to Delivered', async () => {
    h = await gatewayHarness(driver);
    sim = phoneFor(h);
    await sim.start();
    const api = new Client('herald', h.apiKey, httpFetchClient, `${h.apiUrl}/3rdparty/v1`);
    const sent = await api.send({ id: 'order-42-code', message: 'Your code is 482913', phoneNumbers: ['+14155550123'] });
    expect(sent).toMatchObject({ id: 'order-42-code', state: 'Pending', recipients: [{ phoneNumber: '+14155550123', state: 'Pending' }] });
    // The same id again is the same message: nothing new is created.
    await api.send({ id: 'order-42-code', message: 'Your code is 482913', phoneNumbers: ['+14155550123'] });
    await h.worker.runOnce(ACCOUNT);
    await until(sim, () => expect(sim!.sends).toHaveLength(1));
    await h.devices!.reports.runOnce();
    const state = await api.getState('order-42-code');
    expect(state).toMatchObject({ id: 'order-42-code', state: 'Delivered', recipients: [{ phoneNumber: '+14155550123', state: 'Delivered' }] });
    const devices = await api.getDevices();
    expect(devices).toEqual([expect.objectContaining({ id: sim.registration!.id, name: expect.any(String), deletedAt: null })]);
    expect(sim.sends).toHaveLength(1);
  });

  it('answers as SMSGate does: 401 for credentials that are not a key, 400 for a bad body, 404 for an unknown id; nothing stored', async () => {
    h = await gatewayHarness(driver);
    const url = `${h.apiUrl}/3rdparty/v1`;
    const basic = (login: string, password: string) => ({
      authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`,
      'content-type': 'application/json',
    });
    const wrong = await fetch(`${url}/message`, {
      method: 'POST',
      headers: basic('herald', 'not-a-key'),
      body: JSON.stringify({ message: 'x', phoneNumbers: ['+14155550123'] }),
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ message: expect.stringContaining('Unauthorized') });
    const bad = await fetch(`${url}/message`, { method: 'POST', headers: basic('herald', h.apiKey), body: JSON.stringify({ message: 'x', phoneNumbers: [] }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ message: expect.stringContaining('Invalid request') });
    // A good number before a bad one: the whole message is refused, the good one not sent either.
    const badNumber = await fetch(`${url}/message`, {
      method: 'POST',
      headers: basic('herald', h.apiKey),
      body: JSON.stringify({ message: 'x', phoneNumbers: ['+14155550123', '12'] }),
    });
    expect(badNumber.status).toBe(400);
    expect(await badNumber.json()).toEqual({ message: 'Invalid request: phoneNumbers[1] must be a valid phone number in E.164 form' });
    const missing = await fetch(`${url}/message/nope`, { headers: basic('herald', h.apiKey) });
    expect(missing.status).toBe(404);
    const counts = await h.store.countByState();
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0);
  });

  const basic = (login: string, password: string) => ({
    authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`,
    'content-type': 'application/json',
  });

  it('a validUntil already past is refused as TTL expired: nothing stored, nothing offered to the phone', async () => {
    h = await gatewayHarness(driver);
    sim = phoneFor(h);
    await sim.start();
    const api = new Client('herald', h.apiKey, httpFetchClient, `${h.apiUrl}/3rdparty/v1`);
    const past = new Date(h.clock.now() - 60_000).toISOString();
    // The client's Message type has no validUntil; its send passes the body through as given.
    const late = { id: 'late-1', message: 'Your code is 482913', phoneNumbers: ['+14155550123'], validUntil: past };
    const answer = await api.send(late);
    expect(answer).toEqual({ message: 'Invalid request: validUntil is in the past (TTL expired)' });
    const r = await fetch(`${h.apiUrl}/3rdparty/v1/message`, {
      method: 'POST',
      headers: basic('herald', h.apiKey),
      body: JSON.stringify({ message: 'x', phoneNumbers: ['+14155550123'], validUntil: past }),
    });
    expect(r.status).toBe(400);
    await h.worker.runOnce(ACCOUNT);
    const counts = await h.store.countByState();
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0);
    expect(sim.sends).toEqual([]);
  });

  it('any valid key is the Basic password, a HERALD_BOOTSTRAP_KEY of its own shape too; /health answers the official client with it', async () => {
    h = await gatewayHarness(driver);
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-bootstrap-'));
    const saved = process.env.HERALD_BOOTSTRAP_KEY;
    process.env.HERALD_BOOTSTRAP_KEY = 'my-own.bootstrap_key~2026';
    try {
      await ensureBootstrapKey(h.store, dataDir, Date.now());
    } finally {
      if (saved === undefined) delete process.env.HERALD_BOOTSTRAP_KEY;
      else process.env.HERALD_BOOTSTRAP_KEY = saved;
      rmSync(dataDir, { recursive: true, force: true });
    }
    const key = 'my-own.bootstrap_key~2026';
    // The same key as a Bearer token on /v1 ...
    const v1 = await fetch(`${h.apiUrl}/v1/devices`, { headers: { authorization: `Bearer ${key}` } });
    expect(v1.status).toBe(200);
    // ... and as the official client's password on /3rdparty/v1.
    const api = new Client('herald', key, httpFetchClient, `${h.apiUrl}/3rdparty/v1`);
    expect(await api.getDevices()).toEqual([]);
    expect(await api.getHealth()).toMatchObject({ status: 'pass' });
    const sent = await api.send({ id: 'boot-1', message: 'hello', phoneNumbers: ['+14155550123'] });
    expect(sent).toMatchObject({ id: 'boot-1', state: 'Pending' });
    // Without credentials, or with a key nobody issued, /health is 401 like every route here (docs/security.md).
    expect((await fetch(`${h.apiUrl}/3rdparty/v1/health`)).status).toBe(401);
    expect((await fetch(`${h.apiUrl}/3rdparty/v1/health`, { headers: basic('herald', 'my-own.bootstrap_key~2027') })).status).toBe(401);
  });

  it('a known id with other content is 409 "duplicate id", as the reference server answers; the same content is the same message', async () => {
    h = await gatewayHarness(driver);
    const api = new Client('herald', h.apiKey, httpFetchClient, `${h.apiUrl}/3rdparty/v1`);
    const first = { id: 'order-7', message: 'Your order shipped', phoneNumbers: ['+14155550123'] };
    expect(await api.send(first)).toMatchObject({ id: 'order-7', state: 'Pending' });
    expect(await api.send(first)).toMatchObject({ id: 'order-7', state: 'Pending' });
    for (const other of [
      { ...first, phoneNumbers: ['+14155550123', '+14155550124'] },
      { ...first, phoneNumbers: ['+14155550124'] },
      { ...first, message: 'Your order was cancelled' },
    ]) {
      const r = await fetch(`${h.apiUrl}/3rdparty/v1/message`, { method: 'POST', headers: basic('herald', h.apiKey), body: JSON.stringify(other) });
      expect(r.status).toBe(409);
      expect(await r.json()).toEqual({ message: 'duplicate id' });
    }
    const counts = await h.store.countByState();
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(1);
    expect(await api.getState('order-7')).toMatchObject({ recipients: [{ phoneNumber: '+14155550123' }] });
  });

  it('simNumber and withDeliveryReport reach the phone as asked; the asked SIM is paced on its own rate', async () => {
    h = await gatewayHarness(driver, { settings: { device_rate_per_minute: 600, device_burst: 10, sim_rate_per_minute: 60, sim_burst: 1 } });
    sim = phoneFor(h, {
      simCards: [
        { slotIndex: 0, simNumber: 1 },
        { slotIndex: 1, simNumber: 2 },
      ],
    });
    await sim.start();
    const api = new Client('herald', h.apiKey, httpFetchClient, `${h.apiUrl}/3rdparty/v1`);
    // SIM 2, no delivery report.
    await api.send({ id: 'sim2-a', message: 'From SIM 2', phoneNumbers: ['+14155550123'], simNumber: 2, withDeliveryReport: false });
    await h.worker.runOnce(ACCOUNT);
    await until(sim, () => expect(sim!.sends).toHaveLength(1));
    expect(sim.sends[0]).toMatchObject({ simNumber: 2, withDeliveryReport: false });
    // SIM 2 again while its one permit is spent, and one with the app's defaults: a delivery
    // report, and the SIM Herald picks (SIM 1, the one with a permit left).
    await api.send({ id: 'sim2-b', message: 'From SIM 2 again', phoneNumbers: ['+14155550124'], simNumber: 2 });
    await api.send({ id: 'plain', message: 'Any SIM', phoneNumbers: ['+14155550125'] });
    await h.worker.runOnce(ACCOUNT);
    await until(sim, () => expect(sim!.sends).toHaveLength(2));
    expect(sim.sends[1]).toMatchObject({ simNumber: 1, withDeliveryReport: true });
    // SIM 2's rate holds the second SIM-2 message; it is never moved to SIM 1.
    const waiting = (await h.get('/v1/deliveries?state=retryable')).json.items;
    expect(waiting).toEqual([expect.objectContaining({ last_error_code: 'device_rate_limited' })]);
    h.clock.set(Date.parse(waiting[0].next_attempt_at));
    await h.worker.runOnce(ACCOUNT);
    await until(sim, () => expect(sim!.sends).toHaveLength(3));
    expect(sim.sends[2]).toMatchObject({ simNumber: 2, withDeliveryReport: true });
    // Without a delivery report the phone stops at Sent, and so does the message's state.
    await h.devices!.reports.runOnce();
    expect(await api.getState('sim2-a')).toMatchObject({ state: 'Sent' });
    expect(await api.getState('plain')).toMatchObject({ state: 'Delivered' });
  });

  it('concurrent repeats of one id: the same content is one message; other content gets "duplicate id", never Herald’s internal words', async () => {
    h = await gatewayHarness(driver);
    const post = (body: unknown) =>
      fetch(`${h.apiUrl}/3rdparty/v1/message`, { method: 'POST', headers: basic('herald', h.apiKey), body: JSON.stringify(body) }).then(async (r) => ({
        status: r.status,
        json: (await r.json()) as Record<string, unknown>,
      }));
    const same = { id: 'burst-1', message: 'Your code is 1234', phoneNumbers: ['+14155550123', '+14155550124'] };
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(same)));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(202));
    const mixed = await Promise.all(
      Array.from({ length: 6 }, (_, i) => post({ id: 'burst-2', message: `Your code is ${i}`, phoneNumbers: ['+14155550123', '+14155550124'] })),
    );
    for (const a of mixed) {
      if (a.status === 202) continue;
      expect(a).toEqual({ status: 409, json: { message: 'duplicate id' } });
    }
    expect(mixed.filter((a) => a.status === 202).length).toBeGreaterThanOrEqual(1);
    const counts = await h.store.countByState();
    // Two numbers for burst-1, two for burst-2: nothing doubled, nothing half-written.
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(4);
  });
});
