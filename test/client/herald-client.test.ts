/**
 * @herald/client against a running Herald: the harness's app listening on a real port, the
 * client speaking HTTP to it with fetch (no inject). What the compiler checks (paths, bodies,
 * answers, the problem type) is pinned with expectTypeOf, which `npm run typecheck` verifies;
 * what the server answers is checked at run time.
 */
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { createHeraldClient, type components, type HeraldClient, type Problem } from '@herald/client';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
let client: HeraldClient;
beforeEach(async () => {
  h = await createHarness({ listen: true });
  client = createHeraldClient({ baseUrl: `${h.apiUrl!}/`, apiKey: h.apiKey });
});
afterEach(() => h.close());

describe('@herald/client against a listening Herald', () => {
  it('sends a notification and reads it back, typed by the OpenAPI document', async () => {
    const sent = await client.POST('/v1/notifications', {
      body: {
        recipient: { id: 'user-1', email: 'ada@example.com', phone: '+14155550123' },
        purpose: 'otp',
        channels: ['email', 'sms'],
        content: { subject: 'Your code', text: 'Your code is 123456' },
        ttl_seconds: 300,
      },
      headers: { 'idempotency-key': 'client-test-1' },
    });
    expect(sent.response.status, JSON.stringify(sent.error)).toBe(202);
    expectTypeOf(sent.data).toEqualTypeOf<components['schemas']['NotificationAccepted'] | undefined>();
    const accepted = sent.data!;
    expect(accepted.deliveries.map((d) => [d.channel, d.state])).toEqual([
      ['email', 'ready'],
      ['sms', 'ready'],
    ]);

    const read = await client.GET('/v1/notifications/{id}', { params: { path: { id: accepted.id } } });
    expect(read.response.status).toBe(200);
    expectTypeOf(read.data).toEqualTypeOf<components['schemas']['NotificationDetail'] | undefined>();
    expect(read.data).toMatchObject({ id: accepted.id, purpose: 'otp', recipient_id: 'user-1', channels: ['email', 'sms'] });
    expect(read.data!.deliveries.map((d) => d.id)).toEqual(accepted.deliveries.map((d) => d.id));

    await h.worker.drain();
    const delivery = await client.GET('/v1/deliveries/{id}', { params: { path: { id: accepted.deliveries[0]!.id } } });
    expect(delivery.data).toMatchObject({ state: 'accepted', attempt_count: 1 });
    expect(delivery.data!.attempts).toHaveLength(1);
  });

  it('answers errors as typed problem+json with their stable codes', async () => {
    const missing = await client.GET('/v1/notifications/{id}', { params: { path: { id: 'ntf_missing' } } });
    // The error is the problem schema, its `code` the closed set of error codes (src/errors.ts).
    expectTypeOf<NonNullable<typeof missing.error>>().toExtend<Problem>();
    expectTypeOf<NonNullable<typeof missing.error>['code']>().toEqualTypeOf<Problem['code']>();
    expectTypeOf<'not_found'>().toExtend<Problem['code']>();
    expectTypeOf<'no_such_code'>().not.toExtend<Problem['code']>();
    expect(missing.data).toBeUndefined();
    expect(missing.response.status).toBe(404);
    expect(missing.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(missing.error).toMatchObject({ status: 404, code: 'not_found' });

    const invalid = await client.POST('/v1/notifications', {
      // A body the types allow (an e-mail channel) that the server refuses: no address to send to.
      body: { recipient: { id: 'user-2' }, purpose: 'transactional', channels: ['email'], content: { text: 'hi' } },
    });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error?.code).toBe('validation_failed');

    const stranger = createHeraldClient({ baseUrl: h.apiUrl!, apiKey: 'hk_not_a_key' });
    const refused = await stranger.GET('/v1/deliveries', {});
    expect(refused.response.status).toBe(401);
    expect(refused.error?.code).toBe('unauthorized');
  });
});
