/**
 * The observability part of the Store contract, run against every driver: deliveries per state
 * and terminal reason with each group's oldest update and review count, and due, unexpired work
 * per provider account (what GET /metrics reads).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../src/domain/index.js';
import type { ClaimedDelivery, Store } from '../../src/store/store.js';
import { campaignDeliveryStatus, type ProviderAccountState, type SystemState, type SystemStateQuery } from '../../src/store/observability-store.js';
import type { StoreFixture } from './conformance.js';
import { HOUR, MINUTE, SECOND, T0, buildNotification, mustDecide, mustGetDelivery, seedDeliveries } from './fixtures.js';

const TENANT = 't_alpha';
const OTHER_TENANT = 't_beta';
const LEASE_MS = 30 * SECOND;
const ACCEPT_AFTER = 30 * MINUTE;
const query = (now: number, over: Partial<SystemStateQuery> = {}): SystemStateQuery => ({
  now,
  unknownAfterMs: MINUTE,
  acceptedProgressAfterMs: ACCEPT_AFTER,
  healthSince: now - MINUTE,
  ...over,
});
const ambiguous: SubmitOutcome = { kind: 'unknown', code: 'timeout', message: 'no response within 10 s' };
const permanent: SubmitOutcome = { kind: 'permanent', reason: 'invalid_destination', code: 'http_400', message: 'no such mailbox' };

async function report(store: Store, c: ClaimedDelivery, outcome: SubmitOutcome, now: number): Promise<void> {
  const transition = mustDecide(
    { state: 'submitting', attemptCount: c.attemptNumber, expiresAt: c.expiresAt, nextAttemptAt: null },
    { type: 'outcome', outcome },
    now,
  );
  const [r] = await store.applyTransitions([
    { deliveryId: c.deliveryId, expect: { state: 'submitting', leaseVersion: c.leaseVersion }, transition, now, attempt: { number: c.attemptNumber, outcome } },
  ]);
  expect(r!.applied).toBe(true);
}

/** An account row with nothing but `over`. */
const account = (providerAccount: string, over: Partial<ProviderAccountState> = {}): ProviderAccountState => ({
  providerAccount,
  failuresLast15m: 0,
  refusedAttemptsLast15m: 0,
  healthCalls: 0,
  healthFailures: 0,
  pausedUntil: null,
  ...over,
});

/** A gateway device of `tenantId` on account `phones`, registered (last seen) at `now`. */
async function registerDevice(store: Store, id: string, tenantId: string, now: number): Promise<void> {
  await store.devices.registerDevice({
    login: { login: `LOGIN_${id}`, providerAccount: 'phones', tenantId, passwordHash: 'scrypt$x', now },
    device: {
      id,
      tenantId,
      providerAccount: 'phones',
      login: `LOGIN_${id}`,
      name: `Pixel ${id}`,
      tokenHash: `hash-${id}`,
      simCards: null,
      appVersion: null,
      now,
    },
  });
}

