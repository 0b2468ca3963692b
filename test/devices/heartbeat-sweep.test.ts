/**
 * The heartbeat sweep, as issue 13's "done when" states it, on both drivers: a device is offline
 * for 5 minutes (injected clock) with three failed messages, two unknown ones and one expired;
 * when it returns, the three are retried (new offers, sent once each), the two are re-offered
 * under their ids and the phone reports their stored state without a second send, and the
 * expired one is not touched. The sweep is recorded and visible in the API.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PhoneSim } from '../../src/devices/phone-sim.js';
import { DRIVERS, type Harness } from '../helpers/harness.js';
import { ACCOUNT, deliveryOf, gatewayHarness, messageIdOf, MINUTE, phoneFor, sendSms, until } from './gateway-harness.js';

const NO_SERVICE = 'Send result: RESULT_ERROR_NO_SERVICE (Failed because service is currently unavailable)';

describe.each(DRIVERS)('heartbeat sweep on %s', (driver) => {
  let h: Harness;
  let sim: PhoneSim | null = null;
  afterEach(async () => {
    await sim?.close();
    sim = null;
    await h?.close();
  });

  /** Sends one SMS, offers it, and waits until the phone has done what it was scripted to. */
  async function offerOne(over: Record<string, unknown>, until: (messageId: string) => boolean): Promise<{ id: string; messageId: string }> {
    const id = await sendSms(h, over);
    expect((await h.worker.runOnce(ACCOUNT)).claimed).toBe(1);
    const messageId = await messageIdOf(h, id);
    await untilSim(() => expect(until(messageId)).toBe(true));
    return { id, messageId };
  }
  const untilSim = (check: () => void | Promise<void>) => until(sim!, check);

  it('retries the three failed, re-offers the two unknown under their ids without a second send, leaves the expired one alone', async () => {
    h = await gatewayHarness(driver);
    sim = phoneFor(h);
    await sim.start();
    const deviceId = sim.registration!.id;
    const failedState = (m: string) => sim!.message(m)?.state === 'Failed';

    // Three failed before sending (no service): two codes and a reminder.
    sim.script({ kind: 'fail', error: NO_SERVICE }, { kind: 'fail', error: NO_SERVICE }, { kind: 'fail', error: NO_SERVICE });
    const failed = [
      await offerOne({ purpose: 'otp', ttl_seconds: 900 }, failedState),
      await offerOne({ purpose: 'otp', ttl_seconds: 900 }, failedState),
      await offerOne({ purpose: 'transactional', ttl_seconds: 3_600 }, failedState),
    ];
    // One more code that fails the same way, but expires while the phone is away.
    sim.script({ kind: 'fail', error: NO_SERVICE });
    const expired = await offerOne({ purpose: 'otp', ttl_seconds: 120 }, failedState);
    // Two the phone sent, whose reports never reached Herald: unknown.
    sim.script({ kind: 'lose_reports' }, { kind: 'lose_reports' });
    const delivered = (m: string) => sim!.message(m)?.state === 'Delivered';
    const unknown = [
      await offerOne({ purpose: 'otp', ttl_seconds: 900 }, delivered),
      await offerOne({ purpose: 'transactional', ttl_seconds: 3_600 }, delivered),
    ];
    await h.devices!.reports.runOnce();
    for (const f of [...failed, expired]) expect(await deliveryOf(h, f.id)).toMatchObject({ state: 'retryable', last_error_code: 'phone_no_service' });
    for (const u of unknown) expect(await deliveryOf(h, u.id)).toMatchObject({ state: 'unknown' });
    expect(sim.sends.map((s) => s.messageId).sort()).toEqual(unknown.map((u) => u.messageId).sort());

    // Away for five minutes; meanwhile the code with a 2-minute life expires.
    const leftAt = h.clock.now();
    await sim.goOffline();
    h.clock.advance(5 * MINUTE);
    expect(await h.sweeper.runOnce()).toMatchObject({ expired: 1 });
    expect(await deliveryOf(h, expired.id)).toMatchObject({ state: 'terminal', terminal_reason: 'expired' });

    // Back: the SSE connection's call marks the return; the sweep runs.
    await sim.comeBack();
    await untilSim(async () => expect((await h.get(`/v1/devices/${deviceId}`)).json.sweep_pending).toBe(true));
    const pass = await h.devices!.sweep.runOnce();
    expect(pass.sweeps).toHaveLength(1);
    expect(pass.sweeps[0]).toMatchObject({ deviceId, cause: 'return', retried: 3, reoffered: 2, skippedExpired: 1, awaySince: leftAt });
    for (const f of failed) expect(await deliveryOf(h, f.id)).toMatchObject({ state: 'ready' });

    // The re-offers: the phone holds both ids and re-reports their stored state.
    await untilSim(async () => {
      for (const u of unknown) expect((await h.store.devices.getOfferByMessageId(u.messageId))?.state).toBe('reported');
    });
    // The retries: new offers (new ids), sent once each.
    expect((await h.worker.runOnce(ACCOUNT)).claimed).toBe(3);
    const retried = await Promise.all(failed.map((f) => messageIdOf(h, f.id)));
    for (const [i, m] of retried.entries()) expect(m).not.toBe(failed[i]!.messageId);
    await untilSim(() => expect(retried.every((m) => sim!.message(m)?.state === 'Delivered')).toBe(true));
    await h.devices!.reports.runOnce();

    for (const [i, f] of failed.entries()) {
      expect(await deliveryOf(h, f.id)).toMatchObject({ state: 'accepted', downstream_status: 'delivered', provider_message_id: retried[i] });
      expect(sim.sendCount(f.messageId)).toBe(0);
      expect(sim.sendCount(retried[i]!)).toBe(1);
    }
    for (const u of unknown) {
      expect(await deliveryOf(h, u.id)).toMatchObject({ state: 'accepted', downstream_status: 'delivered', provider_message_id: u.messageId });
      expect(sim.sendCount(u.messageId)).toBe(1);
    }
    // The expired one: not retried, not offered again, never sent.
    const e = await deliveryOf(h, expired.id);
    expect(e).toMatchObject({ state: 'terminal', terminal_reason: 'expired' });
    expect(e.attempts).toHaveLength(1);
    expect(sim.sendCount(expired.messageId)).toBe(0);
    expect(sim.sends).toHaveLength(5);

    // Recorded and visible: the sweep, and a replay per retried delivery.
    const sweeps = await h.get(`/v1/devices/${deviceId}/sweeps`);
    expect(sweeps.json.items).toEqual([
      expect.objectContaining({
        device_id: deviceId,
        cause: 'return',
        retried: 3,
        reoffered: 2,
        skipped_expired: 1,
        away_since: new Date(leftAt).toISOString(),
      }),
    ]);
    const replays = await h.store.review.listReplays(h.tenantId, (await deliveryOf(h, failed[0]!.id)).id);
    expect(replays).toEqual([expect.objectContaining({ requestedBy: 'heartbeat-sweep', fromState: 'retryable' })]);
    // Nothing is left to sweep.
    expect((await h.devices!.sweep.runOnce()).sweeps).toEqual([]);
  });

  it('retries a failed message whose retry offer was withdrawn unpulled while the phone was leaving', async () => {
    h = await gatewayHarness(driver);
    sim = phoneFor(h);
    await sim.start();
    const deviceId = sim.registration!.id;
    // A reminder the phone fails before sending (no service): retryable on its ladder.
    sim.script({ kind: 'fail', error: NO_SERVICE });
    const f = await offerOne({ purpose: 'transactional', ttl_seconds: 6 * 3_600 }, (m) => sim!.message(m)?.state === 'Failed');
    await h.devices!.reports.runOnce();
    const failedAt = await deliveryOf(h, f.id);
    expect(failedAt).toMatchObject({ state: 'retryable', last_error_code: 'phone_no_service' });

    // The phone leaves; Herald has not noticed yet (last seen seconds ago) and makes the retry offer.
    const leftAt = h.clock.now();
    await sim.goOffline();
    h.clock.set(Date.parse(failedAt.next_attempt_at));
    expect((await h.worker.runOnce(ACCOUNT)).claimed).toBe(1);
    const retryOffer = await messageIdOf(h, f.id);
    expect(retryOffer).not.toBe(f.messageId);
    // Never pulled: the reconciler withdraws it, and the delivery waits for its ladder again.
    h.clock.advance(2 * MINUTE);
    expect(await h.reconciler.runOnce()).toMatchObject({ notFoundByLookup: 1 });
    expect((await h.store.devices.getOfferByMessageId(retryOffer))?.state).toBe('withdrawn');
    expect(await deliveryOf(h, f.id)).toMatchObject({ state: 'retryable' });

    // Back after more than the away threshold: the sweep retries it like any other failed message.
    h.clock.advance(MINUTE);
    await sim.comeBack();
    await untilSim(async () => expect((await h.get(`/v1/devices/${deviceId}`)).json.sweep_pending).toBe(true));
    const pass = await h.devices!.sweep.runOnce();
    expect(pass.sweeps).toEqual([expect.objectContaining({ deviceId, cause: 'return', retried: 1, reoffered: 0, awaySince: leftAt })]);
    expect(await deliveryOf(h, f.id)).toMatchObject({ state: 'ready' });
    expect((await h.worker.runOnce(ACCOUNT)).claimed).toBe(1);
    const third = await messageIdOf(h, f.id);
    await untilSim(() => expect(sim!.message(third)?.state).toBe('Delivered'));
    await h.devices!.reports.runOnce();
    expect(await deliveryOf(h, f.id)).toMatchObject({ state: 'accepted', downstream_status: 'delivered', provider_message_id: third });
    expect(sim.sends.map((s) => s.messageId)).toEqual([third]);
  });

  it('retries a message the phone reported Failed whose report is recorded but not yet applied when the return sweep runs', async () => {
    // A returning phone flushes the reports it held back in the same moment its call marks the
    // return: the sweep and the report applier are poked together, and the sweep may run first.
    // Here the Failed report is recorded and the applier has not run (its loop is not started).
    h = await gatewayHarness(driver);
    sim = phoneFor(h);
    await sim.start();
    const deviceId = sim.registration!.id;
    sim.script({ kind: 'fail', error: NO_SERVICE });
    const id = await sendSms(h, { purpose: 'transactional', ttl_seconds: 6 * 3_600 });
    expect((await h.worker.runOnce(ACCOUNT)).claimed).toBe(1);
    const messageId = await messageIdOf(h, id);
    await untilSim(async () => expect((await h.store.devices.getOfferByMessageId(messageId))?.phoneState).toBe('Failed'));
    expect(await deliveryOf(h, id)).toMatchObject({ state: 'unknown' });

    const leftAt = h.clock.now();
    await sim.goOffline();
    h.clock.advance(5 * MINUTE);
    await sim.comeBack();
    await untilSim(async () => expect((await h.get(`/v1/devices/${deviceId}`)).json.sweep_pending).toBe(true));
    const pass = await h.devices!.sweep.runOnce();
    expect(pass.sweeps).toEqual([expect.objectContaining({ deviceId, cause: 'return', retried: 1, reoffered: 0, awaySince: leftAt })]);
    expect(await deliveryOf(h, id)).toMatchObject({ state: 'ready', last_error_code: 'phone_no_service' });
    const replays = await h.store.review.listReplays(h.tenantId, (await deliveryOf(h, id)).id);
    expect(replays).toEqual([expect.objectContaining({ requestedBy: 'heartbeat-sweep', fromState: 'retryable' })]);

    // The retry is a new offer, sent once; the failed one was never sent.
    expect((await h.worker.runOnce(ACCOUNT)).claimed).toBe(1);
    const retried = await messageIdOf(h, id);
    expect(retried).not.toBe(messageId);
    await untilSim(() => expect(sim!.message(retried)?.state).toBe('Delivered'));
    await h.devices!.reports.runOnce();
    expect(await deliveryOf(h, id)).toMatchObject({ state: 'accepted', downstream_status: 'delivered', provider_message_id: retried });
    expect(sim.sends.map((s) => s.messageId)).toEqual([retried]);
  });

  it('a device back after less than the away threshold is not swept; one away longer is, once', async () => {
    h = await gatewayHarness(driver);
    sim = phoneFor(h);
    await sim.start();
    await sim.goOffline();
    h.clock.advance(90_000);
    await sim.comeBack();
    await untilSim(() => expect(sim!.connections).toBe(2));
    expect((await h.devices!.sweep.runOnce()).sweeps).toEqual([]);
    await sim.goOffline();
    h.clock.advance(3 * MINUTE);
    await sim.comeBack();
    await untilSim(async () => expect((await h.store.devices.listReturnedDevices(10)).length).toBe(1));
    expect((await h.devices!.sweep.runOnce()).sweeps).toEqual([expect.objectContaining({ retried: 0, reoffered: 0, skippedExpired: 0 })]);
    expect((await h.devices!.sweep.runOnce()).sweeps).toEqual([]);
  });
});
