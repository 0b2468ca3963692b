/**
 * The relay and the sender against a real HTTP receiver on 127.0.0.1, on both drivers, with a
 * manual clock driving runOnce(): signed messages verify with the endpoint's secret (either one
 * during a rotation); an endpoint that is down (503, then refusing connections) gets one probe
 * per backoff step and, once back, every event in order per notification; 410 disables it until
 * it is re-enabled; Retry-After, redirects and the connect-time address check are honoured.
 */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { AddressPolicy } from '../../src/webhooks/address-policy.js';
import { WebhookEndpoints } from '../../src/webhooks/endpoint-service.js';
import { verifyWebhook } from '../../src/signing/standard-webhooks.js';
import { WebhookRelay } from '../../src/webhooks/webhook-relay.js';
import { WebhookSender, type SendPass } from '../../src/webhooks/webhook-sender.js';
import { DRIVERS } from '../helpers/harness.js';
import { HOUR, MINUTE, SECOND, T0 } from '../store/fixtures.js';
import { TENANT, createTwoChannelNotification, eventKey, expectInOrder, openTestStore, transitionAll, type EventLog, type TestStore } from './fixtures.js';
import { startReceiver, type Receiver } from './receiver.js';

const logger = pino({ level: 'silent' });
const LOOPBACK = new AddressPolicy({ allowNetworks: ['127.0.0.0/8', '::1/128'] });
const accepted = { kind: 'accepted', providerMessageId: 'pm' } as const;
const retryable = { kind: 'retryable', code: 'http_503', message: 'busy' } as const;

