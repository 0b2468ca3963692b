/**
 * Per-device pacing, on both drivers: every worker of every process takes a phone's permits from
 * the same limiter rows, so two workers (the second on its own connection, as another process
 * would be) never give one phone more than its rate and burst allow; a phone at its pace throttles
 * only the delivery, never the account; codes keep their reserved lane on a phone too; and a
 * per-SIM rate picks the SIM.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { windowBound } from '../../src/domain/index.js';
import { GatewayAccounts } from '../../src/devices/gateway-accounts.js';
import { acquireDevicePermit } from '../../src/devices/device-pacing.js';
import type { PhoneSim } from '../../src/devices/phone-sim.js';
import { DRIVERS, type Harness } from '../helpers/harness.js';
import { ACCOUNT, deliveryOf, gatewayHarness, phoneFor, sendSms } from './gateway-harness.js';

describe.each(DRIVERS)('per-device pacing on %s', (driver) => {
  let h: Harness;
  let sims: PhoneSim[] = [];
  afterEach(async () => {
    for (const s of sims) await s.close();
    sims = [];
    await h?.close();
  });

  it('holds across workers: at most the burst at once, then the rate, whoever asks', async () => {
    // 60 per minute = 1 per second, burst 2.
    // The phone only registers (never calls again): a long away threshold keeps it online.
    h = await gatewayHarness(driver, { settings: { device_rate_per_minute: 60, device_burst: 2 }, devices: { away_after_seconds: 3_600 } });
    const sim = phoneFor(h);
    sims.push(sim);
    await sim.register();
    const peer = h.newWorker({ workerId: 'other-process', store: h.openPeerStore() });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await sendSms(h, { purpose: 'otp' }));
    // Both workers at the same instant, twice each: the phone gets its burst, no more.
    await Promise.all([h.worker.runOnce(ACCOUNT), peer.runOnce(ACCOUNT), h.worker.runOnce(ACCOUNT), peer.runOnce(ACCOUNT)]);
    const offeredAt = async () => (await h.store.devices.listDeviceMessages(sim.registration!.id, {}, null, 100)).map((m) => m.offeredAt);
    expect(await offeredAt()).toHaveLength(2);
    // The others were throttled for this phone alone: they wait on their ladder, the account does not.
    const held = await Promise.all(ids.map((id) => deliveryOf(h, id)));
    const throttled = held.filter((d) => d.state === 'retryable');
    expect(throttled).toHaveLength(10);
    for (const d of throttled) {
      expect(d.last_error_code).toBe('device_rate_limited');
      expect(d.attempts[0]).toMatchObject({ outcome: 'throttled' });
      // Not before the phone has a permit again (Retry-After is a lower bound).
      expect(Date.parse(d.next_attempt_at)).toBeGreaterThanOrEqual(h.clock.now() + 500);
    }
    // Three minutes of both workers asking every 250 ms, as the codes' ladder makes them due.
    for (let t = 0; t < 720; t++) {
      h.clock.advance(250);
      await Promise.all([h.worker.runOnce(ACCOUNT), peer.runOnce(ACCOUNT)]);
    }
    const times = (await offeredAt()).sort((a, b) => a - b);
    // Every code got through, and no window ever held more than the phone's bound.
    expect(times).toHaveLength(12);
    for (const [i, start] of times.entries()) {
      for (const windowMs of [1_000, 3_000, 5_000]) {
        const inWindow = times.slice(i).filter((x) => x < start + windowMs).length;
        expect(inWindow, `offers in ${windowMs} ms from ${start - times[0]!}`).toBeLessThanOrEqual(windowBound({ ratePerSecond: 1, burst: 2, windowMs }));
      }
    }
  });

  it('keeps the codes’ lane on a phone: bulk messages never take more than their share, codes still get through', async () => {
    h = await gatewayHarness(driver, { settings: { device_rate_per_minute: 60, device_burst: 1 } });
    const accounts = new GatewayAccounts(h.config.provider_accounts, { ...process.env });
    const g = accounts.get(ACCOUNT)!;
    // auth (otp, alert) keeps 20 %: bulk may use at most 80 % of the phone's rate.
    expect(g.deviceLimits.get('bulk')!.lane.ratePerSecond).toBeCloseTo(0.8);
    expect(g.deviceLimits.get('auth')!.lane.ratePerSecond).toBeCloseTo(1);
    const device = { id: 'dev_lanes', simCards: null };
    let bulk = 0;
    let auth = 0;
    // 20 s: bulk asks 4 times a second (always more than it may have), a code every 2 s.
    for (let t = 0; t < 20_000; t += 250) {
      if ((await acquireDevicePermit(h.store, g, device, 'bulk', h.clock.now() + t, 0)).granted) bulk++;
      if (t % 2_000 === 0 && (await acquireDevicePermit(h.store, g, device, 'auth', h.clock.now() + t, 0)).granted) auth++;
    }
    expect(bulk).toBeLessThanOrEqual(windowBound({ ratePerSecond: 0.8, burst: 1, windowMs: 20_000 }));
    expect(auth).toBeGreaterThanOrEqual(3);
    expect(bulk + auth).toBeLessThanOrEqual(windowBound({ ratePerSecond: 1, burst: 1, windowMs: 20_000 }));
  });

  it('with a per-SIM rate, Herald picks the SIM and spreads messages over both', async () => {
    h = await gatewayHarness(driver, { settings: { device_rate_per_minute: 600, device_burst: 10, sim_rate_per_minute: 60, sim_burst: 1 } });
    const sim = phoneFor(h, {
      simCards: [
        { slotIndex: 0, simNumber: 1 },
        { slotIndex: 1, simNumber: 2 },
      ],
    });
    sims.push(sim);
    await sim.register();
    for (let i = 0; i < 3; i++) await sendSms(h, { purpose: 'transactional' });
    await h.worker.runOnce(ACCOUNT);
    const offers = await h.store.devices.listDeviceMessages(sim.registration!.id, {}, null, 10);
    // One permit per SIM at once: two offered (one per SIM), the third waits for a SIM.
    expect(offers.map((o) => o.simNumber).sort()).toEqual([1, 2]);
    const waiting = (await h.get('/v1/deliveries?state=retryable')).json.items;
    expect(waiting).toHaveLength(1);
    expect(waiting[0].last_error_code).toBe('device_rate_limited');
  });
});
