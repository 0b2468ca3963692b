/**
 * Provider callbacks are accepted only on their own account's route, verified by that account's
 * own scheme (issue 18 item 6): an event signed with account A's secret is refused on account B's
 * route, an unknown account's route answers 404, the event on another route (the intake's) is
 * an API request without a key, and nothing is recorded for any of them. The same bytes on A's
 * route are recorded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { callbackEventBody } from '../../src/sandbox/callback-dispatcher.js';
import { signWebhook } from '../../src/signing/standard-webhooks.js';
import { createHarness, DRIVERS, type Harness } from '../helpers/harness.js';

describe.each(DRIVERS)('callback routing (%s)', (driver) => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('an event signed for one account is refused on every other route, and recorded on its own', async () => {
    h = await createHarness({ driver, callbacks: true });
    const email = h.config.provider_accounts.find((a) => a.id === 'sandbox-email')!;
    const body = callbackEventBody({
      eventId: 'evt_routing_1',
      providerMessageId: 'pm_1',
      reference: 'ref_1',
      occurredAt: new Date(h.clock.now()),
      channel: 'email',
      status: 'delivered',
    });
    const headers = { 'content-type': 'application/json', ...signWebhook(email.callback_secrets!, 'evt_routing_1', h.clock.now(), body) };
    const post = (url: string) => h.app.inject({ method: 'POST', url, headers, payload: body });

    const other = await post('/v1/callbacks/sandbox-sms');
    expect(other.statusCode).toBe(401);
    expect(other.json().code).toBe('callback_signature_invalid');
    const unknown = await post('/v1/callbacks/no-such-account');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('callbacks_not_configured');
    const intake = await post('/v1/notifications');
    expect(intake.statusCode).toBe(401);
    expect(intake.json().code).toBe('unauthorized');
    expect((await post('/v1/callbacks/sandbox-email/')).statusCode).toBeGreaterThanOrEqual(400);

    const own = await post('/v1/callbacks/sandbox-email');
    expect(own.statusCode, own.body).toBe(200);
    expect(own.json()).toEqual({ received: 1, duplicates: 0 });
  });
});
