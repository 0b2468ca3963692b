/**
 * The limits on the way in (docs/abuse-limits.md) through the API, on both drivers: the per-key
 * request quota with its RateLimit fields and Retry-After, velocity per destination and per
 * recipient (single and batch intake, replays not counted, nothing written on a refusal, the key
 * free again), SMS countries and number types, GET /v1/limits and the refusal counter.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config.js';
import { resolveLimits } from '../../src/config/limits-config.js';
import type { IntakeLimitsPolicy } from '../../src/domain/index.js';
import { RetentionService } from '../../src/delivery/retention-service.js';
import { ReplayService } from '../../src/delivery/replay-service.js';
import { buildApp } from '../../src/http/app.js';
import { IntakeService } from '../../src/intake/intake-service.js';
import { createHarness, DRIVERS, otpBody, silentLogger, type Harness } from '../helpers/harness.js';

const MINUTE = 60_000;
const RETENTION = { contentDays: resolveConfig(undefined).retention.content_days, destinationDays: 90, otpEraseAfterSettled: true };

describe.each(DRIVERS)('limits on the way in (%s)', (driver) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  const harness = async (limits: IntakeLimitsPolicy) => (h = await createHarness({ driver, intake: { limits } }));
  const deliveries = async (hh: Harness) => Object.values(await hh.store.countByState()).reduce((a, b) => a + b, 0);
  const code = (phone: string, recipient = 'user-1', over: Record<string, unknown> = {}) =>
    otpBody({ recipient: { id: recipient, phone }, channels: ['sms'], ...over });

  it('answers 429 rate_limited past the per-key quota, with RateLimit, RateLimit-Policy and Retry-After, until the window resets', async () => {
    const hh = await harness(resolveLimits({ requests: { limit: 3, window_s: 60 }, velocity: { otp: {} } }));
    // T0 is on a whole minute: the window ends 60 s later.
    hh.clock.advance(15_000);
    const statuses: Array<{ status: number; headers: Record<string, unknown> }> = [];
    for (let i = 0; i < 4; i++) {
      const r = await hh.app.inject({ method: 'GET', url: '/v1/limits', headers: { authorization: `Bearer ${hh.apiKey}` } });
      statuses.push({ status: r.statusCode, headers: r.headers });
    }
    expect(statuses.map((s) => s.status)).toEqual([200, 200, 200, 429]);
    expect(statuses[0]!.headers['ratelimit-policy']).toBe('"per-key";q=3;w=60');
    expect(statuses.map((s) => s.headers.ratelimit)).toEqual(['"per-key";r=2;t=45', '"per-key";r=1;t=45', '"per-key";r=0;t=45', '"per-key";r=0;t=45']);
    expect(statuses[3]!.headers['retry-after']).toBe('45');
    const refused = await hh.send(code('+14155550123'));
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ code: 'rate_limited', limit: { name: 'request_rate', max: 3, window_s: 60 }, retry_after_s: 45 });
    expect(await deliveries(hh)).toBe(0);
    expect(hh.counters.series.intakeLimitRefusals.get({ limit: 'request_rate' })).toBe(2);
    // The next window starts again.
    hh.clock.advance(45_000);
    expect((await hh.send(code('+14155550123'))).status).toBe(202);
  });

  it('shares one quota between two API processes on the same database', async () => {
    const limits = resolveLimits({ requests: { limit: 4, window_s: 60 } });
    const hh = await harness(limits);
    const peer = hh.openPeerStore();
    const other = await buildApp({
      store: peer,
      intake: new IntakeService({ store: peer, accounts: hh.config.provider_accounts, clock: hh.clock, logger: silentLogger, limits }),
      replay: new ReplayService({ store: peer, clock: hh.clock }),
      clock: hh.clock,
      dashboard: null,
    });
    try {
      const get = (app: typeof other) => app.inject({ method: 'GET', url: '/v1/limits', headers: { authorization: `Bearer ${hh.apiKey}` } });
      const statuses = [];
      for (const app of [hh.app, other, hh.app, other, hh.app, other]) statuses.push((await get(app)).statusCode);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await other.close();
    }
  });

  it("gives a key its own quota, and counts one key's requests apart from another's", async () => {
    const hh = await harness(resolveLimits({ requests: { limit: 1, window_s: 60, keys: { key_test: { limit: 2 } } } }));
    const other = 'hld_other_key';
    const { hashApiKey } = await import('../../src/tenants/api-keys.js');
    await hh.store.createApiKey({ id: 'key_other', tenantId: hh.tenantId, keyHash: hashApiKey(other), label: 'other', now: hh.clock.now() });
    const get = (key: string) => hh.app.inject({ method: 'GET', url: '/v1/limits', headers: { authorization: `Bearer ${key}` } });
    expect([(await get(hh.apiKey)).statusCode, (await get(hh.apiKey)).statusCode, (await get(hh.apiKey)).statusCode]).toEqual([200, 200, 429]);
    const first = await get(other);
    expect(first.statusCode).toBe(200);
    expect(first.json().requests).toMatchObject({ limit: 1, window_s: 60, remaining: 0, shared: true });
    expect((await get(other)).statusCode).toBe(429);
  });

  it('refuses the sixth code to one number in 10 minutes with velocity_limited, writes nothing, and frees the key', async () => {
    const hh = await harness(resolveLimits({ requests: { enabled: false } }));
    for (let i = 0; i < 5; i++) {
      hh.clock.advance(MINUTE);
      // Five different people (recipients) asking for codes to the same number.
      expect((await hh.send(code('+14155550123', `user-${i}`))).status).toBe(202);
    }
    const before = await deliveries(hh);
    hh.clock.advance(MINUTE);
    const refused = await hh.send(code('+14155550123', 'user-9'), { 'idempotency-key': 'k-6' });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({
      code: 'velocity_limited',
      limit: { name: 'destination_velocity', purpose: 'otp', max: 5, window_s: 600, channel: 'sms' },
      // The first of the five was at +1 min, now is +6 min: it leaves the window at +11 min.
      retry_after_s: 300,
    });
    expect(refused.headers['retry-after']).toBe('300');
    expect(JSON.stringify(refused.json)).not.toContain('4155550123');
    expect(await deliveries(hh)).toBe(before);
    expect(hh.counters.series.intakeLimitRefusals.get({ limit: 'destination_velocity' })).toBe(1);
    // Other purposes have no rules by default; another number is its own count.
    expect((await hh.send(code('+14155550123', 'user-9', { purpose: 'transactional' }))).status).toBe(202);
    expect((await hh.send(code('+14155550124', 'user-9'))).status).toBe(202);
    // Once the oldest code leaves the window, the same key goes through: the refusal did not use it up.
    hh.clock.advance(300_000);
    const again = await hh.send(code('+14155550123', 'user-9'), { 'idempotency-key': 'k-6' });
    expect(again.status).toBe(202);
    // A replay of an accepted key is not another code.
    for (let i = 0; i < 3; i++) expect((await hh.send(code('+14155550123', 'user-9'), { 'idempotency-key': 'k-6' })).status).toBe(202);
    // Counted under the keyed hash masked destinations keep (HMAC with the destination-hash secret), not in clear.
    const hash = await new RetentionService({ store: hh.store, clock: hh.clock, logger: silentLogger, policy: RETENTION }).destinationHash(
      'sms',
      '+14155550123',
    );
    expect(await hh.store.intakeLimits.velocityCount(hh.tenantId, 'destination', hash, 'otp', hh.clock.now() - 600_000)).toBe(5);
    expect(await hh.store.intakeLimits.velocityCount(hh.tenantId, 'destination', '+14155550123', 'otp', 0)).toBe(0);
  });

  it('limits codes per recipient across its numbers', async () => {
    const hh = await harness(resolveLimits({ requests: { enabled: false }, velocity: { otp: { per_recipient: { max: 3, window_s: 3600 } } } }));
    for (let i = 0; i < 3; i++) expect((await hh.send(code(`+1415555010${i}`, 'victim'))).status).toBe(202);
    const refused = await hh.send(code('+14155550109', 'victim'));
    expect(refused.status).toBe(429);
    expect(refused.json.limit).toEqual({ name: 'recipient_velocity', purpose: 'otp', max: 3, window_s: 3600 });
    expect(refused.json.retry_after_s).toBe(3600);
    expect((await hh.send(code('+14155550109', 'someone-else'))).status).toBe(202);
  });

  it('counts batch items one after another: the sixth item to one number is refused, the others accepted', async () => {
    const hh = await harness(resolveLimits({ requests: { enabled: false } }));
    const items = Array.from({ length: 7 }, (_, i) => ({ ...code(i === 6 ? '+14155550999' : '+14155550123', `user-${i}`), idempotency_key: `b-${i}` }));
    const r = await hh.post('/v1/notifications/batch', { items });
    expect(r.status).toBeLessThan(300);
    const statuses = (r.json.results as Array<{ status: number; problem: { code: string } | null }>).map((x) => x.status);
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429, 202]);
    expect(r.json.results[5].problem).toMatchObject({ code: 'velocity_limited', limit: { name: 'destination_velocity' } });
    expect(await deliveries(hh)).toBe(6);
    // The refused item's key is free: sent again later, alone, it is accepted.
    hh.clock.advance(600_000);
    expect((await hh.send(code('+14155550123', 'user-5'), { 'idempotency-key': 'b-5' })).status).toBe(202);
  });

  it('refuses SMS to a country not enabled and to premium-rate numbers, naming the limit; other channels pass', async () => {
    const hh = await harness(resolveLimits({ requests: { enabled: false }, sms: { countries: ['US', 'GB'] } }));
    const fr = await hh.send(code('+33612345678'));
    expect(fr.status).toBe(422);
    expect(fr.json).toMatchObject({ code: 'country_not_allowed', limit: { name: 'sms_country', country: 'FR', allowed: ['US', 'GB'] } });
    expect(fr.json.errors).toEqual([{ field: 'recipient.phone', message: 'is in FR, where SMS is not enabled' }]);
    const premium = await hh.send(code('+449098790000'));
    expect(premium.status).toBe(422);
    expect(premium.json).toMatchObject({ code: 'number_type_not_allowed', limit: { name: 'sms_number_type', number_type: 'PREMIUM_RATE', country: 'GB' } });
    expect((await hh.send(otpBody({ recipient: { id: 'fr-user', phone: '+33612345678', email: 'fr@example.com' }, channels: ['email'] }))).status).toBe(202);
    expect((await hh.send(code('+447400123456'))).status).toBe(202);
    expect(await deliveries(hh)).toBe(2);
    expect(hh.counters.series.intakeLimitRefusals.get({ limit: 'sms_country' })).toBe(1);
    expect(hh.counters.series.intakeLimitRefusals.get({ limit: 'sms_number_type' })).toBe(1);
  });

  it('declares GET /v1/limits and the 429 of every limited route in the OpenAPI document', async () => {
    const hh = await harness(resolveLimits({}));
    const doc = (await hh.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.paths['/v1/limits'].get.responses['200']).toBeDefined();
    expect(doc.paths['/v1/notifications'].post.responses['429']).toBeDefined();
    expect(doc.paths['/v1/deliveries'].get.responses['429']).toBeDefined();
    // Components are named by their $id (app.ts's refResolver).
    expect(doc.components.schemas.problem.properties.limit).toBeDefined();
  });

  it('skips a campaign row whose phone is in a country not enabled or premium rate, and sends the others', async () => {
    const hh = await harness(resolveLimits({ requests: { enabled: false }, sms: { countries: ['US', 'GB'] } }));
    const created = await hh.post('/v1/campaigns', {
      name: 'SMS news',
      channel: 'sms',
      purpose: 'marketing',
      content: { text: 'News from Herald' },
      deadline_at: new Date(hh.clock.now() + 3600_000).toISOString(),
      audience: {
        recipients: [
          { id: 'us', phone: '+14155550123' },
          { id: 'fr', phone: '+33612345678' },
          { id: 'premium', phone: '+449098790000' },
        ],
      },
      start: 'if_feasible',
    });
    expect(created.status).toBe(201);
    expect(await hh.campaigns.runOnce()).toMatchObject({ fannedOut: 1, skipped: 2 });
    expect(await deliveries(hh)).toBe(1);
  });

  it('shows the limits at GET /v1/limits', async () => {
    const hh = await harness(resolveLimits({ sms: { countries: ['US'] } }));
    const r = await hh.get('/v1/limits');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      requests: { policy: 'per-key', limit: 600, window_s: 60, remaining: 599, reset_s: 60, shared: true },
      velocity: [
        { purpose: 'otp', limit: 'destination_velocity', max: 5, window_s: 600 },
        { purpose: 'otp', limit: 'recipient_velocity', max: 10, window_s: 3600 },
      ],
      sms: { countries: ['US'], refuse_number_types: ['PREMIUM_RATE'] },
    });
  });
});
