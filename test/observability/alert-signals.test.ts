/**
 * The alert rules' snapshot read from a real store (src/observability/alert-signals.ts), on
 * both drivers: a due code, an unknown, the review queue and per-account failures land where
 * the rules look for them, and the rules then word them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_ALERT_RULES, observe } from '../../src/domain/index.js';
import { storeAlertSignals } from '../../src/observability/alert-signals.js';
import { DRIVERS, createHarness, otpBody, type Harness } from '../helpers/harness.js';

describe.each(DRIVERS)('alert signals from the store (%s)', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ driver });
  });
  afterEach(() => h.close());

  const read = () => storeAlertSignals({ store: h.store, accounts: ['sandbox-sms', 'sms-idle'] })(h.clock.now());

  it('starts quiet, with every configured account present', async () => {
    expect(await read()).toEqual({
      accounts: [
        { id: 'sandbox-sms', failuresLast15m: 0, retryBudgetDegraded: false, pausedUntil: null },
        { id: 'sms-idle', failuresLast15m: 0, retryBudgetDegraded: false, pausedUntil: null },
      ],
      unknown: { count: 0, oldestSince: null },
      demoted: [],
      otpDue: [],
      devices: [],
      deadlineMissesLastHour: 0,
      reviewQueueSize: 0,
    });
  });

  it('reads a waiting code, an old unknown, the review queue and failures per account', async () => {
    // A code nobody sends yet: due, and after 61 s the rule speaks.
    expect((await h.send(otpBody())).status).toBe(202);
    h.clock.advance(61_000);
    const due = await read();
    expect(due.otpDue).toEqual([{ providerAccount: 'sandbox-sms', count: 1, oldestDueAt: h.clock.now() - 61_000 }]);
    expect(
      observe({ signals: due, rules: DEFAULT_ALERT_RULES, now: h.clock.now(), firing: new Set(), queueSamples: [] }).observations.map((o) => o.line),
    ).toEqual(['1 code waiting on sandbox-sms, the oldest for 61 s']);

    // The provider times out: unknown, which is no failed message (the alerter never pages for it);
    // 16 minutes on, it is old and in review.
    h.sandbox.faults.set({ mode: 'timeout_before_accept', count: 1 });
    await h.worker.drain();
    const unknownAt = h.clock.now();
    const fresh = await read();
    expect(fresh.unknown).toEqual({ count: 1, oldestSince: unknownAt });
    expect(fresh.accounts.find((a) => a.id === 'sandbox-sms')?.failuresLast15m).toBe(0);
    expect(fresh.otpDue).toEqual([]);
    h.clock.advance(16 * 60_000);
    const old = await read();
    expect(old.reviewQueueSize).toBe(1);
    expect(old.accounts.find((a) => a.id === 'sandbox-sms')?.failuresLast15m).toBe(0);
    expect(
      observe({ signals: old, rules: DEFAULT_ALERT_RULES, now: h.clock.now(), firing: new Set(), queueSamples: [] }).observations.map((o) => o.rule),
    ).toEqual(['unknown_old']);
  });
});