describe.each(DRIVERS)('webhook delivery (%s)', (driver) => {
  let t: TestStore;
  let clock: ManualClock;
  let receiver: Receiver;
  let relay: WebhookRelay;
  let sender: WebhookSender;
  let endpoints: WebhookEndpoints;
  let log: EventLog;
  /** Signature failures seen by the receiver (checked with the secrets the test says are valid). */
  let badSignatures: string[];
  let secrets: string[];

  beforeEach(async () => {
    clock = new ManualClock(T0);
    t = await openTestStore(driver, T0);
    receiver = await startReceiver();
    badSignatures = [];
    receiver.respond = (r) => {
      const ok = secrets.every((s) => verifyWebhook([s], r.headers, r.body, clock.now()).ok);
      if (!ok) badSignatures.push(r.id);
      return { status: 204 };
    };
    relay = new WebhookRelay({ store: t.store, clock, logger });
    sender = newSender();
    endpoints = new WebhookEndpoints({ store: t.store, clock, policy: LOOPBACK });
    log = new Map();
  });
  afterEach(async () => {
    await sender.stop();
    await receiver.close();
    await t.close();
  });

  function newSender(policy = LOOPBACK): WebhookSender {
    return new WebhookSender({ store: t.store, clock, logger, policy, timeoutMs: 2_000, concurrencyPerEndpoint: 8, random: () => 0, owner: 'test-sender' });
  }

  async function register(eventTypes = ['*']): Promise<string> {
    const r = await endpoints.create(TENANT, { url: receiver.url, eventTypes, description: null });
    secrets = [r.secret];
    return r.endpoint.id;
  }

  async function pass(): Promise<SendPass> {
    await relay.runOnce();
    return sender.runOnce();
  }

  const view = async (id: string) => (await t.store.webhooks.getWebhookEndpoint(TENANT, id))!;

  it('signs with the endpoint secret; during a rotation both secrets verify; after 24 h only the new one', async () => {
    const id = await register();
    const n = await createTwoChannelNotification(t.store, clock.now(), log);
    expect(await pass()).toMatchObject({ endpoints: 1, requests: 1, delivered: 1 });
    const first = receiver.delivered[0]!;
    expect(first.id).toMatch(/^msg_/);
    expect(first.headers['content-type']).toBe('application/json');
    expect(JSON.parse(first.body)).toEqual({
      type: 'notification.created',
      timestamp: new Date(T0).toISOString(),
      data: { notification_id: n, purpose: 'transactional', deliveries: expect.any(Array) },
    });

    const oldSecret = secrets[0]!;
    const rotated = await endpoints.rotate(TENANT, id);
    expect(rotated.secret).not.toBe(oldSecret);
    expect(rotated.endpoint.previousSecretUntil).toBe(clock.now() + 24 * HOUR);
    secrets = [oldSecret, rotated.secret]; // each alone must verify
    clock.advance(HOUR);
    await transitionAll(t.store, 'acct-email', clock.now(), accepted, log);
    await pass();
    expect(receiver.delivered[1]!.signature.split(' ')).toHaveLength(2);

    clock.advance(24 * HOUR);
    secrets = [rotated.secret];
    await transitionAll(t.store, 'acct-sms', clock.now(), accepted, log);
    await pass();
    const last = receiver.delivered[2]!;
    expect(last.signature.split(' ')).toHaveLength(1);
    expect(verifyWebhook([oldSecret], last.headers, last.body, clock.now())).toEqual({ ok: false, reason: 'bad_signature' });
    expect(badSignatures).toEqual([]);
    expectInOrder(receiver.requests, log);
  });

  it('an endpoint that is down (503, then refusing connections) gets every event in order once it is back', async () => {
    const id = await register();
    for (let i = 0; i < 12; i++) await createTwoChannelNotification(t.store, clock.now() + i, log);
    expect(await pass()).toMatchObject({ requests: 12, delivered: 12 });

    // Down, answering 503: the first round fails, then the endpoint backs off and is probed once per step.
    receiver.respond = () => ({ status: 503 });
    clock.advance(SECOND);
    expect(await transitionAll(t.store, 'acct-email', clock.now(), retryable, log)).toBe(12);
    const down = await pass();
    expect(down).toMatchObject({ requests: 8, delivered: 0 });
    expect(await view(id)).toMatchObject({ status: 'active', failureCount: 1, nextAttemptAt: clock.now() + 5 * SECOND, lastFailure: { status: 503 } });
    const probes: number[] = [];
    for (let i = 0; i < 3; i++) {
      clock.set((await view(id)).nextAttemptAt!);
      probes.push((await pass()).requests);
    }
    // Then it refuses connections.
    await receiver.close();
    expect(await transitionAll(t.store, 'acct-sms', clock.now(), accepted, log)).toBe(12);
    for (let i = 0; i < 3; i++) {
      clock.set((await view(id)).nextAttemptAt!);
      probes.push((await pass()).requests);
    }
    expect(probes).toEqual([1, 1, 1, 1, 1, 1]);
    const outage = await view(id);
    expect(outage).toMatchObject({
      failureCount: 7,
      failingSince: T0 + SECOND,
      lastFailure: { status: null, error: expect.stringMatching(/^(ECONNREFUSED|ECONNRESET)/) },
    });
    // The schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then 14 h.
    expect(outage.nextAttemptAt! - outage.lastFailure!.at).toBe(14 * HOUR);

    // Back, on the same port; more events meanwhile.
    receiver.respond = () => ({ status: 200 });
    await receiver.open();
    expect(await transitionAll(t.store, 'acct-email', clock.now() + SECOND, accepted, log)).toBe(12);
    for (let i = 0; i < 5 && (await view(id)).pending > 0; i++) {
      clock.set(Math.max(clock.now() + SECOND, (await view(id)).nextAttemptAt ?? 0));
      await pass();
    }
    expect(await view(id)).toMatchObject({ pending: 0, delivered: 48, failureCount: 0, failingSince: null, nextAttemptAt: null });
    expect(new Set(receiver.delivered.map((r) => r.id)).size).toBe(48);
    expectInOrder(receiver.delivered, log);
    expect(badSignatures).toEqual([]);
  });

  it('keeps the webhook-id across retries, signs each attempt at its own time, and treats 3xx as a failure without following it', async () => {
    const elsewhere = await startReceiver();
    try {
      await register();
      receiver.respond = () => ({ status: 307, headers: { location: elsewhere.url } });
      await createTwoChannelNotification(t.store, clock.now(), log);
      expect(await pass()).toMatchObject({ requests: 1, failed: 1 });
      clock.advance(10 * SECOND);
      receiver.respond = (r) => ({ status: verifyWebhook(secrets, r.headers, r.body, clock.now()).ok ? 200 : 400 });
      expect(await pass()).toMatchObject({ requests: 1, delivered: 1 });
      const [a, b] = receiver.requests;
      expect(b!.id).toBe(a!.id);
      expect(Number(b!.timestamp) - Number(a!.timestamp)).toBe(10);
      expect(b!.body).toBe(a!.body);
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('410 disables the endpoint and stops deliveries; enabling it resumes them in order', async () => {
    const id = await register();
    await createTwoChannelNotification(t.store, clock.now(), log);
    receiver.respond = () => ({ status: 410 });
    expect(await pass()).toMatchObject({ requests: 1, disabled: 1 });
    expect(await view(id)).toMatchObject({ status: 'disabled', disabledReason: 'gone', disabledAt: clock.now(), pending: 1, lastFailure: { status: 410 } });

    // Nothing is sent any more, and events published while disabled are not queued for it.
    await transitionAll(t.store, 'acct-email', clock.now(), accepted, log);
    clock.advance(2 * 24 * HOUR);
    expect(await pass()).toMatchObject({ endpoints: 0, requests: 0 });
    expect(receiver.requests).toHaveLength(1);
    expect((await view(id)).pending).toBe(1);

    receiver.respond = () => ({ status: 200 });
    expect(await endpoints.enable(TENANT, id)).toMatchObject({ status: 'active', disabledReason: null, failureCount: 0 });
    await transitionAll(t.store, 'acct-sms', clock.now(), accepted, log);
    await pass();
    expect(await view(id)).toMatchObject({ status: 'active', pending: 0, delivered: 2 });
    const types = receiver.delivered.map((r) => eventKey(r.body).key.split(':')[0]);
    expect(types).toEqual(['notification.created', 'delivery.accepted']);
  });

  it('honours Retry-After on 429 as the earliest next request', async () => {
    const id = await register();
    await createTwoChannelNotification(t.store, clock.now(), log);
    receiver.respond = () => ({ status: 429, headers: { 'retry-after': '120' } });
    await pass();
    expect((await view(id)).nextAttemptAt).toBe(clock.now() + 120 * SECOND);
    clock.advance(119 * SECOND);
    expect(await pass()).toMatchObject({ requests: 0 });
    receiver.respond = () => ({ status: 202 });
    clock.advance(SECOND);
    expect(await pass()).toMatchObject({ requests: 1, delivered: 1 });
  });

  it('only subscribed event types are sent', async () => {
    await register(['delivery.accepted']);
    await createTwoChannelNotification(t.store, clock.now(), log);
    await transitionAll(t.store, 'acct-email', clock.now(), retryable, log);
    clock.advance(MINUTE);
    await transitionAll(t.store, 'acct-email', clock.now(), accepted, log);
    await pass();
    expect(receiver.delivered.map((r) => JSON.parse(r.body).type)).toEqual(['delivery.accepted']);
  });

  it('refuses at connect time a host that resolves to a private address when the sender does not allow it', async () => {
    const id = await register();
    // Registered while loopback was allowed, by name; the sender's policy no longer allows it.
    const byName = `http://localhost:${receiver.port}/hooks`;
    await t.store.webhooks.deleteWebhookEndpoint(TENANT, id);
    const created = await endpoints.create(TENANT, { url: byName, eventTypes: ['*'], description: null });
    const strictSender = newSender(new AddressPolicy());
    try {
      await createTwoChannelNotification(t.store, clock.now(), log);
      await relay.runOnce();
      expect(await strictSender.runOnce()).toMatchObject({ requests: 1, failed: 1 });
      expect(receiver.requests).toEqual([]);
      expect((await view(created.endpoint.id)).lastFailure).toMatchObject({
        status: null,
        error: expect.stringMatching(/^refused: host localhost resolves to a non-public address/),
      });
    } finally {
      await strictSender.stop();
    }
  });
});
