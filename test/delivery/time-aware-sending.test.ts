/**
 * The send-time quiet-hours and frequency-cap checks (docs/scheduling.md), on both drivers with
 * the harness's manual clock: a marketing SMS due at 23:00 in Europe/Berlin waits until 08:00
 * there while a code to the same person goes at once; a message whose expiry falls inside the
 * window ends expired/quiet_hours; the third marketing message of a day to one person is deferred
 * (or suppressed, as configured) across two workers on two connections. A hold is no attempt: its
 * claim's attempt row is withdrawn in the same write, and the hold reason is on the delivery and
 * in /metrics.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, type Harness } from '../helpers/harness.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
/** 2026-11-29 22:00Z is 23:00 in Berlin (CET, UTC+1); 08:00 Berlin the next morning is 07:00Z. */
const BERLIN_23 = Date.UTC(2026, 10, 29, 22, 0, 0);
const BERLIN_08 = Date.UTC(2026, 10, 30, 7, 0, 0);

const person = { id: 'user-1', phone: '+14155550123' };
const marketing = (over: Record<string, unknown> = {}) => ({
  recipient: person,
  purpose: 'marketing',
  channels: ['sms'],
  content: { text: 'Winter sale: 20% off' },
  ...over,
});
const code = () => ({ recipient: person, purpose: 'otp', channels: ['sms'], content: { text: 'Your code is 123456', otp: { code: '123456' } } });

