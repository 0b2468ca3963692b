/**
 * A campaign's `send_at` on both drivers, with the harness's manual clock (docs/scheduling.md,
 * "Send later"): the plan, its waves and the projected finish start at `send_at`; fan-out queues
 * the messages `ready` with `next_attempt_at = send_at` (ttl counted from there), so nothing is
 * claimed before it and everything goes at it; a campaign cancelled before its `send_at` sends
 * nothing; a draft started before `send_at` still waits for it, one started after it goes at once;
 * the refusals (in the past, at or after the deadline, beyond the horizon) write nothing; an
 * idempotent replay with another `send_at` is a `send_at_conflict`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, T0, type Harness } from '../helpers/harness.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

const recipients = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `u${i + 1}`, email: `u${i + 1}@example.com` }));

// T0 is 12:00Z: 14:00Z is outside marketing's default quiet hours (21:00-08:00 in the tenant's zone, UTC).
const SEND_AT = T0 + 2 * HOUR;
const campaignBody = (over: Record<string, unknown> = {}) => ({
  name: 'Winter sale',
  channel: 'email',
  purpose: 'marketing',
  content: { subject: 'Sale', text: 'Starts now' },
  deadline_at: iso(T0 + 4 * HOUR),
  send_at: iso(SEND_AT),
  ttl_seconds: 3600,
  audience: { recipients: recipients(6) },
  ...over,
});

describe.each(DRIVERS)('campaign send_at on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  const campaign = async (id: string) => (await h.get(`/v1/campaigns/${id}`)).json;
  const sent = () => h.sandbox.ledger.entries().length;
  const deliveries = async () => (await h.get('/v1/deliveries?limit=100')).json.items as Array<Record<string, unknown>>;

  it('plans from send_at, queues its messages due then, sends nothing before it and everything at it', async () => {
    h = await createHarness({ driver });
    const created = await h.post('/v1/campaigns', campaignBody({ start: 'if_feasible' }));
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toMatchObject({
      status: 'running',
      send_at: iso(SEND_AT),
      plan: { start_at: SEND_AT, feasible: true, waves: [{ time_zone: 'UTC', recipients: 6, send_from: SEND_AT, projected_start: SEND_AT }] },
    });
    // The drain is projected from send_at, not from now.
    expect(Date.parse(created.json.progress.projected_finish.finish_at)).toBeGreaterThan(SEND_AT);

    expect(await h.campaigns.runOnce()).toMatchObject({ fannedOut: 6 });
    const queued = await deliveries();
    expect(queued).toHaveLength(6);
    for (const d of queued) expect(d).toMatchObject({ state: 'ready', next_attempt_at: iso(SEND_AT), expires_at: iso(SEND_AT + HOUR) });

    await h.worker.drain();
    h.clock.advance(SEND_AT - T0 - 1);
    await h.campaigns.runOnce();
    await h.worker.drain();
    expect(sent()).toBe(0);
    expect((await campaign(created.json.id)).progress).toMatchObject({ queued: 6, accepted: 0 });

    h.clock.advance(1);
    await h.worker.drain();
    expect(sent()).toBe(6);
    expect((await h.campaigns.runOnce()).finished).toBe(1);
    expect((await campaign(created.json.id)).progress).toMatchObject({ accepted: 6, queued: 0 });
  });

  it('a campaign cancelled before its send_at sends nothing', async () => {
    h = await createHarness({ driver });
    const created = await h.post('/v1/campaigns', campaignBody({ start: 'if_feasible' }));
    await h.campaigns.runOnce();
    await h.worker.drain();
    h.clock.advance(HOUR);
    await h.worker.drain();
    expect(sent()).toBe(0);
    expect((await h.post(`/v1/campaigns/${created.json.id}/cancel`)).json.status).toBe('cancelled');
    expect(await h.campaigns.runOnce()).toMatchObject({ cancelled: 6, finished: 1 });

    h.clock.advance(2 * HOUR);
    await h.campaigns.runOnce();
    await h.worker.drain();
    expect(sent()).toBe(0);
    expect((await campaign(created.json.id)).progress).toMatchObject({ cancelled: 6, accepted: 0, queued: 0 });
    for (const d of await deliveries()) expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'cancelled' });
  });

  it('a draft started before send_at still waits for it; one started after it goes at once', async () => {
    h = await createHarness({ driver });
    const early = await h.post('/v1/campaigns', campaignBody());
    const late = await h.post('/v1/campaigns', campaignBody({ name: 'late', audience: { recipients: recipients(3).map((r) => ({ ...r, id: `l-${r.id}` })) } }));
    expect(early.json).toMatchObject({ status: 'draft', plan: { start_at: SEND_AT } });

    h.clock.advance(HOUR);
    expect((await h.post(`/v1/campaigns/${early.json.id}/start`)).json).toMatchObject({ status: 'running', plan: { start_at: SEND_AT } });
    await h.campaigns.runOnce();
    await h.worker.drain();
    expect(sent()).toBe(0);

    h.clock.advance(HOUR + 30 * MINUTE);
    await h.worker.drain();
    expect(sent()).toBe(6);
    // Started half an hour after its send_at: planned from now, due now, its ttl from now.
    const now = h.clock.now();
    expect((await h.post(`/v1/campaigns/${late.json.id}/start`)).json).toMatchObject({ status: 'running', plan: { start_at: now } });
    await h.campaigns.runOnce();
    const lateOnes = (await deliveries()).filter((d) => d.state === 'ready');
    expect(lateOnes).toHaveLength(3);
    for (const d of lateOnes) expect(d).toMatchObject({ next_attempt_at: iso(now), expires_at: iso(now + HOUR) });
    await h.worker.drain();
    expect(sent()).toBe(9);
  });

  it('refuses a send_at in the past, at or after the deadline, or beyond the horizon, and writes nothing', async () => {
    h = await createHarness({ driver, intake: { sendAtHorizonMs: 2 * DAY } });
    const past = await h.post('/v1/campaigns', campaignBody({ send_at: iso(T0) }));
    expect(past).toMatchObject({ status: 400, json: { code: 'validation_failed', errors: [{ field: 'send_at' }] } });
    const atDeadline = await h.post('/v1/campaigns', campaignBody({ send_at: iso(T0 + 4 * HOUR) }));
    expect(atDeadline).toMatchObject({ status: 422, json: { code: 'send_at_after_deadline', errors: [{ field: 'send_at' }] } });
    const far = await h.post('/v1/campaigns', campaignBody({ send_at: iso(T0 + 3 * DAY), deadline_at: iso(T0 + 4 * DAY) }));
    expect(far).toMatchObject({ status: 422, json: { code: 'send_at_beyond_horizon', errors: [{ field: 'send_at' }] } });
    expect((await h.get('/v1/campaigns')).json.items).toEqual([]);
  });

  it('an idempotent replay with another send_at is a send_at_conflict; the same instant in another offset replays', async () => {
    h = await createHarness({ driver });
    const key = { 'idempotency-key': 'winter-sale' };
    const first = await h.post('/v1/campaigns', campaignBody(), key);
    expect(first.status).toBe(201);
    const sameInstant = await h.post('/v1/campaigns', campaignBody({ send_at: '2026-11-29T15:00:00+01:00' }), key);
    expect(sameInstant).toMatchObject({ status: 201, headers: { 'idempotent-replayed': 'true' }, json: { id: first.json.id } });
    const moved = await h.post('/v1/campaigns', campaignBody({ send_at: iso(SEND_AT + HOUR) }), key);
    expect(moved).toMatchObject({ status: 409, json: { code: 'send_at_conflict' } });
    expect((await h.get('/v1/campaigns')).json.items).toHaveLength(1);
  });
});
