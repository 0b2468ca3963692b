/**
 * Fan-out makes each campaign recipient due at its wave's start (docs/scheduling.md "Campaigns in
 * waves"), on both drivers with the harness's manual clock: a recipient whose zone is in its
 * night is queued `ready` with `next_attempt_at` = its wave's `send_from` from the stored plan, so
 * no worker claims it (nor spends a limiter permit on it) before then, and it goes at that time.
 * The zone is the row's (an id-only row took its profile's at load), else the stored profile's,
 * else the tenant's. The expiry stays the one the message has without the wave; a wave that
 * starts at or after it is left to the send-time check, which expires it (`quiet_hours`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, type Harness } from '../helpers/harness.js';

const HOUR = 3_600_000;
/** 2026-11-29 22:00Z: 07:00 (Nov 30) in Tokyo, 23:00 in Berlin, 17:00 in New York (the tenant's zone). */
const AT = Date.UTC(2026, 10, 29, 22, 0, 0);
/** 08:00 in Tokyo (JST, UTC+9). */
const TOKYO_08 = Date.UTC(2026, 10, 29, 23, 0, 0);
/** 08:00 in Berlin (CET, UTC+1) the next morning. */
const BERLIN_08 = Date.UTC(2026, 10, 30, 7, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

const N = 10;
const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
/** Tokyo: the row names its zone. Berlin: id-only rows whose profiles name Europe/Berlin (the loader fills the zone). */
const TOKYO = ids('tokyo-', N);
const BERLIN = ids('berlin-', N);
/** Rows with addresses and no zone, whose stored profiles name Europe/Berlin: the plan counts them under the tenant's zone; fan-out reads the profile. */
const BERLIN_PROFILE = ids('bprof-', 2);
/** Rows with addresses, no zone and no profile: the tenant's zone (New York, 17:00 there: not quiet). */
const NEW_YORK = ids('ny-', N);

describe.each(DRIVERS)('campaign recipients due at their wave on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  const putProfile = async (id: string, body: Record<string, unknown>) => {
    const r = await h.app.inject({ method: 'PUT', url: `/v1/recipients/${id}`, headers: { authorization: `Bearer ${h.apiKey}` }, payload: body });
    expect(r.statusCode, r.body).toBeLessThan(300);
  };
  const deliveries = async () => {
    const items = (await h.get('/v1/deliveries?limit=100')).json.items as Array<Record<string, unknown>>;
    return new Map(items.map((d) => [d.recipient_id as string, d]));
  };
  const sentTo = () => new Set(h.sandbox.ledger.entries().map((e) => e.destination.split('@')[0]!));
  const setup = async (ttlSeconds: number) => {
    h = await createHarness({ driver });
    await h.store.scheduling.putPolicy(h.tenantId, { time_zone: 'America/New_York' }, h.clock.now());
    for (const id of BERLIN) await putProfile(id, { email: `${id}@example.com`, time_zone: 'Europe/Berlin' });
    for (const id of BERLIN_PROFILE) await putProfile(id, { email: `${id}@example.com`, time_zone: 'Europe/Berlin' });
    h.clock.set(AT);
    const created = await h.post('/v1/campaigns', {
      channel: 'email',
      purpose: 'marketing',
      content: { subject: 'Winter sale', text: '20% off' },
      deadline_at: iso(AT + 24 * HOUR),
      ttl_seconds: ttlSeconds,
      audience: {
        recipients: [
          ...TOKYO.map((id) => ({ id, email: `${id}@example.com`, time_zone: 'Asia/Tokyo' })),
          ...BERLIN.map((id) => ({ id })),
          ...BERLIN_PROFILE.map((id) => ({ id, email: `${id}@example.com` })),
          ...NEW_YORK.map((id) => ({ id, email: `${id}@example.com` })),
        ],
      },
      start: 'if_feasible',
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.plan.waves.map((w: Record<string, unknown>) => [w.time_zone, w.recipients, w.send_from])).toEqual([
      ['America/New_York', N + BERLIN_PROFILE.length, AT],
      ['Asia/Tokyo', N, TOKYO_08],
      ['Europe/Berlin', N, BERLIN_08],
    ]);
    expect((await h.campaigns.runOnce()).fannedOut).toBe(3 * N + BERLIN_PROFILE.length);
    return created.json.id as string;
  };

  it('queues each recipient due at its wave; nothing is claimed before its wave and each goes at it', async () => {
    const id = await setup(24 * 3600);
    const expiresAt = iso(AT + 24 * HOUR);
    const queued = await deliveries();
    for (const r of NEW_YORK) expect(queued.get(r)).toMatchObject({ state: 'ready', next_attempt_at: iso(AT), expires_at: expiresAt });
    for (const r of TOKYO) expect(queued.get(r)).toMatchObject({ state: 'ready', next_attempt_at: iso(TOKYO_08), expires_at: expiresAt });
    // The row's zone from its profile (at load) and the profile's zone read at fan-out both give Berlin's wave.
    for (const r of [...BERLIN, ...BERLIN_PROFILE])
      expect(queued.get(r)).toMatchObject({ state: 'ready', next_attempt_at: iso(BERLIN_08), expires_at: expiresAt });

    // Only New York's recipients are claimed now: the others are not taken (and held) early.
    expect((await h.worker.drain()).claimed).toBe(N);
    expect(sentTo()).toEqual(new Set(NEW_YORK));
    const afterFirst = await deliveries();
    for (const r of [...TOKYO, ...BERLIN, ...BERLIN_PROFILE]) expect(afterFirst.get(r)).toMatchObject({ state: 'ready', attempt_count: 0, hold_reason: null });

    h.clock.set(TOKYO_08 - 1);
    expect((await h.worker.drain()).claimed).toBe(0);
    h.clock.set(TOKYO_08);
    expect((await h.worker.drain()).claimed).toBe(N);
    expect(sentTo()).toEqual(new Set([...NEW_YORK, ...TOKYO]));

    h.clock.set(BERLIN_08 - 1);
    expect((await h.worker.drain()).claimed).toBe(0);
    h.clock.set(BERLIN_08);
    expect((await h.worker.drain()).claimed).toBe(N + BERLIN_PROFILE.length);
    expect(sentTo()).toEqual(new Set([...NEW_YORK, ...TOKYO, ...BERLIN, ...BERLIN_PROFILE]));

    // Every one sent on its first claim: none was ever held by the send-time check.
    for (const d of (await deliveries()).values()) expect(d).toMatchObject({ state: 'accepted', attempt_count: 1, hold_reason: null });
    expect((await h.campaigns.runOnce()).finished).toBe(1);
    expect((await h.get(`/v1/campaigns/${id}`)).json).toMatchObject({ status: 'completed' });
  });

  it('keeps the expiry counted from fan-out; a wave at or after it is left to the send-time check, which expires it', async () => {
    await setup(4 * 3600);
    const expiresAt = iso(AT + 4 * HOUR);
    const queued = await deliveries();
    // Tokyo's wave is before the expiry: due then, expiring when it would have anyway (not 4 h after its wave).
    for (const r of TOKYO) expect(queued.get(r)).toMatchObject({ next_attempt_at: iso(TOKYO_08), expires_at: expiresAt });
    // Berlin's wave is after it: due now, as before this change.
    for (const r of [...BERLIN, ...BERLIN_PROFILE]) expect(queued.get(r)).toMatchObject({ next_attempt_at: iso(AT), expires_at: expiresAt });

    expect((await h.worker.drain()).claimed).toBe(2 * N + BERLIN_PROFILE.length);
    const after = await deliveries();
    for (const r of [...BERLIN, ...BERLIN_PROFILE]) {
      expect(after.get(r)).toMatchObject({ state: 'terminal', terminal_reason: 'expired', hold_reason: 'quiet_hours', attempt_count: 0 });
    }
    h.clock.set(TOKYO_08);
    expect((await h.worker.drain()).claimed).toBe(N);
    expect(sentTo()).toEqual(new Set([...NEW_YORK, ...TOKYO]));
  });
});