describe.each(DRIVERS)('time-aware sending at send time on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  const delivery = async (id: string) => (await h.get(`/v1/deliveries/${id}`)).json;
  const put = async (url: string, body: unknown) => {
    const r = await h.app.inject({ method: 'PUT', url, headers: { authorization: `Bearer ${h.apiKey}` }, payload: body as object });
    return { status: r.statusCode, json: r.json() };
  };
  const holds = (labels: { reason: string; outcome: string; purpose?: string }) =>
    h.counters.series.schedulingHolds.get({ channel: 'sms', purpose: labels.purpose ?? 'marketing', reason: labels.reason, outcome: labels.outcome });

  it('a marketing SMS due at 23:00 in Berlin waits until 08:00 there; a code to the same person goes at once', async () => {
    h = await createHarness({ driver });
    await h.store.scheduling.putPolicy(h.tenantId, { time_zone: 'Europe/Berlin' }, h.clock.now());
    h.clock.set(BERLIN_23);
    const promo = await h.send(marketing());
    const otp = await h.send(code());
    expect(promo.status, JSON.stringify(promo.json)).toBe(202);
    expect(otp.status, JSON.stringify(otp.json)).toBe(202);
    const promoId = promo.json.deliveries[0].id as string;
    const otpId = otp.json.deliveries[0].id as string;

    await h.worker.drain();
    expect((await delivery(otpId)).state).toBe('accepted');
    expect(h.sandbox.ledger.entries()).toHaveLength(1);
    const held = await delivery(promoId);
    // Deferred, not attempted: the claim's attempt row was withdrawn with the deferral.
    expect(held).toMatchObject({ state: 'ready', next_attempt_at: iso(BERLIN_08), hold_reason: 'quiet_hours', attempt_count: 0, attempts: [] });
    expect(holds({ reason: 'quiet_hours', outcome: 'deferred' })).toBe(1);

    // Nothing goes during the night, however often the workers look.
    h.clock.set(BERLIN_08 - 1);
    await h.worker.drain();
    expect(h.sandbox.ledger.entries()).toHaveLength(1);

    h.clock.set(BERLIN_08);
    await h.worker.drain();
    expect(h.sandbox.ledger.entries()).toHaveLength(2);
    const sent = await delivery(promoId);
    // One attempt numbered 1: the deferral took nothing from its retry ladder. The reason it waited stays visible.
    expect(sent).toMatchObject({ state: 'accepted', attempt_count: 1, hold_reason: 'quiet_hours' });
    expect(sent.attempts.map((a: { number: number }) => a.number)).toEqual([1]);
    expect(holds({ reason: 'quiet_hours', outcome: 'deferred' })).toBe(1);
  });

  it('a message whose expiry falls inside the window ends expired with reason quiet_hours, never sent', async () => {
    h = await createHarness({ driver });
    await h.store.scheduling.putPolicy(h.tenantId, { time_zone: 'Europe/Berlin' }, h.clock.now());
    h.clock.set(BERLIN_23);
    const promo = await h.send(marketing({ ttl_seconds: 4 * 3600 }));
    const id = promo.json.deliveries[0].id as string;
    await h.worker.drain();
    expect(await delivery(id)).toMatchObject({ state: 'terminal', terminal_reason: 'expired', hold_reason: 'quiet_hours', attempt_count: 0, attempts: [] });
    expect(holds({ reason: 'quiet_hours', outcome: 'expired' })).toBe(1);
    h.clock.set(BERLIN_08 + HOUR);
    await h.worker.drain();
    expect(h.sandbox.ledger.entries()).toHaveLength(0);
  });

  it('a message the window would release inside its arrival allowance ends expired at once, not claimed again in the morning', async () => {
    h = await createHarness({ driver });
    await h.store.scheduling.putPolicy(h.tenantId, { time_zone: 'Europe/Berlin' }, h.clock.now());
    h.clock.set(BERLIN_23);
    // Expires 500 ms after the window ends: less than the SMS channel's 1 s to arrive (src/domain/arrival.ts).
    const promo = await h.send(marketing({ expires_at: iso(BERLIN_08 + 500) }));
    const id = promo.json.deliveries[0].id as string;
    await h.worker.drain();
    expect(await delivery(id)).toMatchObject({ state: 'terminal', terminal_reason: 'expired', hold_reason: 'quiet_hours', attempt_count: 0, attempts: [] });
    expect(holds({ reason: 'quiet_hours', outcome: 'expired' })).toBe(1);
    h.clock.set(BERLIN_08);
    await h.worker.drain();
    expect(h.sandbox.ledger.entries()).toHaveLength(0);
  });

  it('a change of time zone applies to a message already queued (the check reads the policy at send time)', async () => {
    h = await createHarness({ driver });
    // Queued at noon for 20:30Z, outside the default 21:00–08:00 window in UTC, the tenant's zone then.
    const at = Date.UTC(2026, 10, 29, 20, 30, 0);
    const promo = await h.send(marketing({ send_at: iso(at) }));
    const id = promo.json.deliveries[0].id as string;
    // Then the tenant says its people live in Berlin, where 20:30Z is 21:30, inside the window.
    await h.store.scheduling.putPolicy(h.tenantId, { time_zone: 'Europe/Berlin' }, h.clock.now());
    h.clock.set(at);
    await h.worker.drain();
    expect(await delivery(id)).toMatchObject({ state: 'ready', hold_reason: 'quiet_hours', next_attempt_at: iso(BERLIN_08) });
    expect(h.sandbox.ledger.entries()).toHaveLength(0);
  });

  for (const action of ['defer', 'suppress'] as const) {
    it(`the third marketing message of the day to one person is ${action === 'defer' ? 'deferred' : 'suppressed'} across two workers`, async () => {
      h = await createHarness({ driver });
      await h.store.scheduling.putPolicy(h.tenantId, { frequency_caps: { marketing: { caps: [{ max: 2, period_seconds: 86_400 }], action } } }, h.clock.now());
      const ids: string[] = [];
      for (const n of [1, 2, 3]) ids.push((await h.send(marketing({ content: { text: `Offer ${n}` } }))).json.deliveries[0].id as string);
      // A second process on its own connection; each worker claims one delivery at a time, so they interleave.
      const peer = h.openPeerStore();
      try {
        const a = h.newWorker({ workerId: 'a', batchSize: 1 });
        const b = h.newWorker({ workerId: 'b', batchSize: 1, store: peer });
        await Promise.all([a.drain(), b.drain(), a.drain(), b.drain()]);
        expect(h.sandbox.ledger.entries()).toHaveLength(2);
        const views = await Promise.all(ids.map(delivery));
        const capped = views.filter((v) => v.hold_reason === 'frequency_capped');
        expect(capped).toHaveLength(1);
        expect(views.filter((v) => v.state === 'accepted')).toHaveLength(2);
        if (action === 'defer') {
          // Due when the first counted send leaves the rolling day; no attempt row for the hold.
          expect(capped[0]).toMatchObject({ state: 'ready', next_attempt_at: iso(h.clock.now() + DAY), attempt_count: 0, attempts: [] });
          expect(holds({ reason: 'frequency_capped', outcome: 'deferred' })).toBe(1);
          h.clock.advance(DAY - 1);
          await h.worker.drain();
          expect(h.sandbox.ledger.entries()).toHaveLength(2);
          h.clock.advance(1);
          await h.worker.drain();
          expect(h.sandbox.ledger.entries()).toHaveLength(3);
          expect((await delivery(capped[0].id)).state).toBe('accepted');
        } else {
          // Suppressed like an unsubscribe: its one attempt closed as not sent.
          expect(capped[0]).toMatchObject({ state: 'terminal', terminal_reason: 'suppressed', attempt_count: 1 });
          expect(capped[0].attempts).toMatchObject([{ outcome: 'retryable', error: { code: 'frequency_capped_before_send' } }]);
          expect(holds({ reason: 'frequency_capped', outcome: 'suppressed' })).toBe(1);
          h.clock.advance(2 * DAY);
          await h.worker.drain();
          expect(h.sandbox.ledger.entries()).toHaveLength(2);
        }
      } finally {
        await peer.close();
      }
    });
  }

  it("the recipient's zone: the notification's wins over the profile's, the profile's over the tenant's, read at send time", async () => {
    h = await createHarness({ driver });
    // 12:30Z is 07:30 in New York (EST): inside marketing's 21:00–08:00 there, not in UTC (the tenant's zone).
    const at = Date.UTC(2026, 10, 30, 12, 30, 0);
    const nyMorning = Date.UTC(2026, 10, 30, 13, 0, 0);
    const queued = await h.send(marketing({ send_at: iso(at) }));
    const own = await h.send(marketing({ recipient: { ...person, time_zone: 'UTC' }, send_at: iso(at) }));
    const berlin = await h.send(marketing({ recipient: { id: 'user-2', phone: '+14155550124', time_zone: 'Europe/Berlin' }, send_at: iso(BERLIN_23) }));
    // The profile gets its zone after the first two were queued: the check reads it when they come due.
    const stored = await put('/v1/recipients/user-1', { phone: person.phone, time_zone: 'America/New_York' });
    expect(stored.status, JSON.stringify(stored.json)).toBe(201);
    expect(stored.json.time_zone).toBe('America/New_York');
    expect((await h.get('/v1/recipients/user-1')).json.time_zone).toBe('America/New_York');

    h.clock.set(BERLIN_23);
    await h.worker.drain();
    expect(await delivery(berlin.json.deliveries[0].id)).toMatchObject({ state: 'ready', hold_reason: 'quiet_hours', next_attempt_at: iso(BERLIN_08) });
    h.clock.set(at);
    await h.worker.drain();
    expect(await delivery(queued.json.deliveries[0].id)).toMatchObject({ state: 'ready', hold_reason: 'quiet_hours', next_attempt_at: iso(nyMorning) });
    // Its own zone (UTC, where 12:30 is day) wins over the profile's.
    expect(await delivery(own.json.deliveries[0].id)).toMatchObject({ state: 'accepted', hold_reason: null });
  });

  it('refuses a time zone that is not an IANA name, on the notification and the profile, and writes nothing', async () => {
    h = await createHarness({ driver });
    const before = (await h.get('/v1/deliveries')).json.items.length as number;
    for (const zone of ['+01:00', 'Mars/Olympus', 'CET-ish']) {
      const r = await h.send(marketing({ recipient: { ...person, time_zone: zone } }));
      expect(r.status).toBe(422);
      expect(r.json).toMatchObject({ code: 'invalid_time_zone', errors: [{ field: 'recipient.time_zone' }] });
      const p = await put('/v1/recipients/user-1', { phone: person.phone, time_zone: zone });
      expect(p.json).toMatchObject({ code: 'invalid_time_zone', errors: [{ field: 'time_zone' }] });
    }
    expect((await h.get('/v1/deliveries')).json.items.length).toBe(before);
    expect((await h.get('/v1/recipients/user-1')).status).toBe(404);
  });

  it('codes are never held, by a window or a cap', async () => {
    h = await createHarness({ driver });
    await h.store.scheduling.putPolicy(
      h.tenantId,
      { time_zone: 'Europe/Berlin', frequency_caps: { otp: { caps: [{ max: 1, period_seconds: 86_400 }], action: 'suppress' } } },
      h.clock.now(),
    );
    h.clock.set(BERLIN_23);
    const ids = [(await h.send(code())).json.deliveries[0].id, (await h.send(code())).json.deliveries[0].id] as string[];
    await h.worker.drain();
    for (const id of ids) expect(await delivery(id)).toMatchObject({ state: 'accepted', hold_reason: null });
    expect(h.sandbox.ledger.entries()).toHaveLength(2);
  });
});