/** Runs the observability contract against one driver. */
export function observabilityConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Observability conformance: ${name}`, () => {
    let fx: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      fx = await makeStore();
      store = fx.store;
      await store.ensureTenant({ id: TENANT, name: 'Alpha' }, T0);
      await store.ensureTenant({ id: OTHER_TENANT, name: 'Beta' }, T0);
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    it('is empty on an empty store', async () => {
      expect(await store.observability.systemState(query(T0))).toEqual({
        deliveries: [],
        due: [],
        acceptedWithoutProgress: [],
        deadlineMissesLastHour: [],
        providerAccounts: [],
        devices: [],
        campaigns: [],
      });
    });

    it('counts every tenant per state and reason, with the oldest update and the review count of each group', async () => {
      // Four on acct-email (alpha), created T0..T0+3s; two on acct-sms (beta) at T0+10s.
      await seedDeliveries(store, { tenantId: TENANT, count: 4, providerAccount: 'acct-email' });
      await seedDeliveries(store, { tenantId: OTHER_TENANT, count: 2, providerAccount: 'acct-sms', channel: 'sms', createdAt: T0 + 10 * SECOND });
      const claimed = await store.claimBatch({ providerAccount: 'acct-email', workerId: 'w1', now: T0 + 20 * SECOND, leaseMs: LEASE_MS, limit: 2 });
      expect(claimed).toHaveLength(2);
      await report(store, claimed[0]!, ambiguous, T0 + 21 * SECOND);
      await report(store, claimed[1]!, permanent, T0 + 22 * SECOND);

      const now = T0 + 21 * SECOND + MINUTE;
      const state = await store.observability.systemState(query(now));
      const groups = [...state.deliveries].sort((a, b) => a.state.localeCompare(b.state));
      expect(groups).toEqual([
        { state: 'ready', terminalReason: null, count: 4, oldestUpdatedAt: T0 + 2 * SECOND, inReview: 0 },
        { state: 'terminal', terminalReason: 'rejected', count: 1, oldestUpdatedAt: T0 + 22 * SECOND, inReview: 1 },
        // Updated exactly `unknownAfterMs` ago: in review (review_list's `updated_at <= now - unknownAfterMs`).
        { state: 'unknown', terminalReason: null, count: 1, oldestUpdatedAt: T0 + 21 * SECOND, inReview: 1 },
      ]);
      const younger = await store.observability.systemState(query(now - 1));
      expect(younger.deliveries.find((g) => g.state === 'unknown')!.inReview).toBe(0);
    });

    it('counts due, unexpired work per account: not what is scheduled later, claimed, or past expiry', async () => {
      await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: 'acct-email' }); // due at T0, T0+1s, T0+2s
      await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: 'acct-sms', channel: 'sms', createdAt: T0 + 5 * SECOND, ttlMs: MINUTE });
      const at = T0 + 10 * SECOND;
      // One claimed (the oldest): no longer waiting.
      expect(await store.claimBatch({ providerAccount: 'acct-email', workerId: 'w1', now: at, leaseMs: LEASE_MS, limit: 1 })).toHaveLength(1);
      const due = (now: number) =>
        store.observability.systemState(query(now)).then((s) => [...s.due].sort((a, b) => a.providerAccount.localeCompare(b.providerAccount)));
      expect(await due(at)).toEqual([
        { providerAccount: 'acct-email', purpose: 'transactional', count: 2, oldestDueAt: T0 + SECOND },
        { providerAccount: 'acct-sms', purpose: 'transactional', count: 1, oldestDueAt: T0 + 5 * SECOND },
      ]);
      // Before its next_attempt_at a delivery is not due; at its expiry it is no longer useful.
      expect(await due(T0 + SECOND / 2)).toEqual([]);
      expect((await due(T0 + 5 * SECOND + MINUTE)).map((d) => d.providerAccount)).toEqual(['acct-email']);
    });

    it('reads one tenant only when asked: deliveries, due work, failures, devices', async () => {
      await seedDeliveries(store, { tenantId: TENANT, count: 2, providerAccount: 'acct-email' });
      await seedDeliveries(store, { tenantId: OTHER_TENANT, count: 3, providerAccount: 'acct-email', createdAt: T0 + 10 * SECOND });
      const [c] = await store.claimBatch({ providerAccount: 'acct-email', workerId: 'w1', now: T0 + 20 * SECOND, leaseMs: LEASE_MS, limit: 1 });
      await report(store, c!, permanent, T0 + 21 * SECOND);
      await registerDevice(store, 'dev_beta', OTHER_TENANT, T0);
      const now = T0 + MINUTE;
      const count = (s: SystemState) => s.deliveries.reduce((n, g) => n + g.count, 0);
      const alpha = await store.observability.systemState(query(now, { tenantId: TENANT }));
      const beta = await store.observability.systemState(query(now, { tenantId: OTHER_TENANT }));
      const all = await store.observability.systemState(query(now));
      expect([count(alpha), count(beta), count(all)]).toEqual([2, 3, 5]);
      expect(alpha.due).toEqual([{ providerAccount: 'acct-email', purpose: 'transactional', count: 1, oldestDueAt: T0 + SECOND }]);
      expect(beta.due).toEqual([{ providerAccount: 'acct-email', purpose: 'transactional', count: 3, oldestDueAt: T0 + 10 * SECOND }]);
      // The oldest (alpha's first) was claimed and refused permanently: alpha's failure, not beta's.
      expect(alpha.providerAccounts).toEqual([account('acct-email', { failuresLast15m: 1, refusedAttemptsLast15m: 1 })]);
      expect(beta.providerAccounts).toEqual([]);
      expect(alpha.devices).toEqual([]);
      expect(beta.devices.map((d) => d.id)).toEqual(['dev_beta']);
      expect((await store.observability.systemState(query(now, { tenantId: 't_nobody' }))).deliveries).toEqual([]);
    });

    it('lists accepted deliveries without downstream progress once they waited past the threshold, until evidence moves them', async () => {
      const [a, b] = await seedDeliveries(store, { tenantId: TENANT, count: 2, providerAccount: 'acct-sms', channel: 'sms', ttlMs: 2 * HOUR });
      const claimed = await store.claimBatch({ providerAccount: 'acct-sms', workerId: 'w1', now: T0 + 2 * SECOND, leaseMs: LEASE_MS, limit: 2 });
      const byId = new Map(claimed.map((c) => [c.deliveryId, c]));
      await report(store, byId.get(a!)!, { kind: 'accepted', providerMessageId: 'pm-a' }, T0 + 3 * SECOND);
      await report(store, byId.get(b!)!, { kind: 'accepted', providerMessageId: 'pm-b' }, T0 + 4 * SECOND);
      const waiting = async (now: number) => (await store.observability.systemState(query(now))).acceptedWithoutProgress;
      // Accepted 30 minutes ago less a millisecond: not yet.
      expect(await waiting(T0 + 3 * SECOND + ACCEPT_AFTER - 1)).toEqual([]);
      expect(await waiting(T0 + 3 * SECOND + ACCEPT_AFTER)).toEqual([
        { providerAccount: 'acct-sms', channel: 'sms', count: 1, oldestUpdatedAt: T0 + 3 * SECOND },
      ]);
      expect(await waiting(T0 + 4 * SECOND + ACCEPT_AFTER)).toEqual([
        { providerAccount: 'acct-sms', channel: 'sms', count: 2, oldestUpdatedAt: T0 + 3 * SECOND },
      ]);
      // A `sent` callback for a is progress: only b is left.
      const d = await mustGetDelivery(store, a!);
      expect(
        await store.evidence.applyEvidence([
          {
            rowIds: [],
            deliveryId: a!,
            expect: { state: d.state, leaseVersion: d.leaseVersion, downstreamStatus: d.downstreamStatus },
            downstreamStatus: 'sent',
            transition: null,
            providerMessageId: null,
            resolvesAttempt: null,
            suppress: null,
            now: T0 + 10 * SECOND,
          },
        ]),
      ).toEqual([true]);
      expect(await waiting(T0 + HOUR)).toEqual([{ providerAccount: 'acct-sms', channel: 'sms', count: 1, oldestUpdatedAt: T0 + 4 * SECOND }]);
      // The stats series sees a's first confirmation in its bucket.
      const series = await store.observability.statsSeries({ tenantId: TENANT, from: T0, bucketMs: 5 * SECOND, buckets: 3 });
      expect(series.map((p) => [p.t, p.accepted, p.confirmed])).toEqual([
        [T0, 2, 0],
        [T0 + 5 * SECOND, 0, 0],
        [T0 + 10 * SECOND, 0, 1],
      ]);
    });

    it('counts deadline misses of the last hour: expired and never accepted', async () => {
      const [early, late] = await seedDeliveries(store, {
        tenantId: TENANT,
        count: 2,
        providerAccount: 'acct-sms',
        channel: 'sms',
        purpose: 'otp',
        ttlMs: MINUTE,
      });
      await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: 'acct-email', ttlMs: HOUR });
      // The sweeper ends both sms codes at their expiry (T0 + 1 min and T0 + 1 min 1 s).
      for (const [id, at] of [
        [early!, T0 + MINUTE],
        [late!, T0 + MINUTE + SECOND],
      ] as const) {
        const d = await mustGetDelivery(store, id);
        const [r] = await store.applyTransitions([
          { deliveryId: id, expect: { state: d.state, leaseVersion: d.leaseVersion }, transition: mustDecide(d, { type: 'expire' }, at), now: at },
        ]);
        expect(r!.applied).toBe(true);
      }
      const misses = async (now: number) => (await store.observability.systemState(query(now))).deadlineMissesLastHour;
      expect(await misses(T0 + 2 * MINUTE)).toEqual([{ channel: 'sms', purpose: 'otp', count: 2 }]);
      // More than an hour after the first ended, only the second is within the hour.
      expect(await misses(T0 + MINUTE + HOUR + 1)).toEqual([{ channel: 'sms', purpose: 'otp', count: 1 }]);
      expect(await misses(T0 + MINUTE + SECOND + HOUR + 1)).toEqual([]);
    });

    it('reports per account recent failures, the retry budget window and a throttle pause', async () => {
      await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: 'acct-email' });
      const claimed = await store.claimBatch({ providerAccount: 'acct-email', workerId: 'w1', now: T0 + 10 * SECOND, leaseMs: LEASE_MS, limit: 3 });
      await report(store, claimed[0]!, ambiguous, T0 + 11 * SECOND);
      await report(store, claimed[1]!, { kind: 'retryable', code: 'http_503', message: 'busy', retryAfterMs: null }, T0 + 12 * SECOND);
      await report(store, claimed[2]!, { kind: 'accepted', providerMessageId: 'pm-1' }, T0 + 13 * SECOND);
      await store.health.recordProviderCalls({ providerAccount: 'acct-sms', bucketStart: T0 + 10 * SECOND, calls: 30, failures: 20 });
      await store.health.recordProviderCalls({ providerAccount: 'acct-sms', bucketStart: T0 - 2 * MINUTE, calls: 99, failures: 99 });
      const resumeAt = await store.limiter.throttleAccount({
        providerAccount: 'acct-push',
        now: T0 + 20 * SECOND,
        retryAfterMs: 30 * SECOND,
        limit: { ratePerSecond: 10, burst: 1 },
      });
      expect(resumeAt).toBe(T0 + 50 * SECOND);
      // A shorter Retry-After later never shortens the recorded pause.
      await store.limiter.throttleAccount({
        providerAccount: 'acct-push',
        now: T0 + 21 * SECOND,
        retryAfterMs: SECOND,
        limit: { ratePerSecond: 10, burst: 1 },
      });
      const at = T0 + 30 * SECOND;
      expect((await store.observability.systemState(query(at, { healthSince: T0 }))).providerAccounts).toEqual([
        // The retryable refusal is a failed message; the ambiguous one is unknown, not a failure.
        account('acct-email', { failuresLast15m: 1, refusedAttemptsLast15m: 1 }),
        account('acct-push', { pausedUntil: T0 + 50 * SECOND }),
        account('acct-sms', { healthCalls: 30, healthFailures: 20 }),
      ]);
      // Fifteen minutes after the failures, and past the pause and the health window: nothing left.
      const later = await store.observability.systemState(query(T0 + 12 * SECOND + 15 * MINUTE + 1, { healthSince: T0 + 11 * MINUTE }));
      expect(later.providerAccounts).toEqual([]);
      // The series: one bucket per 10 s; the retryable one is a failed message of acct-email (and a
      // refused attempt), the ambiguous one a delivery unknown now.
      const series = await store.observability.statsSeries({ tenantId: TENANT, from: T0, bucketMs: 10 * SECOND, buckets: 3 });
      const empty = { accepted: 0, confirmed: 0, failed: 0, unknown: 0, failedByAccount: {}, refusedAttempts: 0 };
      expect(series).toEqual([
        { t: T0, ...empty },
        { t: T0 + 10 * SECOND, accepted: 1, confirmed: 0, failed: 1, unknown: 1, failedByAccount: { 'acct-email': 1 }, refusedAttempts: 1 },
        { t: T0 + 20 * SECOND, ...empty },
      ]);
      expect(await store.observability.statsSeries({ tenantId: OTHER_TENANT, from: T0, bucketMs: 10 * SECOND, buckets: 2 })).toEqual([
        { t: T0, ...empty },
        { t: T0 + 10 * SECOND, ...empty },
      ]);
    });

    it('counts terminal failures in the series and user reports per tenant', async () => {
      const [id] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: 'acct-email' });
      const [c] = await store.claimBatch({ providerAccount: 'acct-email', workerId: 'w1', now: T0 + 5 * SECOND, leaseMs: LEASE_MS, limit: 1 });
      await report(store, c!, permanent, T0 + 6 * SECOND);
      // A permanent refusal is one refused attempt and one failed message (ended rejected), each in its own series.
      const [p] = await store.observability.statsSeries({ tenantId: TENANT, from: T0, bucketMs: MINUTE, buckets: 1 });
      expect(p).toEqual({ t: T0, accepted: 0, confirmed: 0, failed: 1, unknown: 0, failedByAccount: { 'acct-email': 1 }, refusedAttempts: 1 });
      const d = await mustGetDelivery(store, id!);
      const file = (rid: string, kind: 'duplicate' | 'not_received') =>
        store.reports.addReport({ id: rid, tenantId: TENANT, notificationId: d.notificationId, kind, channel: null, note: null, reportedBy: 'key_1', now: T0 });
      await file('r1', 'duplicate');
      await file('r2', 'not_received');
      await file('r3', 'not_received');
      expect(await store.observability.reportCounts(TENANT)).toEqual({ duplicate: 1, not_received: 2 });
      expect(await store.observability.reportCounts(OTHER_TENANT)).toEqual({ duplicate: 0, not_received: 0 });
    });

    it('lists devices with their last call', async () => {
      await registerDevice(store, 'dev_b', TENANT, T0 + SECOND);
      await registerDevice(store, 'dev_a', TENANT, T0);
      await store.devices.touchDevice({ id: 'dev_a', now: T0 + 5 * MINUTE, awayMs: MINUTE });
      expect((await store.observability.systemState(query(T0 + 6 * MINUTE))).devices).toEqual([
        { id: 'dev_a', name: 'Pixel dev_a', tenantId: TENANT, providerAccount: 'phones', lastSeenAt: T0 + 5 * MINUTE },
        { id: 'dev_b', name: 'Pixel dev_b', tenantId: TENANT, providerAccount: 'phones', lastSeenAt: T0 + SECOND },
      ]);
    });

    it('counts the deliveries of unfinished campaigns by status', async () => {
      await store.campaigns.createAudience({ id: 'aud_1', tenantId: TENANT, source: 'csv', now: T0 });
      await store.campaigns.appendAudienceRows(
        'aud_1',
        [1, 2, 3, 4].map((i) => ({ position: i, line: i + 1, recipient: { id: `u${i}`, email: `u${i}@example.com` } })),
      );
      await store.campaigns.sealAudience({ audienceId: 'aud_1', duplicates: 0, now: T0 });
      const campaign = async (id: string) =>
        store.campaigns.createCampaign({
          id,
          tenantId: TENANT,
          name: null,
          status: 'running',
          channel: 'email',
          purpose: 'marketing',
          providerAccount: 'acct-email',
          lane: 'bulk',
          content: { subject: 'Hi', text: 'Hello' },
          template: null,
          metadata: null,
          ttlMs: HOUR,
          audienceId: 'aud_1',
          audienceSize: 4,
          deadlineAt: T0 + HOUR,
          sendAt: null,
          plan: { feasible: true },
          createdAt: T0,
          startedAt: T0,
        });
      await campaign('cmp_a');
      const notes = [1, 2, 3, 4].map((i) =>
        buildNotification({ tenantId: TENANT, createdAt: T0 + i, recipientId: `u${i}`, groupKey: `cmp:cmp_a:u${i}`, purpose: 'marketing', ttlMs: HOUR }),
      );
      expect(await store.campaigns.fanOutBatch({ campaignId: 'cmp_a', expectPosition: 0, toPosition: 4, notifications: notes, refusals: [], now: T0 })).toBe(
        true,
      );
      const claimed = await store.claimBatch({ providerAccount: 'acct-email', workerId: 'w1', now: T0 + SECOND, leaseMs: LEASE_MS, limit: 2 });
      await report(store, claimed[0]!, { kind: 'accepted', providerMessageId: 'pm-1' }, T0 + 2 * SECOND);
      await report(store, claimed[1]!, permanent, T0 + 2 * SECOND);
      const groups = async () => (await store.observability.systemState(query(T0 + MINUTE))).campaigns;
      expect(await groups()).toEqual([
        { campaignId: 'cmp_a', tenantId: TENANT, status: 'accepted', count: 1 },
        { campaignId: 'cmp_a', tenantId: TENANT, status: 'failed', count: 1 },
        { campaignId: 'cmp_a', tenantId: TENANT, status: 'queued', count: 2 },
      ]);
      expect((await store.observability.systemState(query(T0 + MINUTE, { tenantId: OTHER_TENANT }))).campaigns).toEqual([]);
    });

    it('folds delivery states into campaign statuses', () => {
      expect(campaignDeliveryStatus('retryable', null, null)).toBe('queued');
      expect(campaignDeliveryStatus('unknown', null, null)).toBe('queued');
      expect(campaignDeliveryStatus('accepted', null, 'sent')).toBe('accepted');
      expect(campaignDeliveryStatus('accepted', null, 'read')).toBe('delivered');
      expect(campaignDeliveryStatus('accepted', null, 'bounced')).toBe('failed');
      expect(campaignDeliveryStatus('terminal', 'unresolved', null)).toBe('failed');
      expect(campaignDeliveryStatus('terminal', 'unsubscribed', null)).toBe('suppressed');
      expect(campaignDeliveryStatus('terminal', 'expired', null)).toBe('expired');
      expect(campaignDeliveryStatus('terminal', 'cancelled', null)).toBeNull();
    });
  });
}
