/**
 * A phone's failures retry on the purpose's ladder, per device, on both drivers: two phones,
 * each pinned a code and a reminder that fail before sending again and again; every retry's
 * wait is the ladder's (otp: 1 s, 2 s, 4 s … +5 % at random 0.5; transactional: 30 s, 1 min …
 * at ¾ with equal jitter), whichever phone failed it, and every retry is a new message id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LADDERS, plannedDelayMs, type LadderName } from '../../src/domain/index.js';
import type { PhoneSim } from '../../src/devices/phone-sim.js';
import { DRIVERS, type Harness } from '../helpers/harness.js';
import { deliveryOf, gatewayHarness, messageIdOf, phoneFor, sendSms, until } from './gateway-harness.js';

const GENERIC = 'Send result: RESULT_ERROR_GENERIC_FAILURE (Generic failure cause)';

/** The wait after `attempts` attempts at random 0.5: up10 adds 5 %, equal jitter takes ¾. */
function expectedWait(ladder: LadderName, attempts: number): number {
  const d = plannedDelayMs(LADDERS[ladder], attempts);
  return Math.ceil(LADDERS[ladder].jitter === 'up10' ? d * 1.05 : d * 0.75);
}

describe.each(DRIVERS)('phone failures and the purpose ladders on %s', (driver) => {
  let h: Harness;
  let sims: PhoneSim[] = [];
  afterEach(async () => {
    for (const s of sims) await s.close();
    sims = [];
    await h?.close();
  });

  it('codes retry on the otp ladder and reminders on theirs, on each device, each retry a new offer', async () => {
    h = await gatewayHarness(driver);
    const phones = [phoneFor(h, { name: 'A' }), phoneFor(h, { name: 'B' })];
    sims.push(...phones);
    for (const p of phones) {
      await p.start();
      p.script(...Array.from({ length: 6 }, () => ({ kind: 'fail' as const, error: GENERIC })));
    }
    const cases = phones.flatMap((p) => (['otp', 'transactional'] as const).map((purpose) => ({ phone: p, purpose, ladder: purpose })));
    const sent = [];
    for (const c of cases)
      sent.push({ ...c, id: await sendSms(h, { purpose: c.purpose, ttl_seconds: 3_600, metadata: { herald_device_id: c.phone.registration!.id } }) });
    const seen = new Map<string, Set<string>>();
    for (let attempt = 1; attempt <= 3; attempt++) {
      // Every delivery due now is offered to its own phone, which fails it before sending.
      await h.worker.drain();
      for (const s of sent) {
        const m = await messageIdOf(h, s.id);
        (seen.get(s.id) ?? seen.set(s.id, new Set()).get(s.id)!).add(m);
        await until(s.phone, () => expect(s.phone.message(m)?.state).toBe('Failed'));
      }
      await h.devices!.reports.runOnce();
      for (const s of sent) {
        const d = await deliveryOf(h, s.id);
        expect(d).toMatchObject({ state: 'retryable', attempt_count: attempt, last_error_code: 'phone_generic_failure' });
        expect(Date.parse(d.next_attempt_at) - h.clock.now(), `${s.purpose} on ${s.phone.registration!.id}, attempt ${attempt}`).toBe(
          expectedWait(s.ladder, attempt),
        );
        const offers = await h.store.devices.listDeviceMessages(s.phone.registration!.id, {}, null, 100);
        expect(offers.filter((o) => o.deliveryId === d.id).every((o) => o.deviceId === s.phone.registration!.id)).toBe(true);
      }
      // Past the longest wait of this round (transactional's), so every delivery is due again.
      h.clock.advance(Math.max(...sent.map((s) => expectedWait(s.ladder, attempt))) + 1);
    }
    for (const s of sent) expect(seen.get(s.id)!.size).toBe(3);
    for (const p of phones) expect(p.sends).toHaveLength(0);
  });
});
