/**
 * The review queue and replays (`parts/review.ts`): what a person is shown, replaying with and
 * without duplicate risk, the replay trail and candidates. Part of the Store conformance suite
 * (`conformance.ts`), run against every driver.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { decideAtStage, type RolloutStage, type SubmitOutcome } from '../../src/domain/index.js';
import type { ClaimedDelivery, DeliveryView, Store, TransitionResult } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import {
  accepted,
  ambiguous,
  attemptsOf,
  claim,
  claimFacts,
  OTHER_TENANT,
  permanent,
  replayOf,
  report,
  retryable,
  TENANT,
  useStoreFixture,
} from './core-support.js';
import { HOUR, MINUTE, SECOND, T0, TEST_POLICY, buildNotification, mustDecide, mustGetDelivery, seedDeliveries } from './fixtures.js';

/** Runs this part of the contract against one driver. */
export function reviewConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Store conformance: ${name}`, () => {
    const fx = useStoreFixture(name, makeStore);
    let store: Store;
    beforeEach(() => {
      store = fx.store;
    });

    describe('review queue and replays', () => {
      const UNKNOWN_AFTER = 15 * MINUTE;

      /**
       * One delivery per end state, each on its own account (so claims pick exactly it), created
       * one second apart in this order: ids (ULIDs) sort the same way.
       */
      async function seedEndStates() {
        const kinds = ['rejected', 'exhausted', 'unresolved', 'unknown', 'accepted', 'cancelled', 'ready'] as const;
        const ids = {} as Record<(typeof kinds)[number], string>;
        for (const [i, kind] of kinds.entries()) {
          const [id] = await seedDeliveries(store, {
            tenantId: TENANT,
            count: 1,
            providerAccount: `acct-${kind}`,
            createdAt: T0 + i * SECOND,
            ttlMs: 2 * HOUR,
          });
          ids[kind] = id!;
        }
        const now = T0 + 10 * SECOND;
        const one = async (kind: string, at = now) => {
          const [c] = await claim(store, at, 1, `acct-${kind}`);
          expect(c).toBeDefined();
          return c!;
        };
        expect((await report(store, await one('rejected'), permanent, now)).applied).toBe(true);
        let at = now;
        for (let i = 0; i < TEST_POLICY.maxAttempts; i++) {
          expect((await report(store, await one('exhausted', at), retryable, at)).applied).toBe(true);
          at = (await mustGetDelivery(store, ids.exhausted)).nextAttemptAt ?? at;
        }
        expect((await report(store, await one('unresolved'), ambiguous, now)).applied).toBe(true);
        const unresolved = mustDecide(
          await mustGetDelivery(store, ids.unresolved),
          { type: 'evidence', found: false, authoritative: false, windowClosed: true },
          now,
        );
        expect(
          await store.applyTransitions([{ deliveryId: ids.unresolved, expect: { state: 'unknown', leaseVersion: 1 }, transition: unresolved, now }]),
        ).toEqual([{ deliveryId: ids.unresolved, applied: true }]);
        expect((await report(store, await one('unknown'), ambiguous, now)).applied).toBe(true);
        expect((await report(store, await one('accepted'), accepted(), now)).applied).toBe(true);
        const cancel = mustDecide(await mustGetDelivery(store, ids.cancelled), { type: 'cancel' }, now);
        await store.applyTransitions([{ deliveryId: ids.cancelled, expect: { state: 'ready', leaseVersion: 0 }, transition: cancel, now }]);
        return { ids, now };
      }

      it('listReview: exhausted, rejected, unresolved, and unknown once overdue; newest first, paginated, per tenant', async () => {
        const { ids, now } = await seedEndStates();
        expect((await mustGetDelivery(store, ids.exhausted)).terminalReason).toBe('exhausted');
        await seedDeliveries(store, { tenantId: OTHER_TENANT, count: 1, providerAccount: 'acct-rejected', createdAt: T0 + MINUTE });
        const [theirs] = await claim(store, T0 + MINUTE, 1, 'acct-rejected');
        await report(store, theirs!, permanent, T0 + MINUTE);

        // `unknown` since `now`: not overdue one millisecond before unknownAfterMs has passed.
        const early = await store.review.listReview(TENANT, { now: now + UNKNOWN_AFTER - 1, unknownAfterMs: UNKNOWN_AFTER }, null, 50);
        expect(early.items.map((d) => [d.id, d.reviewReason])).toEqual([
          [ids.unresolved, 'unresolved'],
          [ids.exhausted, 'exhausted'],
          [ids.rejected, 'rejected'],
        ]);
        expect(early.nextCursor).toBeNull();

        const due = { now: now + UNKNOWN_AFTER, unknownAfterMs: UNKNOWN_AFTER };
        const p1 = await store.review.listReview(TENANT, due, null, 2);
        expect(p1.items.map((d) => [d.id, d.reviewReason])).toEqual([
          [ids.unknown, 'unknown_overdue'],
          [ids.unresolved, 'unresolved'],
        ]);
        expect(p1.items[0]).toMatchObject({ state: 'unknown', tenantId: TENANT, lastErrorCode: 'timeout' });
        const p2 = await store.review.listReview(TENANT, due, p1.nextCursor, 2);
        expect(p2.items.map((d) => [d.id, d.reviewReason])).toEqual([
          [ids.exhausted, 'exhausted'],
          [ids.rejected, 'rejected'],
        ]);
        expect(p2.nextCursor).toBeNull();
        expect((await store.review.listReview(OTHER_TENANT, due, null, 50)).items.map((d) => d.id)).toEqual([theirs!.deliveryId]);
        expect((await store.review.listReview('t_nobody', due, null, 50)).items).toEqual([]);
      });

      it('replayDelivery: unknown to ready with the same key, one audit row, outbox-guarded like any transition', async () => {
        const { ids, now } = await seedEndStates();
        const before = await mustGetDelivery(store, ids.unknown);
        const at = now + MINUTE;
        const t = replayOf(before, at, true);
        expect(t).toMatchObject({ from: 'unknown', to: 'ready', terminalReason: null, nextAttemptAt: at });
        const write = { deliveryId: before.id, expect: { state: before.state, leaseVersion: before.leaseVersion }, transition: t, now: at };
        const audit = { requestedBy: 'key_ops', acceptDuplicateRisk: true, note: 'customer says no SMS', fromReason: null };
        expect(await store.review.replayDelivery({ write, audit })).toBe(true);

        const after = await mustGetDelivery(store, before.id);
        expect(after).toMatchObject({
          state: 'ready',
          terminalReason: null,
          nextAttemptAt: at,
          updatedAt: at,
          attemptCount: 1,
          leaseVersion: before.leaseVersion,
          idempotencyKey: before.idempotencyKey,
        });
        expect(await store.review.listReplays(TENANT, before.id)).toEqual([
          {
            deliveryId: before.id,
            tenantId: TENANT,
            requestedBy: 'key_ops',
            fromState: 'unknown',
            fromReason: null,
            acceptDuplicateRisk: true,
            note: 'customer says no SMS',
            createdAt: at,
          },
        ]);
        expect(await store.review.listReplays(OTHER_TENANT, before.id)).toEqual([]);

        // The same write again is stale (the row is `ready` now): refused, and no second audit row.
        expect(await store.review.replayDelivery({ write, audit })).toBe(false);
        expect(await store.review.listReplays(TENANT, before.id)).toHaveLength(1);
        expect(await mustGetDelivery(store, before.id)).toEqual(after);

        // Claimable again: attempt 2 under a new fencing token, presenting the same key.
        const [c] = await claim(store, at, 1, 'acct-unknown', 'w2');
        expect(c).toMatchObject({ deliveryId: before.id, attemptNumber: 2, leaseVersion: before.leaseVersion + 1, idempotencyKey: before.idempotencyKey });
      });

      /** A worker's write of a call's outcome at a rollout stage: the transition and both decisions, as the worker writes them. */
      async function reportAtStage(c: ClaimedDelivery, outcome: SubmitOutcome, now: number, stage: RolloutStage): Promise<TransitionResult> {
        const r = decideAtStage(claimFacts(c), outcome, { now, policy: TEST_POLICY, random: () => 0.5, stage, unknownSettlement: 'reconcile_lookup' });
        const [result] = await store.applyTransitions([
          {
            deliveryId: c.deliveryId,
            expect: { state: 'submitting', leaseVersion: c.leaseVersion },
            transition: r.transition,
            now,
            attempt: { number: c.attemptNumber, outcome, decisions: { decision: r.decision, nextStageDecision: r.nextStageDecision } },
          },
        ]);
        return result!;
      }

      it('rollout: both decisions are stored on the attempt; held deliveries are in review at once, filterable by reason', async () => {
        const [definite, ambiguousOne, retried] = await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: 'acct-shadow', ttlMs: 2 * HOUR });
        const now = T0 + 10 * SECOND;
        const claimed = await claim(store, now, 3, 'acct-shadow');
        const byId = new Map(claimed.map((c) => [c.deliveryId, c]));
        expect((await reportAtStage(byId.get(definite!)!, retryable, now, 'shadow')).applied).toBe(true);
        expect((await reportAtStage(byId.get(ambiguousOne!)!, ambiguous, now, 'shadow')).applied).toBe(true);
        expect((await reportAtStage(byId.get(retried!)!, retryable, now, 'definite_retries')).applied).toBe(true);

        expect(await mustGetDelivery(store, definite!)).toMatchObject({ state: 'terminal', terminalReason: 'held', nextAttemptAt: null });
        const [held] = await attemptsOf(store, await mustGetDelivery(store, definite!));
        expect(held).toMatchObject({
          outcome: 'retryable',
          decision: { kind: 'review', retryAt: null },
          nextStageDecision: { kind: 'retry_at', retryAt: now + TEST_POLICY.baseDelayMs },
        });
        const [onLadder] = await attemptsOf(store, await mustGetDelivery(store, retried!));
        expect(onLadder!.decision).toEqual({ kind: 'retry_at', retryAt: (await mustGetDelivery(store, retried!)).nextAttemptAt });
        expect(onLadder!.nextStageDecision).toEqual(onLadder!.decision);

        // Listed at once (the unknown long before it would be overdue); the ladder's retry is not.
        const q = { now, unknownAfterMs: 15 * MINUTE };
        const all = await store.review.listReview(TENANT, q, null, 50);
        expect(all.items.map((d) => [d.id, d.state, d.reviewReason]).sort()).toEqual(
          [
            [definite!, 'terminal', 'held'],
            [ambiguousOne!, 'unknown', 'held'],
          ].sort(),
        );
        expect((await store.review.listReview(TENANT, { ...q, reason: 'held' }, null, 50)).items).toHaveLength(2);
        expect((await store.review.listReview(TENANT, { ...q, reason: 'unknown_overdue' }, null, 50)).items).toEqual([]);
        // A held unknown stays `held`, never `unknown_overdue`, however long it waits.
        const later = { now: now + HOUR, unknownAfterMs: 15 * MINUTE };
        expect((await store.review.listReview(TENANT, { ...later, reason: 'held' }, null, 50)).items.map((d) => d.id).sort()).toEqual(
          [definite!, ambiguousOne!].sort(),
        );

        // Replay from review: terminal/held is replayable without the duplicate risk, and the audit row names `held`.
        const d = await mustGetDelivery(store, definite!);
        const audit = { requestedBy: 'key_ops', acceptDuplicateRisk: false, note: null, fromReason: 'held' };
        const write = { deliveryId: d.id, expect: { state: d.state, leaseVersion: d.leaseVersion }, transition: replayOf(d, now + MINUTE), now: now + MINUTE };
        expect(await store.review.replayDelivery({ write, audit })).toBe(true);
        expect(await mustGetDelivery(store, d.id)).toMatchObject({ state: 'ready', terminalReason: null });
        expect(await store.review.listReplays(TENANT, d.id)).toEqual([expect.objectContaining({ fromState: 'terminal', fromReason: 'held' })]);
      });

      it('health.rolloutDecisions: decided attempts of the account since a time, counted per decision pair', async () => {
        const ids = await seedDeliveries(store, { tenantId: TENANT, count: 4, providerAccount: 'acct-count', ttlMs: 2 * HOUR });
        const [otherAccount] = await seedDeliveries(store, { tenantId: OTHER_TENANT, count: 1, providerAccount: 'acct-elsewhere', ttlMs: 2 * HOUR });
        const now = T0 + 10 * SECOND;
        const claimed = await claim(store, now, 4, 'acct-count');
        expect(claimed).toHaveLength(4);
        await reportAtStage(claimed[0]!, retryable, now, 'shadow');
        await reportAtStage(claimed[1]!, retryable, now + MINUTE, 'shadow');
        await reportAtStage(claimed[2]!, ambiguous, now + MINUTE, 'shadow');
        // Written without decisions (as a send-time stop or an older Herald would): not counted.
        await report(store, claimed[3]!, accepted(), now + MINUTE);
        const [elsewhere] = await claim(store, now, 1, 'acct-elsewhere');
        await reportAtStage(elsewhere!, retryable, now, 'shadow');
        expect(await store.health.rolloutDecisions('acct-count', now)).toEqual([
          { decision: 'review', nextStageDecision: 'retry_at', attempts: 2 },
          { decision: 'review', nextStageDecision: 'review', attempts: 1 },
        ]);
        // `since` is inclusive, by the attempt's finish time.
        expect(await store.health.rolloutDecisions('acct-count', now + 1)).toEqual([
          { decision: 'review', nextStageDecision: 'retry_at', attempts: 1 },
          { decision: 'review', nextStageDecision: 'review', attempts: 1 },
        ]);
        expect(await store.health.rolloutDecisions('acct-nobody', now)).toEqual([]);
        expect(ids).toHaveLength(4);
        expect(otherAccount).toBeDefined();
      });

      it('replayDelivery from terminal clears the reason and records it; a refused guard writes nothing', async () => {
        const { ids, now } = await seedEndStates();
        const exhausted = await mustGetDelivery(store, ids.exhausted);
        const at = now + MINUTE;
        const t = replayOf(exhausted, at);
        const audit = { requestedBy: 'key_ops', acceptDuplicateRisk: false, note: null, fromReason: 'exhausted' };
        // A guard naming the wrong lease version (someone else moved it meanwhile): nothing changes.
        expect(
          await store.review.replayDelivery({
            write: { deliveryId: exhausted.id, expect: { state: 'terminal', leaseVersion: exhausted.leaseVersion - 1 }, transition: t, now: at },
            audit,
          }),
        ).toBe(false);
        expect(await mustGetDelivery(store, exhausted.id)).toEqual(exhausted);
        expect(await store.review.listReplays(TENANT, exhausted.id)).toEqual([]);

        expect(
          await store.review.replayDelivery({
            write: { deliveryId: exhausted.id, expect: { state: 'terminal', leaseVersion: exhausted.leaseVersion }, transition: t, now: at },
            audit,
          }),
        ).toBe(true);
        expect(await mustGetDelivery(store, exhausted.id)).toMatchObject({
          state: 'ready',
          terminalReason: null,
          nextAttemptAt: at,
          attemptCount: TEST_POLICY.maxAttempts,
        });
        expect(await store.review.listReplays(TENANT, exhausted.id)).toEqual([
          expect.objectContaining({ fromState: 'terminal', fromReason: 'exhausted', acceptDuplicateRisk: false, note: null, requestedBy: 'key_ops' }),
        ]);
        expect(await store.countByState()).toMatchObject({ ready: 2, terminal: 3 });
        const due = { now: at + UNKNOWN_AFTER, unknownAfterMs: UNKNOWN_AFTER };
        expect((await store.review.listReview(TENANT, due, null, 50)).items.map((d) => d.id)).not.toContain(exhausted.id);
      });

      it('listReplayCandidates: replayable states only, oldest first, filtered, walked by afterId', async () => {
        const { ids } = await seedEndStates();
        const sms = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: 'acct-sms', channel: 'sms', createdAt: T0 + 20 * SECOND });
        const [cs] = await claim(store, T0 + 20 * SECOND, 1, 'acct-sms');
        await report(store, cs!, ambiguous, T0 + 20 * SECOND);
        await seedDeliveries(store, { tenantId: OTHER_TENANT, count: 1, providerAccount: 'acct-rejected', createdAt: T0 + MINUTE });
        const [theirs] = await claim(store, T0 + MINUTE, 1, 'acct-rejected');
        await report(store, theirs!, permanent, T0 + MINUTE);

        const walk = async (filter: Parameters<Store['review']['listReplayCandidates']>[1], size = 2) => {
          const out: string[] = [];
          let after: string | null = null;
          for (;;) {
            const batch: DeliveryView[] = await store.review.listReplayCandidates(TENANT, filter, after, size);
            out.push(...batch.map((d) => d.id));
            if (batch.length < size) return out;
            after = batch[batch.length - 1]!.id;
          }
        };
        // accepted and ready are never candidates; the order is creation order.
        expect(await walk({})).toEqual([ids.rejected, ids.exhausted, ids.unresolved, ids.unknown, ids.cancelled, sms[0]]);
        expect(await walk({ state: 'unknown' })).toEqual([ids.unknown, sms[0]]);
        expect(await walk({ state: 'accepted' })).toEqual([]);
        expect(await walk({ channel: 'sms' })).toEqual([sms[0]]);
        expect(await walk({ providerAccount: 'acct-exhausted' })).toEqual([ids.exhausted]);
        expect(await walk({ createdFrom: T0 + SECOND, createdTo: T0 + 3 * SECOND })).toEqual([ids.exhausted, ids.unresolved]);
        expect(await walk({ state: 'terminal', createdFrom: T0 + 2 * SECOND }, 10)).toEqual([ids.unresolved, ids.cancelled]);
        expect((await store.review.listReplayCandidates(OTHER_TENANT, {}, null, 10)).map((d) => d.id)).toEqual([theirs!.deliveryId]);
      });

      it('getNotificationSource returns what was asked for; latestGeneration is the highest generation of a group, per tenant', async () => {
        const g1 = buildNotification({ tenantId: TENANT, groupKey: 'login-7', generation: 1, purpose: 'otp', metadata: { flow: 'login' } });
        const g3 = buildNotification({ tenantId: TENANT, groupKey: 'login-7', generation: 3, recipientId: g1.recipient.id, purpose: 'otp', metadata: null });
        const theirs = buildNotification({ tenantId: OTHER_TENANT, groupKey: 'login-7', generation: 9 });
        for (const n of [g1, g3, theirs]) await store.createNotification(n);

        expect(await store.review.getNotificationSource(TENANT, g1.id)).toEqual({
          id: g1.id,
          tenantId: TENANT,
          recipient: g1.recipient,
          purpose: 'otp',
          channels: g1.channels,
          content: g1.content,
          groupKey: 'login-7',
          generation: 1,
          metadata: { flow: 'login' },
          expiresAt: g1.expiresAt,
          createdAt: g1.createdAt,
        });
        expect((await store.review.getNotificationSource(TENANT, g3.id))?.metadata).toBeNull();
        expect(await store.review.getNotificationSource(OTHER_TENANT, g1.id)).toBeNull();
        expect(await store.review.getNotificationSource(TENANT, 'ntf_missing')).toBeNull();

        expect(await store.latestGeneration(TENANT, 'login-7')).toBe(3);
        expect(await store.latestGeneration(OTHER_TENANT, 'login-7')).toBe(9);
        expect(await store.latestGeneration(TENANT, 'login-8')).toBeNull();
      });
    });
  });
}
