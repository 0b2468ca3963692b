/**
 * The one definition of a failed message (src/domain/failed-message.ts, the failed_messages view of
 * migration 0029), run against every driver: a mix of phone and provider deliveries in every case
 * the definition names, each with its facts written out for `isFailedMessage`, and the store's
 * counts (systemState's failuresLast15m, the stats series) must agree with the domain function on
 * the same cases. Successful phone deliveries are never counted; refused ones are.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planReport } from '../../src/devices/report-applier.js';
import { isFailedMessage, type FailedMessageFacts, type SubmitOutcome } from '../../src/domain/index.js';
import type { PhoneState } from '../../src/domain/index.js';
import type { ClaimedDelivery, DeliveryFilter, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { HOUR, MINUTE, SECOND, T0, buildNotification, mustDecide, mustGetDelivery } from './fixtures.js';

const TENANT = 't_fail';
const PHONES = 'phones';
const SMS = 'acct-sms';
const OFFERED: SubmitOutcome = { kind: 'unknown', code: 'offered', message: 'offered to dev_a' };
const TIMEOUT: SubmitOutcome = { kind: 'unknown', code: 'timeout', message: 'no answer in 5 s' };
const REFUSED: SubmitOutcome = { kind: 'permanent', reason: 'invalid_destination', code: 'http_400', message: 'no such number' };
// Half an hour: a refused delivery is not due again while the test claims the next ones (a claim takes every due row).
const BUSY: SubmitOutcome = { kind: 'retryable', code: 'http_503', message: 'busy', retryAfterMs: 30 * MINUTE };
const BUSY_SOON: SubmitOutcome = { kind: 'retryable', code: 'http_503', message: 'busy', retryAfterMs: null };
const ACCEPTED: SubmitOutcome = { kind: 'accepted', providerMessageId: 'pm-1' };
const noRandom = () => 0.5;

/** Runs the failed-message contract against one driver. */
export function failedMessagesConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Failed messages conformance: ${name}`, () => {
    let fx: StoreFixture;
    let store: Store;
    let n = 0;
    beforeEach(async () => {
      fx = await makeStore();
      store = fx.store;
      n = 0;
      await store.ensureTenant({ id: TENANT, name: 'Failures' }, T0);
      await store.devices.registerDevice({
        login: { login: 'LOGIN_F', providerAccount: PHONES, tenantId: TENANT, passwordHash: 'scrypt$x', now: T0 },
        device: {
          id: 'dev_a',
          tenantId: TENANT,
          providerAccount: PHONES,
          login: 'LOGIN_F',
          name: 'Pixel',
          tokenHash: 'hash-dev_a',
          simCards: null,
          appVersion: null,
          now: T0,
        },
      });
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    /** A new sms delivery on `account`, claimed at `now`. */
    async function claimNew(account: string, now: number, ttlMs = 2 * HOUR): Promise<ClaimedDelivery> {
      const note = buildNotification({
        tenantId: TENANT,
        createdAt: now,
        ttlMs,
        purpose: 'transactional',
        deliveries: [{ channel: 'sms', providerAccount: account, destination: `+1415555${String(1000 + n++)}` }],
      });
      await store.createNotification(note);
      return claimAgain(account, note.deliveries[0]!.id, now);
    }

    async function claimAgain(account: string, deliveryId: string, now: number): Promise<ClaimedDelivery> {
      const claimed = await store.claimBatch({ providerAccount: account, workerId: 'w1', now, leaseMs: 30 * SECOND, limit: 10 });
      const c = claimed.find((x) => x.deliveryId === deliveryId);
      expect(c, `claim of ${deliveryId}`).toBeDefined();
      return c!;
    }

    async function outcome(c: ClaimedDelivery, o: SubmitOutcome, now: number): Promise<void> {
      const transition = mustDecide(
        { state: 'submitting', attemptCount: c.attemptNumber, expiresAt: c.expiresAt, nextAttemptAt: null },
        { type: 'outcome', outcome: o },
        now,
      );
      const [r] = await store.applyTransitions([
        {
          deliveryId: c.deliveryId,
          expect: { state: 'submitting', leaseVersion: c.leaseVersion },
          transition,
          now,
          attempt: { number: c.attemptNumber, outcome: o },
        },
      ]);
      expect(r!.applied).toBe(true);
    }

    /** A delivery moved by `event` from its stored state (no attempt closed). */
    async function move(deliveryId: string, event: Parameters<typeof mustDecide>[1], now: number): Promise<void> {
      const d = await mustGetDelivery(store, deliveryId);
      const [r] = await store.applyTransitions([
        { deliveryId, expect: { state: d.state, leaseVersion: d.leaseVersion }, transition: mustDecide(d, event, now), now },
      ]);
      expect(r!.applied).toBe(true);
    }

    /** Offers a claimed phone delivery (the worker's outcome is `unknown`, code `offered`); the offer's message id. */
    async function offer(c: ClaimedDelivery, now: number): Promise<string> {
      const o = await store.devices.createOffer({
        deliveryId: c.deliveryId,
        idempotencyKey: c.idempotencyKey,
        deviceId: 'dev_a',
        providerAccount: PHONES,
        simNumber: null,
        priority: 0,
        validUntil: c.expiresAt,
        now,
      });
      await outcome(c, OFFERED, now);
      return o.messageId;
    }

    /** The phone reports `state` for an offer, and the report applier's plan for it is applied. */
    async function phoneReports(messageId: string, state: PhoneState, sent: boolean, error: string | null, now: number): Promise<void> {
      await store.devices.recordReports({ deviceId: 'dev_a', now, reports: [{ messageId, state, sent, error }] });
      const reports = await store.devices.listUnappliedReports(50);
      const writes = reports.map((r) => planReport(r, now, undefined, noRandom));
      expect(await store.devices.applyReports(writes)).toEqual(writes.map(() => true));
    }

    it('counts refused and failed messages, never a phone offer, a delivered phone message, an unknown, a resend or a cancel', async () => {
      const cases: { label: string; id: string; account: string; facts: FailedMessageFacts; failed: boolean }[] = [];
      const base = { terminalReason: null, downstreamStatus: null, everAccepted: false, lastAttemptOutcome: null, phoneNotSent: false };
      const at = (s: number) => T0 + s * SECOND;

      // Phones: delivered on the first offer (still an `unknown` attempt, code offered).
      const c1 = await claimNew(PHONES, at(1));
      const p1 = await offer(c1, at(1));
      await phoneReports(p1, 'Delivered', true, null, at(2));
      cases.push({
        label: 'phone delivered',
        id: c1.deliveryId,
        account: PHONES,
        facts: { ...base, state: 'accepted', downstreamStatus: 'delivered', lastAttemptOutcome: 'unknown' },
        failed: false,
      });
      // Phones: failed before sending (no service): waits to retry after a definite refusal.
      const c2 = await claimNew(PHONES, at(3));
      const p2 = await offer(c2, at(3));
      await phoneReports(p2, 'Failed', false, 'RESULT_ERROR_NO_SERVICE', at(4));
      cases.push({
        label: 'phone not sent',
        id: c2.deliveryId,
        account: PHONES,
        facts: { ...base, state: 'retryable', lastAttemptOutcome: 'unknown', phoneNotSent: true },
        failed: true,
      });
      // Phones: offered, nothing heard yet.
      const c3 = await claimNew(PHONES, at(5));
      await offer(c3, at(5));
      cases.push({
        label: 'phone offered',
        id: c3.deliveryId,
        account: PHONES,
        facts: { ...base, state: 'unknown', lastAttemptOutcome: 'unknown' },
        failed: false,
      });
      // Phones: failed before sending, retried, then delivered: not a failure any more.
      const c4 = await claimNew(PHONES, at(6));
      const p4 = await offer(c4, at(6));
      await phoneReports(p4, 'Failed', false, 'RESULT_ERROR_NO_SERVICE', at(7));
      await move(c4.deliveryId, { type: 'replay', acceptDuplicateRisk: false }, at(8));
      const p4b = await offer(await claimAgain(PHONES, c4.deliveryId, at(8)), at(8));
      await phoneReports(p4b, 'Delivered', true, null, at(9));
      cases.push({
        label: 'phone retried and delivered',
        id: c4.deliveryId,
        account: PHONES,
        facts: { ...base, state: 'accepted', downstreamStatus: 'delivered', lastAttemptOutcome: 'unknown' },
        failed: false,
      });

      // A provider: refused permanently (terminal rejected), refused retryably (waiting), accepted.
      const c5 = await claimNew(SMS, at(10));
      await outcome(c5, REFUSED, at(10));
      cases.push({
        label: 'rejected',
        id: c5.deliveryId,
        account: SMS,
        facts: { ...base, state: 'terminal', terminalReason: 'rejected', lastAttemptOutcome: 'permanent' },
        failed: true,
      });
      const c6 = await claimNew(SMS, at(11));
      await outcome(c6, BUSY, at(11));
      cases.push({
        label: 'retryable refusal',
        id: c6.deliveryId,
        account: SMS,
        facts: { ...base, state: 'retryable', lastAttemptOutcome: 'retryable' },
        failed: true,
      });
      const c7 = await claimNew(SMS, at(12));
      await outcome(c7, ACCEPTED, at(12));
      cases.push({
        label: 'accepted',
        id: c7.deliveryId,
        account: SMS,
        facts: { ...base, state: 'accepted', downstreamStatus: 'accepted', everAccepted: true, lastAttemptOutcome: 'accepted' },
        failed: false,
      });
      // An unknown that evidence settled as arrived.
      const c9 = await claimNew(SMS, at(15));
      await outcome(c9, TIMEOUT, at(15));
      await move(c9.deliveryId, { type: 'evidence', found: true, providerMessageId: 'pm-9' }, at(16));
      cases.push({
        label: 'unknown settled',
        id: c9.deliveryId,
        account: SMS,
        facts: { ...base, state: 'accepted', downstreamStatus: 'accepted', lastAttemptOutcome: 'unknown' },
        failed: false,
      });
      // Refused retryably, then cancelled by an operator: stopped on purpose.
      const c10 = await claimNew(SMS, at(17));
      await outcome(c10, BUSY, at(17));
      await move(c10.deliveryId, { type: 'cancel' }, at(18));
      cases.push({
        label: 'cancelled',
        id: c10.deliveryId,
        account: SMS,
        facts: { ...base, state: 'terminal', terminalReason: 'cancelled', lastAttemptOutcome: 'retryable' },
        failed: false,
      });
      // Refused retryably until its time ran out: expired without ever being accepted.
      const c11 = await claimNew(SMS, at(19), 10 * SECOND);
      await outcome(c11, BUSY_SOON, at(19));
      await move(c11.deliveryId, { type: 'expire' }, at(30));
      cases.push({
        label: 'expired unaccepted',
        id: c11.deliveryId,
        account: SMS,
        facts: { ...base, state: 'terminal', terminalReason: 'expired', lastAttemptOutcome: 'retryable' },
        failed: true,
      });
      // An unknown its ambiguity policy resends (the provider dedupes): retryable and due now, but no
      // refusal (last, because it is due at once and the next claim would take it).
      const c8 = await claimNew(SMS, at(31));
      await outcome(c8, TIMEOUT, at(31));
      await move(c8.deliveryId, { type: 'ambiguity_policy', policy: 'resend_same_key', dedupesByKey: true, windowClosed: false }, at(32));
      cases.push({
        label: 'policy resend',
        id: c8.deliveryId,
        account: SMS,
        facts: { ...base, state: 'retryable', lastAttemptOutcome: 'unknown' },
        failed: false,
      });

      // The domain's answer for each case, summed per account, is the store's count.
      const expected: Record<string, number> = { [PHONES]: 0, [SMS]: 0 };
      for (const c of cases) {
        expect(isFailedMessage(c.facts), c.label).toBe(c.failed);
        if (c.failed) expected[c.account]! += 1;
      }
      expect(expected).toEqual({ [PHONES]: 1, [SMS]: 3 });

      // GET /v1/deliveries?failed=true lists exactly these (its own statement, and the filter beside
      // every other driving filter), page by page: never a delivered phone message, always a refused one.
      const failedIds = cases
        .filter((c) => c.failed)
        .map((c) => c.id)
        .sort()
        .reverse();
      const listed = async (filter: DeliveryFilter, limit = 50): Promise<string[]> => {
        const ids: string[] = [];
        let cursor: string | null = null;
        do {
          const page = await store.listDeliveries(TENANT, filter, cursor, limit);
          ids.push(...page.items.map((d) => d.id));
          cursor = page.nextCursor;
        } while (cursor !== null);
        return ids;
      };
      expect(await listed({ failed: true })).toEqual(failedIds);
      expect(await listed({ failed: true }, 2)).toEqual(failedIds);
      const byAccount = (account: string) => cases.filter((c) => c.failed && c.account === account).map((c) => c.id);
      expect(await listed({ failed: true, providerAccount: PHONES })).toEqual(byAccount(PHONES));
      expect((await listed({ failed: true, providerAccount: SMS })).sort()).toEqual(byAccount(SMS).sort());
      expect(await listed({ failed: true, deviceId: 'dev_a' })).toEqual(byAccount(PHONES));
      expect(await listed({ failed: true, state: 'retryable' })).toEqual(
        cases
          .filter((c) => c.failed && c.facts.state === 'retryable')
          .map((c) => c.id)
          .sort()
          .reverse(),
      );
      expect(await listed({ failed: true, terminalReason: 'expired' })).toEqual([c11.deliveryId]);
      expect(await listed({ failed: true, q: c1.deliveryId })).toEqual([]);
      expect(await listed({ failed: true, q: c2.deliveryId })).toEqual([c2.deliveryId]);
      expect(await store.listDeliveries('t_other', { failed: true }, null, 50)).toEqual({ items: [], nextCursor: null });
      // Without the filter, every case is listed.
      expect((await listed({})).length).toBe(cases.length);
      const now = at(40);
      const q = { now, unknownAfterMs: MINUTE, acceptedProgressAfterMs: HOUR, healthSince: now - MINUTE };
      const counts = async (tenantId?: string) =>
        Object.fromEntries(
          (await store.observability.systemState({ ...q, ...(tenantId ? { tenantId } : {}) })).providerAccounts.map((a) => [
            a.providerAccount,
            [a.failuresLast15m, a.refusedAttemptsLast15m],
          ]),
        );
      // [failed messages, refused attempts]: the phones' offers are neither.
      expect(await counts(TENANT)).toEqual({ [PHONES]: [1, 0], [SMS]: [3, 4] });
      expect(await counts()).toEqual({ [PHONES]: [1, 0], [SMS]: [3, 4] });
      expect(await counts('t_other')).toEqual({});

      // The series: one bucket of a minute holds it all; failures by account agree with the counts,
      // the phones' delivered offers are accepted (so confirmed never outnumbers accepted), and the
      // one delivery unknown now is the unknown series.
      const [b] = await store.observability.statsSeries({ tenantId: TENANT, from: T0, bucketMs: MINUTE, buckets: 1 });
      expect(b).toMatchObject({ failed: 4, failedByAccount: { [PHONES]: 1, [SMS]: 3 }, unknown: 1, refusedAttempts: 4, confirmed: 2 });
      // Accepted: the provider's acceptance and the phones' two delivered offers (the settled unknown
      // above was moved without the evidence applier, which is what records an attempt's resolution).
      expect(b!.accepted).toBe(3);
      expect(b!.accepted).toBeGreaterThanOrEqual(b!.confirmed);

      // Fifteen minutes after the last failure began, nothing is recent any more.
      const later = at(30) + 15 * MINUTE + 1;
      expect(at(30)).toBeGreaterThan(at(19));
      const stale = await store.observability.systemState({ ...q, now: later, healthSince: later - MINUTE, tenantId: TENANT });
      expect(stale.providerAccounts.map((a) => [a.providerAccount, a.failuresLast15m])).toEqual([]);
    });
  });
}
