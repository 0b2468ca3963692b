/**
 * User reports, on both drivers: a producer's support tooling files "a duplicate" or "nothing
 * received" for a notification; it is stored as said, counted per channel and purpose, listed on
 * the notification beside its evidence, and refused clearly (nothing stored) when it cannot be.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';

describe.each(DRIVERS)('user reports on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  it('stores a report, shows it on the notification beside one ledger-confirmed submission, and counts it', async () => {
    h = await createHarness({ driver });
    const sent = await h.send(otpBody());
    await h.worker.drain();
    const r = await h.post(`/v1/notifications/${sent.json.id}/reports`, { kind: 'duplicate', channel: 'sms', note: 'customer got the code twice' });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json).toMatchObject({ id: expect.stringMatching(/^rpt_/), kind: 'duplicate', channel: 'sms', note: 'customer got the code twice' });
    await h.post(`/v1/notifications/${sent.json.id}/reports`, { kind: 'not_received' });
    const n = await h.get(`/v1/notifications/${sent.json.id}`);
    expect(n.json.reports.map((x: { kind: string; channel: string | null }) => [x.kind, x.channel])).toEqual([
      ['duplicate', 'sms'],
      ['not_received', null],
    ]);
    // The evidence to compare it with: one submission the provider's ledger confirms.
    expect(n.json.deliveries[0].attempts).toHaveLength(1);
    expect(h.sandbox.ledger.countByKey(n.json.deliveries[0].idempotency_key)).toBe(1);
    // Counted by this process (GET /metrics) and, from the store, in the tenant's GET /v1/stats.
    expect(h.counters.get('user_reported_duplicates', { channel: 'sms', purpose: 'otp' })).toBe(1);
    expect(h.counters.get('user_reported_not_received', { channel: 'sms', purpose: 'otp' })).toBe(1);
    expect((await h.get('/v1/stats')).json.reports).toEqual({ duplicate: 1, not_received: 1 });
  });

  it('refuses what it cannot store, naming why, and stores nothing', async () => {
    h = await createHarness({ driver });
    const sent = await h.send(otpBody());
    const unknown = await h.post('/v1/notifications/ntf_01ZZZZZZZZZZZZZZZZZZZZZZZZ/reports', { kind: 'duplicate' });
    expect(unknown.status).toBe(404);
    const badKind = await h.post(`/v1/notifications/${sent.json.id}/reports`, { kind: 'angry' });
    expect(badKind.status).toBe(400);
    const otherChannel = await h.post(`/v1/notifications/${sent.json.id}/reports`, { kind: 'not_received', channel: 'email' });
    expect(otherChannel.status).toBe(400);
    expect(otherChannel.json.errors[0].field).toBe('channel');
    expect((await h.get(`/v1/notifications/${sent.json.id}`)).json.reports).toEqual([]);
  });
});
