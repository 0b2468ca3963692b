/**
 * The phone gateway end to end, both drivers: a simulated phone registers with the private token,
 * keeps an SSE connection, pulls what Herald offers, "sends" it and reports its states; the
 * report applier turns the reports into evidence. A phone failure before sending retries on the
 * purpose's ladder with a new offer; an unknown message re-offered under its id is re-reported,
 * never sent twice.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LADDERS } from '../../src/domain/index.js';
import type { PhoneSim } from '../../src/devices/phone-sim.js';
import { DRIVERS, type Harness } from '../helpers/harness.js';
import { ACCOUNT, deliveryOf, gatewayHarness, messageIdOf, MINUTE, phoneFor, SECOND, sendSms, until } from './gateway-harness.js';

describe.each(DRIVERS)('phone gateway on %s', (driver) => {
  let h: Harness;
  let sims: PhoneSim[] = [];
  afterEach(async () => {
    for (const s of sims) await s.close();
    sims = [];
    await h?.close();
  });
  const phone = (opts: Parameters<typeof phoneFor>[1] = {}) => {
    const s = phoneFor(h, opts);
    sims.push(s);
    return s;
  };

  it('offers an SMS to the phone, which pulls, sends once and reports: accepted, then delivered', async () => {
    h = await gatewayHarness(driver);
    const sim = phone();
    await sim.start();
    const id = await sendSms(h);
    const r = await h.worker.runOnce(ACCOUNT);
    expect(r.claimed).toBe(1);
    // Submitting = an offer: unknown until the phone says what it holds.
    const offered = await deliveryOf(h, id);
    expect(offered.state).toBe('unknown');
    expect(offered.attempts[0]).toMatchObject({ outcome: 'unknown', error: { code: 'offered' } });
    const messageId = await messageIdOf(h, id);
    await until(sim, () => expect(sim.message(messageId)?.state).toBe('Delivered'));
    expect(sim.sendCount(messageId)).toBe(1);
    expect(sim.events).toContain('MessageEnqueued');
    expect(await h.devices!.reports.runOnce()).toMatchObject({ applied: 1, transitions: 1 });
    const d = await deliveryOf(h, id);
    expect(d).toMatchObject({ state: 'accepted', downstream_status: 'delivered', provider_message_id: messageId });
    expect(d.attempts[0]).toMatchObject({ resolution: 'callback' });
    // The device is healthy and its queue empty.
    const devices = await h.get('/v1/devices');
    expect(devices.json.items).toHaveLength(1);
    expect(devices.json.items[0]).toMatchObject({
      id: sim.registration!.id,
      online: true,
      queue_depth: 0,
      failures_24h: 0,
      app_version: '1.40.0-sim',
      connections: 1,
    });
  });

  it('a failure before sending retries on the purpose’s ladder with a new message id; the phone sends that one once', async () => {
    h = await gatewayHarness(driver);
    const sim = phone();
    await sim.start();
    sim.script({ kind: 'fail', error: 'Send result: RESULT_ERROR_NO_SERVICE (Failed because service is currently unavailable)' });
    const code = await sendSms(h, { purpose: 'otp' });
    await h.worker.runOnce(ACCOUNT);
    const first = await messageIdOf(h, code);
    await until(sim, () => expect(sim.message(first)?.state).toBe('Failed'));
    await h.devices!.reports.runOnce();
    const failed = await deliveryOf(h, code);
    expect(failed).toMatchObject({ state: 'retryable', last_error_code: 'phone_no_service' });
    // The otp ladder's first wait: 1 s, up to +10 % (random 0.5: +5 %).
    expect(Date.parse(failed.next_attempt_at) - h.clock.now()).toBe(Math.ceil(LADDERS.otp.scheduleMs![0]! * 1.05));
    expect(sim.sends).toHaveLength(0);
    h.clock.advance(2 * SECOND);
    await h.worker.runOnce(ACCOUNT);
    const second = await messageIdOf(h, code);
    expect(second).not.toBe(first);
    await until(sim, () => expect(sim.message(second)?.state).toBe('Delivered'));
    await h.devices!.reports.runOnce();
    expect(await deliveryOf(h, code)).toMatchObject({ state: 'accepted', downstream_status: 'delivered', provider_message_id: second });
    expect(sim.sendCount(second)).toBe(1);
    expect(sim.sends).toHaveLength(1);
  });

  it('no device online: retryable with nothing offered; a pinned device that is offline too', async () => {
    h = await gatewayHarness(driver);
    const sim = phone();
    await sim.register();
    h.clock.advance(3 * MINUTE); // silent since registration: away
    const id = await sendSms(h);
    await h.worker.runOnce(ACCOUNT);
    expect(await deliveryOf(h, id)).toMatchObject({ state: 'retryable', last_error_code: 'no_device_online' });
    const pinned = await sendSms(h, { metadata: { herald_device_id: sim.registration!.id } });
    await h.worker.runOnce(ACCOUNT);
    expect(await deliveryOf(h, pinned)).toMatchObject({ state: 'retryable', last_error_code: 'device_offline' });
    const unknownPin = await sendSms(h, { metadata: { herald_device_id: 'nope' } });
    await h.worker.runOnce(ACCOUNT);
    expect(await deliveryOf(h, unknownPin)).toMatchObject({ state: 'terminal', terminal_reason: 'rejected', last_error_code: 'device_unknown' });
    expect(await h.store.devices.listDeviceMessages(sim.registration!.id, {}, null, 10)).toEqual([]);
  });

  it('re-offering an unknown message under its id is the look-up: the phone re-reports what it holds, no second SMS', async () => {
    h = await gatewayHarness(driver);
    const sim = phone();
    await sim.start();
    sim.script({ kind: 'lose_reports' });
    const id = await sendSms(h, { purpose: 'transactional' });
    await h.worker.runOnce(ACCOUNT);
    const messageId = await messageIdOf(h, id);
    await until(sim, () => expect(sim.message(messageId)?.state).toBe('Delivered'));
    expect(await deliveryOf(h, id)).toMatchObject({ state: 'unknown' });
    // Too early to re-offer: the report may still come.
    expect(await h.reconciler.runOnce()).toMatchObject({ deferred: 1 });
    h.clock.advance(61 * SECOND);
    expect(await h.reconciler.runOnce()).toMatchObject({ deferred: 1 });
    // The re-offer was signalled; the phone pulled it and re-reported instead of sending.
    await until(sim, async () => expect((await h.store.devices.getOfferByMessageId(messageId))?.state).toBe('reported'));
    expect(sim.sendCount(messageId)).toBe(1);
    await h.devices!.reports.runOnce();
    expect(await deliveryOf(h, id)).toMatchObject({ state: 'accepted', downstream_status: 'delivered', provider_message_id: messageId });
  });

  it('an offer no phone pulled is withdrawn by the look-up and retried: it provably never reached a phone', async () => {
    h = await gatewayHarness(driver);
    const sim = phone();
    await sim.register(); // registered, never connected: seen, but it never pulls
    const id = await sendSms(h, { purpose: 'transactional' });
    await h.worker.runOnce(ACCOUNT);
    const messageId = await messageIdOf(h, id);
    h.clock.advance(61 * SECOND);
    expect(await h.reconciler.runOnce()).toMatchObject({ notFoundByLookup: 1 });
    expect(await deliveryOf(h, id)).toMatchObject({ state: 'retryable' });
    expect((await h.store.devices.getOfferByMessageId(messageId))?.state).toBe('withdrawn');
  });
});
