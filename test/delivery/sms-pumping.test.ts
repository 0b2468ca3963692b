/**
 * A simulated SMS-pumping burst (toll fraud through an OTP form, docs/abuse-limits.md), on both
 * drivers, with the default limits and the countries this operator serves (US, GB): the
 * attacker drives the customer's own sign-up form, so the requests arrive with the customer's
 * API key, interleaved with ordinary sign-ins, and the per-key quota cannot tell them apart.
 * The burst:
 *
 *   - 100 codes to a range of UK premium-rate numbers (+44 909 879 1000…1099), the classic pump;
 *   - 100 codes to a range of mobile numbers in a country the operator does not serve (Latvia);
 *   - 60 codes cycling over 4 numbers in a served country (velocity per destination);
 *   - 40 codes for one account to 40 different numbers (velocity per recipient).
 *
 * Ordinary traffic: 60 people signing in, 1 or 2 codes each, a minute apart. Every ordinary
 * code is accepted and sent; the burst gets at most what the velocity rules allow (5 per number,
 * 10 per recipient) and nothing else; the refusals are counted by limit in the metrics.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { resolveLimits } from '../../src/config/limits-config.js';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';

describe.each(DRIVERS)('an SMS-pumping burst (%s)', (driver) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('is stopped by the country list, the number-type rule and the velocity limits while ordinary sign-ins pass', async () => {
    const limits = resolveLimits({ sms: { countries: ['US', 'GB'] }, requests: { limit: 100_000 } });
    const hh = (h = await createHarness({ driver, metrics: {}, intake: { limits } }));
    const sms = (recipient: string, phone: string) =>
      otpBody({ recipient: { id: recipient, phone }, channels: ['sms'], content: { text: 'Your code is 482910' } });

    const burst = [
      ...Array.from({ length: 100 }, (_, i) => sms(`pump-gb-${i}`, `+44909879${1000 + i}`)),
      ...Array.from({ length: 100 }, (_, i) => sms(`pump-lv-${i}`, `+3712000${1000 + i}`)),
      ...Array.from({ length: 60 }, (_, i) => sms(`pump-us-${i}`, `+1212555014${i % 4}`)),
      ...Array.from({ length: 40 }, (_, i) => sms('pump-account', `+1646555${1000 + i}`)),
    ];
    const ordinary = Array.from({ length: 60 }, (_, i) => sms(`person-${i}`, i % 2 ? `+1415555${1000 + i}` : `+447400${123000 + i}`));

    // Interleaved: five burst requests per ordinary one; every ordinary person asks again once in three.
    let burstAccepted = 0;
    const ordinaryStatuses: number[] = [];
    const burstStatuses = new Map<string, number>();
    for (let i = 0; i < burst.length; i++) {
      const r = await hh.send(burst[i]!);
      burstStatuses.set(r.json.code ?? String(r.status), (burstStatuses.get(r.json.code ?? String(r.status)) ?? 0) + 1);
      if (r.status === 202) burstAccepted++;
      if (i % 5 === 0) {
        const person = ordinary[i / 5]!;
        ordinaryStatuses.push((await hh.send(person)).status);
        if ((i / 5) % 3 === 0) {
          hh.clock.advance(30_000);
          ordinaryStatuses.push((await hh.send(person)).status);
        }
      }
      hh.clock.advance(1_000);
      // The worker keeps up, as it would: codes live 5 minutes and the burst lasts longer.
      if (i % 20 === 19) await hh.worker.drain();
    }

    expect(ordinaryStatuses.length).toBe(80);
    expect(ordinaryStatuses.every((s) => s === 202)).toBe(true);
    // 4 numbers × 5 + 10 for the one account: all the burst got, every other code refused.
    expect(burstAccepted).toBe(30);
    expect(Object.fromEntries(burstStatuses)).toEqual({ '202': 30, number_type_not_allowed: 100, country_not_allowed: 100, velocity_limited: 70 });
    const series = hh.counters.series.intakeLimitRefusals;
    expect({
      sms_number_type: series.get({ limit: 'sms_number_type' }),
      sms_country: series.get({ limit: 'sms_country' }),
      destination_velocity: series.get({ limit: 'destination_velocity' }),
      recipient_velocity: series.get({ limit: 'recipient_velocity' }),
    }).toEqual({ sms_number_type: 100, sms_country: 100, destination_velocity: 40, recipient_velocity: 30 });

    // Only what was accepted is sent: 80 ordinary codes and 30 of the burst.
    await hh.worker.drain();
    expect(hh.sandbox.ledger.entries({ channel: 'sms' })).toHaveLength(110);

    // The metrics show the refusals by limit, with no destination or key in a label.
    const text = await hh.metrics!.render();
    expect(text).toContain('herald_intake_limit_refusals_total{limit="sms_country"} 100');
    expect(text).toContain('herald_intake_limit_refusals_total{limit="destination_velocity"} 40');
    expect(text).not.toMatch(/90987910|37120001|2125550140|key_test/);
  });
});
