/**
 * SMSGate's third-party API on Herald, driven by the official `android-sms-gateway` client
 * unchanged (only its base URL points at Herald): it sends through a simulated phone, reads the
 * message's state back as it moves to Delivered, and lists the devices. A second send with the
 * same message id sends nothing new; wrong credentials and bad bodies answer as SMSGate does.
 */
import smsgate from 'android-sms-gateway';
import { afterEach, describe, expect, it } from 'vitest';
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
});
