/**
 * The customer-webhook part of the Store contract, run against every driver: endpoints are
 * tenant-scoped; the relay fans each outbox row out once per subscribed active endpoint and
 * marks it published; only the first undelivered message of a notification is sendable; an
 * endpoint is leased by one sender at a time; failures, 410 and re-enabling are recorded the
 * same way in SQLite and PostgreSQL.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../src/domain/index.js';
import type { Store } from '../../src/store/store.js';
import type { WebhookMessage } from '../../src/store/webhook-store.js';
import type { StoreFixture } from './conformance.js';
import { HOUR, MINUTE, SECOND, T0, buildNotification, mustDecide, newId } from './fixtures.js';

const TENANT = 't_alpha';
const OTHER = 't_beta';
const ACCOUNT = 'acct-email';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const LEASE = 60 * SECOND;

/** Claims the notification's one delivery and reports `outcome`: one outbox row (`delivery.<state>`). */
async function transition(store: Store, now: number, outcome: SubmitOutcome): Promise<void> {
  const [c] = await store.claimBatch({ providerAccount: ACCOUNT, workerId: 'w1', now, leaseMs: 30 * SECOND, limit: 1 });
  if (!c) throw new Error('nothing to claim');
  const t = mustDecide({ state: 'submitting', attemptCount: c.attemptNumber, expiresAt: c.expiresAt, nextAttemptAt: null }, { type: 'outcome', outcome }, now);
  const [r] = await store.applyTransitions([
    {
      deliveryId: c.deliveryId,
      expect: { state: 'submitting', leaseVersion: c.leaseVersion },
      transition: t,
      now,
      attempt: { number: c.attemptNumber, outcome },
    },
  ]);
  expect(r!.applied).toBe(true);
}

const accepted: SubmitOutcome = { kind: 'accepted', providerMessageId: 'pm-1' };
const retryable: SubmitOutcome = { kind: 'retryable', code: 'http_503', message: 'unavailable' };

