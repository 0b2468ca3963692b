/**
 * `send_at` at intake on both drivers, with the harness's manual clock (docs/scheduling.md, "Send
 * later"): a scheduled notification is `ready` with `next_attempt_at = send_at`, goes out at its
 * time and not before, a cancelled one never goes out; `ttl_seconds` counts from `send_at` and an
 * absolute `expires_at` wins; the refusals have their codes and write nothing; an idempotent
 * replay with another `send_at` is a 409 `send_at_conflict`, on the single route and in a batch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, type Harness } from '../helpers/harness.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const sms = (over: Record<string, unknown> = {}) => ({
  recipient: { id: 'user-1', phone: '+14155550123' },
  purpose: 'transactional',
  channels: ['sms'],
  content: { text: 'Your table is ready' },
  ...over,
});

describe.each(DRIVERS)('send_at on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  const iso = (ms: number) => new Date(ms).toISOString();
  const delivery = async (id: string) => (await h.get(`/v1/deliveries/${id}`)).json;
  const sent = () => h.sandbox.ledger.entries().length;

  it('goes out at its time and not before, and a cancelled one never goes out', async () => {
    h = await createHarness({ driver });
    const at = h.clock.now() + 2 * HOUR;
    const kept = await h.send(sms({ send_at: iso(at), ttl_seconds: 600 }));
    const dropped = await h.send(sms({ recipient: { id: 'user-2', phone: '+14155550124' }, send_at: iso(at) }));
    expect(kept.status, JSON.stringify(kept.json)).toBe(202);
    // ttl_seconds counts from send_at.
    expect(kept.json).toMatchObject({ send_at: iso(at), expires_at: iso(at + 600_000) });
    const keptId = kept.json.deliveries[0].id as string;
    const droppedId = dropped.json.deliveries[0].id as string;
    expect(await delivery(keptId)).toMatchObject({ state: 'ready', next_attempt_at: iso(at), expires_at: iso(at + 600_000) });

    await h.worker.drain();
    h.clock.advance(2 * HOUR - 1);
    await h.worker.drain();
    expect(sent()).toBe(0);
    expect((await delivery(keptId)).state).toBe('ready');
    // Visible and cancellable while it waits.
    expect((await h.post(`/v1/deliveries/${droppedId}/cancel`, {})).status).toBe(200);

    h.clock.advance(1);
    await h.worker.drain();
    expect(h.sandbox.ledger.entries().map((e) => e.destination)).toEqual(['+14155550123']);
    expect((await delivery(keptId)).state).toBe('accepted');
    expect(await delivery(droppedId)).toMatchObject({ state: 'terminal', terminal_reason: 'cancelled' });
    h.clock.advance(DAY);
    await h.worker.drain();
    expect(sent()).toBe(1);
  });

  it('a send_at at or before now is due now; an absolute expires_at wins over the ttl', async () => {
    h = await createHarness({ driver });
    const now = h.clock.now();
    const past = await h.send(sms({ send_at: iso(now - 5_000) }));
    expect(past.status).toBe(202);
    expect(past.json.send_at).toBeUndefined();
    expect((await delivery(past.json.deliveries[0].id)).next_attempt_at).toBe(iso(now));
    const absolute = await h.send(sms({ send_at: iso(now + HOUR), expires_at: iso(now + 3 * HOUR) }));
    expect(absolute.json).toMatchObject({ send_at: iso(now + HOUR), expires_at: iso(now + 3 * HOUR) });
    // A purpose's default lifetime counts from send_at too (transactional: a day).
    const byDefault = await h.send(sms({ send_at: iso(now + 10 * DAY) }));
    expect(byDefault.json).toMatchObject({ send_at: iso(now + 10 * DAY), expires_at: iso(now + 11 * DAY) });
    await h.worker.drain();
    expect(sent()).toBe(1);
  });

  it('refuses send_at beyond the horizon or at or after expires_at, and writes nothing', async () => {
    h = await createHarness({ driver, intake: { sendAtHorizonMs: 7 * DAY } });
    const now = h.clock.now();
    const before = (await h.get('/v1/deliveries')).json.items.length as number;
    const far = await h.send(sms({ send_at: iso(now + 7 * DAY + 1_000) }));
    expect(far.status).toBe(422);
    expect(far.json).toMatchObject({ code: 'send_at_beyond_horizon', errors: [{ field: 'send_at' }] });
    expect((await h.send(sms({ send_at: iso(now + 7 * DAY) }))).status).toBe(202);
    const late = await h.send(sms({ send_at: iso(now + 2 * HOUR), expires_at: iso(now + HOUR) }));
    expect(late.status).toBe(422);
    expect(late.json).toMatchObject({ code: 'send_at_after_expiry', errors: [{ field: 'send_at' }] });
    const equal = await h.send(sms({ send_at: iso(now + HOUR), expires_at: iso(now + HOUR) }));
    expect(equal.json.code).toBe('send_at_after_expiry');
    // expires_at at most 30 days after send_at (not after now).
    expect((await h.send(sms({ send_at: iso(now + DAY), expires_at: iso(now + 31 * DAY - 1_000) }))).status).toBe(202);
    const tooLong = await h.send(sms({ send_at: iso(now + DAY), expires_at: iso(now + 31 * DAY + 1_000) }));
    expect(tooLong.json).toMatchObject({ code: 'validation_failed', errors: [{ field: 'expires_at' }] });
    expect((await h.send(sms({ send_at: 'tomorrow' }))).status).toBe(400);
    expect((await h.get('/v1/deliveries')).json.items.length).toBe(before + 2);
  });

  it('an idempotent replay with another send_at is a conflict, not a silent move', async () => {
    h = await createHarness({ driver });
    const now = h.clock.now();
    const key = { 'idempotency-key': 'order-42-reminder' };
    const first = await h.send(sms({ send_at: iso(now + HOUR) }), key);
    expect(first.status).toBe(202);
    // The same instant written with another offset is the same request.
    const same = await h.send(sms({ send_at: '2026-11-29T14:00:00+01:00' }), key);
    expect(iso(now + HOUR)).toBe('2026-11-29T13:00:00.000Z');
    expect(same.status).toBe(202);
    expect(same.headers['idempotent-replayed']).toBe('true');
    expect(same.json).toEqual(first.json);

    const moved = await h.send(sms({ send_at: iso(now + 2 * HOUR) }), key);
    expect(moved.status).toBe(409);
    expect(moved.json).toMatchObject({ code: 'send_at_conflict', errors: [{ field: 'send_at' }] });
    const unscheduled = await h.send(sms(), key);
    expect(unscheduled.json.code).toBe('send_at_conflict');
    const other = await h.send(sms({ send_at: iso(now + 2 * HOUR), content: { text: 'Another text' } }), key);
    expect(other.json.code).toBe('idempotency_key_mismatch');
    expect((await delivery(first.json.deliveries[0].id)).next_attempt_at).toBe(iso(now + HOUR));
  });

  it('schedules each batch item on its own, with the same conflict per item', async () => {
    h = await createHarness({ driver });
    const now = h.clock.now();
    const items = [
      { ...sms({ send_at: iso(now + HOUR) }), idempotency_key: 'b-1' },
      { ...sms({ recipient: { id: 'user-2', phone: '+14155550124' } }), idempotency_key: 'b-2' },
      sms({ recipient: { id: 'user-3', phone: '+14155550125' }, send_at: iso(now + 40 * DAY) }),
    ];
    const r = await h.post('/v1/notifications/batch', { items });
    expect(r.json.results.map((x: any) => x.status)).toEqual([202, 202, 422]);
    expect(r.json.results[2].problem.code).toBe('send_at_beyond_horizon');
    const scheduledId = r.json.results[0].notification.deliveries[0].id as string;
    expect(r.json.results[0].notification.send_at).toBe(iso(now + HOUR));
    expect((await delivery(scheduledId)).next_attempt_at).toBe(iso(now + HOUR));
    await h.worker.drain();
    expect(sent()).toBe(1);

    const again = await h.post('/v1/notifications/batch', { items: [{ ...items[0], send_at: iso(now + 3 * HOUR) }, items[1]] });
    expect(again.json.results.map((x: any) => x.status)).toEqual([409, 200]);
    expect(again.json.results[0].problem.code).toBe('send_at_conflict');
    h.clock.advance(HOUR);
    await h.worker.drain();
    expect(sent()).toBe(2);
  });

  it('a fallback deadline counts from send_at', async () => {
    h = await createHarness({ driver });
    const now = h.clock.now();
    h.sandbox.faults.set({ mode: 'server_error', count: 1 });
    const r = await h.send(
      sms({
        recipient: { id: 'user-1', phone: '+14155550123', email: 'ada@example.com' },
        channels: ['email', 'sms'],
        content: { subject: 'Table', text: 'Your table is ready' },
        send_at: iso(now + HOUR),
        fallback_after_seconds: 60,
      }),
    );
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    h.clock.advance(HOUR);
    await h.worker.drain();
    expect((await h.fallbacks.runOnce()).created).toBe(0);
    h.clock.advance(59_999);
    expect((await h.fallbacks.runOnce()).created).toBe(0);
    h.clock.advance(1);
    expect((await h.fallbacks.runOnce()).created).toBe(1);
  });
});
