/**
 * The route evaluator on both drivers (docs/routing.md, "Demotion"): codes accepted by the primary
 * and not delivered five minutes later demote it while the backup stays healthy; a second process
 * evaluating the same state records nothing; nothing changes within the cool-down; the primary is
 * restored once its window holds no slow deliveries; an account throttling has kept paused for
 * longer than ten minutes is demoted; a route is judged by its channel's and purpose's own
 * figures where configured. Injected clock; no callbacks, so every accepted code stays
 * undelivered.
 */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_DEMOTION_POLICY, EVERY_TENANT, type Route } from '../../src/domain/index.js';
import { RouteEvaluator } from '../../src/delivery/route-evaluator.js';
import type { RouteChangeRecord } from '../../src/store/store.js';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';

const MIN = 60_000;
const ROUTE: Route = { tenantId: EVERY_TENANT, channel: 'sms', purpose: 'otp', accounts: ['sandbox-sms', 'sms-backup'], order: 'fixed' };

describe.each(DRIVERS)('on %s', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ driver });
  });
  afterEach(async () => {
    await h.close();
  });

  const evaluator = (seen: RouteChangeRecord[] = []) =>
    new RouteEvaluator({
      store: h.store,
      clock: h.clock,
      logger: pino({ level: 'silent' }),
      routes: [ROUTE],
      policy: DEFAULT_DEMOTION_POLICY,
      intervalMs: MIN,
      onChange: (c) => seen.push(c),
    });

  it('demotes a primary whose codes are not delivered after five minutes, once across processes, and restores it when its figures recover', async () => {
    for (let i = 0; i < 12; i++) await h.send(otpBody({ recipient: { id: `u${i}`, phone: '+14155550123' } }));
    await h.newWorker().drain();
    const seen: RouteChangeRecord[] = [];
    const a = evaluator(seen);
    const b = evaluator();
    // Within five minutes of acceptance nothing is slow yet.
    h.clock.advance(4 * MIN);
    expect(await a.runOnce()).toEqual([]);
    h.clock.advance(2 * MIN);
    const [demotion] = await a.runOnce();
    expect(demotion).toMatchObject({ routeKey: '*/sms/otp', seq: 1, providerAccount: 'sandbox-sms', action: 'demote', reasons: ['slow_delivery'] });
    expect(demotion!.figures).toMatchObject({ accepted: 12, slow: 12 });
    expect(seen).toEqual([demotion]);
    expect([...a.demotedIn(ROUTE)]).toEqual(['sandbox-sms']);
    // Another process evaluates the same state: it reads the change and records nothing.
    expect(await b.runOnce()).toEqual([]);
    expect([...b.demotedIn(ROUTE)]).toEqual(['sandbox-sms']);
    // The window empties after 15 minutes; the restoration waits for it (and for the cool-down).
    h.clock.advance(8 * MIN);
    expect(await a.runOnce()).toEqual([]);
    h.clock.advance(2 * MIN);
    const [restore] = await b.runOnce();
    expect(restore).toMatchObject({ seq: 2, providerAccount: 'sandbox-sms', action: 'restore', reasons: [] });
    await a.runOnce();
    expect([...a.demotedIn(ROUTE)]).toEqual([]);
    expect((await h.store.routes.recentChanges(0, 10)).map((c) => c.action)).toEqual(['restore', 'demote']);
  });

  it('demotes an account throttling has paused for longer than paused_longer_than_s, across the 429s that keep it paused', async () => {
    const a = evaluator();
    const start = h.clock.now();
    const limit = { ratePerSecond: 10, burst: 10 };
    // The provider answers 429 with Retry-After: 5 min, and again to the first call after each pause.
    const throttle = () => h.store.limiter.throttleAccount({ providerAccount: 'sandbox-sms', now: h.clock.now(), retryAfterMs: 5 * MIN, limit });
    await throttle();
    h.clock.advance(5 * MIN + 10_000);
    await throttle();
    // Paused for 9 minutes: not yet longer than the policy's 10.
    h.clock.set(start + 9 * MIN);
    expect(await a.runOnce()).toEqual([]);
    h.clock.set(start + 10 * MIN + 10_000);
    await throttle();
    h.clock.set(start + 10 * MIN + 30_000);
    const [demotion] = await a.runOnce();
    expect(demotion).toMatchObject({ providerAccount: 'sandbox-sms', action: 'demote', reasons: ['paused_by_throttling'] });
    expect(demotion!.figures.pausedSince).toBe(start);
    expect([...a.demotedIn(ROUTE)]).toEqual(['sandbox-sms']);
  });

  it("judges each route by its channel's and purpose's own figures: codes slow after one minute demote the code route only", async () => {
    const other: Route = { ...ROUTE, purpose: 'default', order: 'fixed' };
    const e = new RouteEvaluator({
      store: h.store,
      clock: h.clock,
      logger: pino({ level: 'silent' }),
      routes: [ROUTE, other],
      policy: DEFAULT_DEMOTION_POLICY,
      overrides: [{ channel: 'sms', purpose: 'otp', figures: { slowAfterMs: MIN } }],
      intervalMs: MIN,
    });
    for (let i = 0; i < 12; i++) await h.send(otpBody({ recipient: { id: `u${i}`, phone: '+14155550123' } }));
    await h.newWorker().drain();
    h.clock.advance(2 * MIN);
    // Under Notify's five minutes nothing is slow yet; under the codes' one minute all twelve are.
    const changes = await e.runOnce();
    expect(changes).toMatchObject([{ routeKey: '*/sms/otp', providerAccount: 'sandbox-sms', action: 'demote', reasons: ['slow_delivery'] }]);
    expect(changes[0]!.figures).toMatchObject({ accepted: 12, slow: 12 });
    expect([...e.demotedIn(other)]).toEqual([]);
  });
});