/** Runs the webhook contract against one driver. */
export function webhookConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Webhook store conformance: ${name}`, () => {
    let fx: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      fx = await makeStore();
      store = fx.store;
      await store.ensureTenant({ id: TENANT, name: 'Alpha' }, T0);
      await store.ensureTenant({ id: OTHER, name: 'Beta' }, T0);
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    async function endpoint(tenantId: string, eventTypes: string[] = ['*'], url = 'https://hooks.example.com/h'): Promise<string> {
      const id = newId('whe');
      await store.webhooks.createWebhookEndpoint({ id, tenantId, url, description: null, eventTypes, secret: SECRET, now: T0 });
      return id;
    }

    async function notify(tenantId = TENANT, createdAt = T0): Promise<string> {
      const n = buildNotification({ tenantId, createdAt });
      await store.createNotification(n);
      return n.id;
    }

    const heads = (endpointId: string, now = T0, limit = 100) => store.webhooks.listWebhookHeads({ endpointId, now, limit });

    async function deliver(endpointId: string, messages: WebhookMessage[], now = T0): Promise<void> {
      await store.webhooks.recordWebhookAttempts({
        endpointId,
        owner: 'o1',
        now,
        leaseUntil: now + LEASE,
        attempts: messages.map((m) => ({ messageId: m.id, delivered: true, status: 200, error: null, nextAttemptAt: null })),
        endpoint: { kind: 'healthy' },
      });
    }

    describe('endpoints', () => {
      it('are created active, listed oldest first per tenant, never with the secret, and deleted with their messages', async () => {
        const a = await endpoint(TENANT, ['delivery.accepted']);
        const b = await endpoint(TENANT);
        const c = await endpoint(OTHER);
        expect((await store.webhooks.listWebhookEndpoints(TENANT)).map((e) => e.id)).toEqual([a, b]);
        const view = await store.webhooks.getWebhookEndpoint(TENANT, a);
        expect(view).toMatchObject({
          id: a,
          tenantId: TENANT,
          url: 'https://hooks.example.com/h',
          eventTypes: ['delivery.accepted'],
          status: 'active',
          disabledReason: null,
          failureCount: 0,
          lastFailure: null,
          previousSecretUntil: null,
          pending: 0,
          delivered: 0,
          createdAt: T0,
        });
        expect(JSON.stringify(view)).not.toContain(SECRET.slice(6));
        expect(await store.webhooks.getWebhookEndpoint(TENANT, c)).toBeNull();

        await notify();
        await store.webhooks.relayOutbox({ now: T0, limit: 100 });
        expect((await store.webhooks.getWebhookEndpoint(TENANT, b))!.pending).toBe(1);
        expect(await store.webhooks.deleteWebhookEndpoint(OTHER, b)).toBe(false);
        expect(await store.webhooks.deleteWebhookEndpoint(TENANT, b)).toBe(true);
        expect(await store.webhooks.getWebhookEndpoint(TENANT, b)).toBeNull();
        expect(await store.webhooks.claimWebhookEndpoints({ now: T0, owner: 'o1', leaseMs: LEASE, limit: 10 })).toEqual([]);
      });

      it('rotate keeps the previous secret until the given time; another tenant cannot rotate or enable', async () => {
        const a = await endpoint(TENANT);
        expect(await store.webhooks.rotateWebhookSecret({ tenantId: OTHER, id: a, secret: 'whsec_x', previousUntil: T0 + HOUR, now: T0 })).toBe(false);
        expect(await store.webhooks.enableWebhookEndpoint({ tenantId: OTHER, id: a, now: T0 })).toBe(false);
        expect(await store.webhooks.rotateWebhookSecret({ tenantId: TENANT, id: a, secret: 'whsec_new', previousUntil: T0 + HOUR, now: T0 })).toBe(true);
        expect((await store.webhooks.getWebhookEndpoint(TENANT, a))!.previousSecretUntil).toBe(T0 + HOUR);
        await notify();
        await store.webhooks.relayOutbox({ now: T0, limit: 100 });
        const [target] = await store.webhooks.claimWebhookEndpoints({ now: T0, owner: 'o1', leaseMs: LEASE, limit: 10 });
        expect(target).toMatchObject({ id: a, url: 'https://hooks.example.com/h', secret: 'whsec_new', previousSecret: { secret: SECRET, until: T0 + HOUR } });
      });
    });

    describe('relay', () => {
      it('fans each row out once per active endpoint of its tenant subscribed to its type, and publishes every row', async () => {
        const all = await endpoint(TENANT, ['*']);
        const acceptedOnly = await endpoint(TENANT, ['delivery.accepted']);
        const other = await endpoint(OTHER, ['notification.created']);
        const n1 = await notify(TENANT);
        await notify(OTHER);
        await transition(store, T0 + SECOND, accepted);

        expect(await store.webhooks.relayOutbox({ now: T0 + 2 * SECOND, limit: 100 })).toEqual({ published: 3, messages: 4 });
        // Published rows are not published again.
        expect(await store.webhooks.relayOutbox({ now: T0 + 3 * SECOND, limit: 100 })).toEqual({ published: 0, messages: 0 });

        const [created] = await heads(all, T0 + 2 * SECOND);
        expect(await heads(all, T0 + 2 * SECOND)).toHaveLength(1);
        expect(created).toMatchObject({ endpointId: all, notificationId: n1, deliveryId: null, eventType: 'notification.created', eventAt: T0, attempts: 0 });
        expect(created!.payload).toMatchObject({ notification_id: n1, purpose: 'transactional' });
        expect(created!.id).toMatch(/^msg_[0-9a-f]{32}$/);
        const [acc] = await heads(acceptedOnly, T0 + 2 * SECOND);
        expect(acc).toMatchObject({ notificationId: n1, eventType: 'delivery.accepted', eventAt: T0 + SECOND });
        expect(acc!.payload).toMatchObject({ state: 'accepted', from: 'submitting' });
        expect(acc!.id).not.toBe(created!.id);
        expect((await heads(other, T0 + 2 * SECOND)).map((m) => m.eventType)).toEqual(['notification.created']);
      });

      it('publishes the rows of tenants without endpoints, and an endpoint registered later gets only later events', async () => {
        await notify(TENANT);
        expect(await store.webhooks.relayOutbox({ now: T0, limit: 100 })).toEqual({ published: 1, messages: 0 });
        const late = await endpoint(TENANT);
        expect(await store.webhooks.relayOutbox({ now: T0, limit: 100 })).toEqual({ published: 0, messages: 0 });
        await notify(TENANT);
        expect(await store.webhooks.relayOutbox({ now: T0, limit: 100 })).toEqual({ published: 1, messages: 1 });
        expect(await heads(late)).toHaveLength(1);
      });

      it('publishes in batches of `limit`, lowest ids first', async () => {
        const e = await endpoint(TENANT);
        const ids = [];
        for (let i = 0; i < 5; i++) ids.push(await notify(TENANT, T0 + i * SECOND));
        expect(await store.webhooks.relayOutbox({ now: T0, limit: 2 })).toEqual({ published: 2, messages: 2 });
        expect((await heads(e)).map((m) => m.notificationId)).toEqual(ids.slice(0, 2));
        expect(await store.webhooks.relayOutbox({ now: T0, limit: 10 })).toEqual({ published: 3, messages: 3 });
        expect((await heads(e)).map((m) => m.notificationId)).toEqual(ids);
      });

      it('two relays at once publish every row exactly once', async () => {
        const other = await fx.openPeer!();
        await other.migrate();
        const e = await endpoint(TENANT);
        for (let i = 0; i < 20; i++) await notify(TENANT, T0 + i * SECOND);
        const [a, b] = await Promise.all([store.webhooks.relayOutbox({ now: T0, limit: 7 }), other.webhooks.relayOutbox({ now: T0, limit: 7 })]);
        const rest = await store.webhooks.relayOutbox({ now: T0, limit: 100 });
        expect(a.published + b.published + rest.published).toBe(20);
        expect(a.messages + b.messages + rest.messages).toBe(20);
        expect(await heads(e)).toHaveLength(20);
      });

      it('creates nothing for a disabled endpoint', async () => {
        const e = await endpoint(TENANT);
        await store.webhooks.recordWebhookAttempts({
          endpointId: e,
          owner: 'o1',
          now: T0,
          leaseUntil: T0,
          attempts: [],
          endpoint: { kind: 'disabled', reason: 'gone', status: 410, error: 'gone' },
        });
        await notify(TENANT);
        expect(await store.webhooks.relayOutbox({ now: T0, limit: 100 })).toEqual({ published: 1, messages: 0 });
      });
    });

    describe('heads: one sendable message per notification, in publication order', () => {
      it('a later event waits until every earlier event of its notification is delivered; other notifications go on', async () => {
        const e = await endpoint(TENANT);
        const n1 = await notify(TENANT, T0);
        await transition(store, T0 + SECOND, retryable); // n1: delivery.retryable
        const n2 = await notify(TENANT, T0 + 2 * SECOND);
        await store.webhooks.relayOutbox({ now: T0, limit: 100 });
        await transition(store, T0 + 3 * SECOND, accepted); // n1 again (its retry is due first): delivery.accepted
        await store.webhooks.relayOutbox({ now: T0, limit: 100 });

        let h = await heads(e, T0 + 10 * SECOND);
        expect(h.map((m) => [m.notificationId, m.eventType])).toEqual([
          [n1, 'notification.created'],
          [n2, 'notification.created'],
        ]);
        // n1's first event fails and waits 5 minutes: n1's later events wait with it; n2 does not.
        await store.webhooks.recordWebhookAttempts({
          endpointId: e,
          owner: 'o1',
          now: T0 + 10 * SECOND,
          leaseUntil: T0 + LEASE,
          attempts: [
            { messageId: h[0]!.id, delivered: false, status: 503, error: 'answered 503', nextAttemptAt: T0 + 5 * MINUTE },
            { messageId: h[1]!.id, delivered: true, status: 204, error: null, nextAttemptAt: null },
          ],
          endpoint: { kind: 'healthy' },
        });
        expect(await heads(e, T0 + 11 * SECOND)).toEqual([]);
        h = await heads(e, T0 + 5 * MINUTE);
        expect(h.map((m) => [m.notificationId, m.eventType, m.attempts])).toEqual([[n1, 'notification.created', 1]]);
        await deliver(e, h);
        h = await heads(e, T0 + 5 * MINUTE);
        expect(h.map((m) => m.eventType)).toEqual(['delivery.retryable']);
        await deliver(e, h);
        expect((await heads(e, T0 + 5 * MINUTE)).map((m) => m.eventType)).toEqual(['delivery.accepted']);
        expect(await store.webhooks.getWebhookEndpoint(TENANT, e)).toMatchObject({ pending: 1, delivered: 3 });
      });

      it('respects the limit, lowest seq first', async () => {
        const e = await endpoint(TENANT);
        const ids = [];
        for (let i = 0; i < 4; i++) ids.push(await notify(TENANT, T0 + i * SECOND));
        await store.webhooks.relayOutbox({ now: T0, limit: 100 });
        expect((await heads(e, T0, 3)).map((m) => m.notificationId)).toEqual(ids.slice(0, 3));
        expect(await heads(e, T0 - 1)).toEqual([]);
      });
    });

    describe('endpoint leases and health', () => {
      it('one sender at a time: a leased endpoint is not claimed again until released or its lease runs out', async () => {
        const other = await fx.openPeer!();
        await other.migrate();
        const e = await endpoint(TENANT);
        const e2 = await endpoint(TENANT);
        const idle = await endpoint(OTHER); // no messages: never claimed
        await notify(TENANT);
        await store.webhooks.relayOutbox({ now: T0, limit: 100 });

        const [a, b] = await Promise.all([
          store.webhooks.claimWebhookEndpoints({ now: T0, owner: 'A', leaseMs: LEASE, limit: 1 }),
          other.webhooks.claimWebhookEndpoints({ now: T0, owner: 'B', leaseMs: LEASE, limit: 1 }),
        ]);
        const c = await store.webhooks.claimWebhookEndpoints({ now: T0, owner: 'C', leaseMs: LEASE, limit: 10 });
        const claimed = [...a, ...b, ...c].map((t) => t.id);
        expect(claimed.sort()).toEqual([e, e2].sort());
        expect(claimed).not.toContain(idle);
        expect(await store.webhooks.claimWebhookEndpoints({ now: T0 + SECOND, owner: 'D', leaseMs: LEASE, limit: 10 })).toEqual([]);
        // A release by someone else is ignored; the holder's release frees it.
        const holderOfE = a.some((t) => t.id === e) ? 'A' : b.some((t) => t.id === e) ? 'B' : 'C';
        await store.webhooks.releaseWebhookEndpoint({ endpointId: e, owner: 'nobody' });
        expect(await store.webhooks.claimWebhookEndpoints({ now: T0 + SECOND, owner: 'D', leaseMs: LEASE, limit: 10 })).toEqual([]);
        await store.webhooks.releaseWebhookEndpoint({ endpointId: e, owner: holderOfE });
        expect((await store.webhooks.claimWebhookEndpoints({ now: T0 + SECOND, owner: 'D', leaseMs: LEASE, limit: 10 })).map((t) => t.id)).toEqual([e]);
        // Leases that ran out (their holders died) are taken over.
        const later = await store.webhooks.claimWebhookEndpoints({ now: T0 + SECOND + LEASE, owner: 'E', leaseMs: LEASE, limit: 10 });
        expect(later.map((t) => t.id).sort()).toEqual([e, e2].sort());
      });

      it('failing backs the whole endpoint off; healthy clears it', async () => {
        const e = await endpoint(TENANT);
        await notify(TENANT);
        await store.webhooks.relayOutbox({ now: T0, limit: 100 });
        const [m] = await heads(e);
        await store.webhooks.claimWebhookEndpoints({ now: T0, owner: 'o1', leaseMs: LEASE, limit: 1 });
        await store.webhooks.recordWebhookAttempts({
          endpointId: e,
          owner: 'o1',
          now: T0,
          leaseUntil: T0 + LEASE,
          attempts: [{ messageId: m!.id, delivered: false, status: null, error: 'ECONNREFUSED', nextAttemptAt: T0 + 5 * SECOND }],
          endpoint: { kind: 'failing', nextAttemptAt: T0 + 5 * MINUTE, status: null, error: 'ECONNREFUSED' },
        });
        await store.webhooks.releaseWebhookEndpoint({ endpointId: e, owner: 'o1' });
        expect(await store.webhooks.getWebhookEndpoint(TENANT, e)).toMatchObject({
          status: 'active',
          failureCount: 1,
          failingSince: T0,
          nextAttemptAt: T0 + 5 * MINUTE,
          lastFailure: { at: T0, status: null, error: 'ECONNREFUSED' },
          pending: 1,
        });
        // The message is due after 5 s, but the endpoint is backing off for 5 minutes.
        expect(await store.webhooks.claimWebhookEndpoints({ now: T0 + MINUTE, owner: 'o1', leaseMs: LEASE, limit: 1 })).toEqual([]);
        const [t] = await store.webhooks.claimWebhookEndpoints({ now: T0 + 5 * MINUTE, owner: 'o1', leaseMs: LEASE, limit: 1 });
        expect(t).toMatchObject({ id: e, failureCount: 1, failingSince: T0 });
        await deliver(e, await heads(e, T0 + 5 * MINUTE), T0 + 5 * MINUTE);
        expect(await store.webhooks.getWebhookEndpoint(TENANT, e)).toMatchObject({
          failureCount: 0,
          failingSince: null,
          nextAttemptAt: null,
          lastSuccessAt: T0 + 5 * MINUTE,
          pending: 0,
          delivered: 1,
        });
      });

      it('disabled (410) stops claims and fan-out; enable makes its undelivered messages due now', async () => {
        const e = await endpoint(TENANT);
        await notify(TENANT);
        await store.webhooks.relayOutbox({ now: T0, limit: 100 });
        const [m] = await heads(e);
        await store.webhooks.recordWebhookAttempts({
          endpointId: e,
          owner: 'o1',
          now: T0,
          leaseUntil: T0 + LEASE,
          attempts: [{ messageId: m!.id, delivered: false, status: 410, error: 'answered 410 Gone', nextAttemptAt: T0 + HOUR }],
          endpoint: { kind: 'disabled', reason: 'gone', status: 410, error: 'answered 410 Gone' },
        });
        expect(await store.webhooks.getWebhookEndpoint(TENANT, e)).toMatchObject({
          status: 'disabled',
          disabledReason: 'gone',
          disabledAt: T0,
          updatedAt: T0,
          pending: 1,
        });
        expect(await store.webhooks.claimWebhookEndpoints({ now: T0 + 2 * HOUR, owner: 'o1', leaseMs: LEASE, limit: 1 })).toEqual([]);
        await notify(TENANT);
        expect(await store.webhooks.relayOutbox({ now: T0, limit: 100 })).toEqual({ published: 1, messages: 0 });

        expect(await store.webhooks.enableWebhookEndpoint({ tenantId: TENANT, id: e, now: T0 + MINUTE })).toBe(true);
        expect(await store.webhooks.getWebhookEndpoint(TENANT, e)).toMatchObject({
          status: 'active',
          disabledReason: null,
          disabledAt: null,
          failureCount: 0,
          nextAttemptAt: null,
        });
        expect((await store.webhooks.claimWebhookEndpoints({ now: T0 + MINUTE, owner: 'o1', leaseMs: LEASE, limit: 1 })).map((t) => t.id)).toEqual([e]);
        expect((await heads(e, T0 + MINUTE)).map((x) => x.id)).toEqual([m!.id]);
      });
    });

    it('prunes published outbox rows and delivered messages past retention, never pending ones', async () => {
      const e = await endpoint(TENANT);
      await notify(TENANT);
      await notify(TENANT);
      await store.webhooks.relayOutbox({ now: T0, limit: 100 });
      const [first] = await heads(e);
      await deliver(e, [first!], T0);
      await notify(TENANT); // unpublished: kept
      expect(await store.webhooks.pruneWebhookHistory({ outboxBefore: T0, messagesBefore: T0, limit: 100 })).toEqual({ outbox: 0, messages: 0 });
      expect(await store.webhooks.pruneWebhookHistory({ outboxBefore: T0 + 1, messagesBefore: T0 + 1, limit: 1 })).toEqual({ outbox: 1, messages: 1 });
      expect(await store.webhooks.pruneWebhookHistory({ outboxBefore: T0 + 1, messagesBefore: T0 + 1, limit: 100 })).toEqual({ outbox: 1, messages: 0 });
      expect(await store.webhooks.getWebhookEndpoint(TENANT, e)).toMatchObject({ pending: 1, delivered: 0 });
      expect(await store.webhooks.relayOutbox({ now: T0, limit: 100 })).toEqual({ published: 1, messages: 1 });
    });
  });
}
