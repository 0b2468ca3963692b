/**
 * The device gauges and the phone's downstream signals through the real gateway, on both
 * drivers: a simulated phone registers, pulls, sends and reports; GET /metrics counts it online,
 * then away once it has been silent longer than devices.away_after_seconds, and counts its
 * report as a downstream signal; GET /v1/stats counts the delivery as confirmed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PhoneSim } from '../../src/devices/phone-sim.js';
import { DRIVERS, type Harness } from '../helpers/harness.js';
import { ACCOUNT, deliveryOf, gatewayHarness, messageIdOf, phoneFor, sendSms, until } from '../devices/gateway-harness.js';
import { parseExposition, type Family } from './exposition.js';

const AWAY_S = 120;

async function scrape(h: Harness): Promise<Map<string, Family>> {
  const r = await h.app.inject({ method: 'GET', url: '/metrics' });
  expect(r.statusCode, r.body).toBe(200);
  return parseExposition(r.body);
}
const value = (m: Map<string, Family>, name: string, labels: Record<string, string>) =>
  m.get(name)!.samples.find((s) => JSON.stringify(Object.entries(s.labels).sort()) === JSON.stringify(Object.entries(labels).sort()))?.value;

describe.each(DRIVERS)('gateway gauges on %s', (driver) => {
  let h: Harness;
  let sim: PhoneSim | null = null;
  afterEach(async () => {
    await sim?.close();
    sim = null;
    await h?.close();
  });

  it('a reporting phone is online, its report a downstream signal; silent past the threshold it is away, and how long', async () => {
    h = await gatewayHarness(driver, { metrics: { cacheMs: 0 }, devices: { away_after_seconds: AWAY_S } });
    sim = phoneFor(h);
    await sim.start();
    const id = await sendSms(h);
    expect((await h.worker.runOnce(ACCOUNT)).claimed).toBe(1);
    const messageId = await messageIdOf(h, id);
    await until(sim, () => expect(sim!.message(messageId)?.state).toBe('Delivered'));
    expect(await h.devices!.reports.runOnce()).toMatchObject({ applied: 1 });
    expect((await deliveryOf(h, id)).downstream_status).toBe('delivered');
    const device = sim.registration!.id;

    let m = await scrape(h);
    expect(value(m, 'herald_devices', { status: 'online' })).toBe(1);
    expect(value(m, 'herald_devices', { status: 'offline' })).toBe(0);
    expect(value(m, 'herald_device_away_seconds', { device })).toBe(0);
    expect(value(m, 'herald_device_away_threshold_seconds', { device })).toBe(AWAY_S);
    expect(value(m, 'herald_downstream_signals_total', { channel: 'sms', status: 'delivered' })).toBe(1);
    // The phone's report confirmed it: in the stats series, once.
    const stats = (await h.get('/v1/stats')).json;
    expect(stats.series.points.reduce((n: number, p: { confirmed: number }) => n + p.confirmed, 0)).toBe(1);

    await sim.close();
    sim = null;
    const lastSeenAt = (await h.store.devices.getDevice(device))!.lastSeenAt;
    h.clock.set(lastSeenAt + AWAY_S * 1000);
    expect(value(await scrape(h), 'herald_devices', { status: 'online' })).toBe(1);
    h.clock.set(lastSeenAt + AWAY_S * 1000 + 1_500);
    m = await scrape(h);
    expect(value(m, 'herald_devices', { status: 'offline' })).toBe(1);
    expect(value(m, 'herald_devices', { status: 'online' })).toBe(0);
    expect(value(m, 'herald_device_away_seconds', { device })).toBe(AWAY_S + 1.5);
  });
});
