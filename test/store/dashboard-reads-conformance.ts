/**
 * What the dashboard reads besides the delivery list, run against every driver: a delivery's
 * evidence (callbacks merged, parked and their fate; reconciliation look-ups recorded with the
 * write they led to), the tenant's campaign list (newest first, cursor, status filter) with
 * progress counts for a page in one query, and each provider account's recent errors by class
 * over 15 min / 1 h / 24 h.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../src/domain/index.js';
import type { NewCampaign } from '../../src/store/campaign-store.js';
import type { ClaimedDelivery, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { HOUR, MINUTE, SECOND, T0, buildNotification, mustDecide, mustGetDelivery, newId, seedDeliveries } from './fixtures.js';

const TENANT = 't_alpha';
const ACCOUNT = 'acct-email';

async function claimOne(store: Store, now: number, account = ACCOUNT): Promise<ClaimedDelivery> {
  const [c] = await store.claimBatch({ providerAccount: account, workerId: 'w1', now, leaseMs: 30 * SECOND, limit: 1 });
  if (!c) throw new Error('nothing to claim');
  return c;
}

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

/** Runs the dashboard's read contract against one driver. */
export function dashboardReadsConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Dashboard reads conformance: ${name}`, () => {
    let fx: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      fx = await makeStore();
      store = fx.store;
      await store.ensureTenant({ id: TENANT, name: 'Alpha' }, T0);
      await store.ensureTenant({ id: 't_beta', name: 'Beta' }, T0);
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    it("lists a delivery's callbacks with their fate: merged, merged without a change, and still parked", async () => {
      const [id, other] = await seedDeliveries(store, { tenantId: TENANT, count: 2, providerAccount: ACCOUNT });
      const c = await claimOne(store, T0);
      expect(c.deliveryId).toBe(id);
      await report(store, c, { kind: 'accepted', providerMessageId: 'pm-1' }, T0 + SECOND);
      await store.evidence.recordProviderEvents([
        {
          providerAccount: ACCOUNT,
          eventId: 'ev-sent',
          status: 'sent',
          providerMessageId: 'pm-1',
          reference: null,
          suppress: null,
          occurredAt: T0 + 2 * SECOND,
          receivedAt: T0 + 3 * SECOND,
        },
        {
          providerAccount: ACCOUNT,
          eventId: 'ev-old',
          status: 'accepted',
          providerMessageId: 'pm-1',
          reference: null,
          suppress: null,
          occurredAt: null,
          receivedAt: T0 + 4 * SECOND,
        },
        // Another delivery's event never shows.
        {
          providerAccount: ACCOUNT,
          eventId: 'ev-other',
          status: 'sent',
          providerMessageId: 'pm-other',
          reference: null,
          suppress: null,
          occurredAt: null,
          receivedAt: T0 + 4 * SECOND,
        },
      ]);
      const d = await mustGetDelivery(store, id!);
      const pending = await store.evidence.listPendingEvidence(10);
      const sent = pending.find((p) => p.eventId === 'ev-sent')!;
      const old = pending.find((p) => p.eventId === 'ev-old')!;
      const guard = { state: d.state, leaseVersion: d.leaseVersion, downstreamStatus: d.downstreamStatus };
      const base = { deliveryId: id!, transition: null, providerMessageId: null, resolvesAttempt: null, suppress: null };
      expect(await store.evidence.applyEvidence([{ ...base, rowIds: [sent.rowId], expect: guard, downstreamStatus: 'sent', now: T0 + 5 * SECOND }])).toEqual([
        true,
      ]);
      const guard2 = { ...guard, downstreamStatus: 'sent' as const };
      expect(await store.evidence.applyEvidence([{ ...base, rowIds: [old.rowId], expect: guard2, downstreamStatus: 'sent', now: T0 + 6 * SECOND }])).toEqual([
        true,
      ]);
      // A delivered one arrives and is not merged yet: parked, found by the provider id.
      await store.evidence.recordProviderEvents([
        {
          providerAccount: ACCOUNT,
          eventId: 'ev-dlv',
          status: 'delivered',
          providerMessageId: 'pm-1',
          reference: null,
          suppress: null,
          occurredAt: null,
          receivedAt: T0 + 7 * SECOND,
        },
      ]);

      const e = await store.evidence.deliveryEvidence(id!, 50);
      expect(e.lookups).toEqual([]);
      expect(e.callbacks).toEqual([
        {
          providerAccount: ACCOUNT,
          eventId: 'ev-sent',
          status: 'sent',
          providerMessageId: 'pm-1',
          occurredAt: T0 + 2 * SECOND,
          receivedAt: T0 + 3 * SECOND,
          appliedAt: T0 + 5 * SECOND,
          fate: 'applied',
        },
        {
          providerAccount: ACCOUNT,
          eventId: 'ev-old',
          status: 'accepted',
          providerMessageId: 'pm-1',
          occurredAt: null,
          receivedAt: T0 + 4 * SECOND,
          appliedAt: T0 + 6 * SECOND,
          fate: 'no_change',
        },
        {
          providerAccount: ACCOUNT,
          eventId: 'ev-dlv',
          status: 'delivered',
          providerMessageId: 'pm-1',
          occurredAt: null,
          receivedAt: T0 + 7 * SECOND,
          appliedAt: null,
          fate: 'pending',
        },
      ]);
      // The limit keeps the newest, still oldest first.
      expect((await store.evidence.deliveryEvidence(id!, 2)).callbacks.map((x) => x.eventId)).toEqual(['ev-old', 'ev-dlv']);
      // A parked event naming the idempotency key (before any provider id) belongs to that delivery.
      const o = await mustGetDelivery(store, other!);
      await store.evidence.recordProviderEvents([
        {
          providerAccount: ACCOUNT,
          eventId: 'ev-ref',
          status: 'sent',
          providerMessageId: null,
          reference: o.idempotencyKey,
          suppress: null,
          occurredAt: null,
          receivedAt: T0 + 8 * SECOND,
        },
      ]);
      expect((await store.evidence.deliveryEvidence(other!, 50)).callbacks.map((x) => [x.eventId, x.fate])).toEqual([['ev-ref', 'pending']]);
    });

    it('records each look-up with the deferral or resolution it led to, and only when that write applied', async () => {
      const [id] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT });
      const c = await claimOne(store, T0);
      await report(store, c, { kind: 'unknown', code: 'timeout', message: 'no answer' }, T0 + SECOND);
      const [u] = await store.evidence.listUnknownDue({ now: T0 + 2 * SECOND, limit: 10 });
      const noAnswer = {
        at: T0 + 2 * SECOND,
        result: 'no_answer' as const,
        ledTo: 'asked_later' as const,
        providerMessageId: null,
        errorCode: 'adapter_error',
      };
      expect(
        await store.evidence.deferReconcile({
          deliveryId: id!,
          leaseVersion: u!.leaseVersion,
          at: T0 + MINUTE,
          attemptNumber: 1,
          policy: null,
          lookup: noAnswer,
        }),
      ).toBe(true);
      // A stale writer's look-up is not recorded (its deferral did not apply).
      expect(
        await store.evidence.deferReconcile({
          deliveryId: id!,
          leaseVersion: u!.leaseVersion + 1,
          at: T0 + MINUTE,
          attemptNumber: 1,
          policy: null,
          lookup: noAnswer,
        }),
      ).toBe(false);
      const d = await mustGetDelivery(store, id!);
      const transition = mustDecide(d, { type: 'evidence', found: true, providerMessageId: 'pm-9' }, T0 + MINUTE);
      const found = { at: T0 + MINUTE, result: 'found' as const, ledTo: 'accepted' as const, providerMessageId: 'pm-9', errorCode: null };
      expect(
        await store.evidence.resolveUnknown({
          write: { deliveryId: id!, expect: { state: 'unknown', leaseVersion: d.leaseVersion }, transition, now: T0 + MINUTE },
          attemptNumber: 1,
          policy: null,
          resolution: 'found_by_lookup',
          lookup: found,
        }),
      ).toBe(true);
      expect((await store.evidence.deliveryEvidence(id!, 50)).lookups).toEqual([
        { attemptNumber: 1, lookedAt: T0 + 2 * SECOND, result: 'no_answer', ledTo: 'asked_later', providerMessageId: null, errorCode: 'adapter_error' },
        { attemptNumber: 1, lookedAt: T0 + MINUTE, result: 'found', ledTo: 'accepted', providerMessageId: 'pm-9', errorCode: null },
      ]);
    });

    async function campaign(over: Partial<NewCampaign> & { id: string }): Promise<void> {
      const audienceId = `aud_${over.id}`;
      await store.campaigns.createAudience({ id: audienceId, tenantId: over.tenantId ?? TENANT, source: 'inline', now: T0 });
      await store.campaigns.sealAudience({ audienceId, duplicates: 0, now: T0 });
      await store.campaigns.createCampaign({
        tenantId: TENANT,
        name: null,
        status: 'running',
        channel: 'email',
        purpose: 'marketing',
        providerAccount: ACCOUNT,
        lane: 'bulk',
        content: { subject: 'Hi', text: 'Hello' },
        template: null,
        metadata: null,
        ttlMs: HOUR,
        audienceId,
        audienceSize: 2,
        deadlineAt: T0 + HOUR,
        sendAt: null,
        plan: { feasible: true },
        createdAt: T0,
        startedAt: T0,
        ...over,
      });
    }

    it("lists a tenant's campaigns newest first, by cursor and status, with a page's progress counts in one query", async () => {
      const ids = [1, 2, 3, 4].map((i) => newId('cmp', T0 + i * SECOND)).sort();
      await campaign({ id: ids[0]!, name: 'first' });
      await campaign({ id: ids[1]!, status: 'draft', startedAt: null });
      await campaign({ id: ids[2]!, name: 'third' });
      await campaign({ id: ids[3]!, tenantId: 't_beta' });

      const first = await store.campaigns.listCampaigns({ tenantId: TENANT, after: null, limit: 2 });
      expect(first.items.map((c) => c.id)).toEqual([ids[2], ids[1]]);
      expect(first.nextCursor).toBe(ids[1]);
      const second = await store.campaigns.listCampaigns({ tenantId: TENANT, after: first.nextCursor, limit: 2 });
      expect(second.items.map((c) => c.id)).toEqual([ids[0]]);
      expect(second.items[0]).toMatchObject({ name: 'first', status: 'running', audienceSize: 2, plan: { feasible: true } });
      expect(second.nextCursor).toBeNull();
      const running = await store.campaigns.listCampaigns({ tenantId: TENANT, status: 'running', after: null, limit: 10 });
      expect(running.items.map((c) => c.id)).toEqual([ids[2], ids[0]]);
      expect((await store.campaigns.listCampaigns({ tenantId: TENANT, status: 'completed', after: null, limit: 10 })).items).toEqual([]);

      const note = (cmp: string, r: string) =>
        buildNotification({
          tenantId: TENANT,
          recipientId: r,
          groupKey: `cmp:${cmp}:${r}`,
          purpose: 'marketing',
          deliveries: [{ channel: 'email', providerAccount: ACCOUNT }],
        });
      expect(
        await store.campaigns.fanOutBatch({
          campaignId: ids[0]!,
          expectPosition: 0,
          toPosition: 2,
          notifications: [note(ids[0]!, 'a'), note(ids[0]!, 'b')],
          refusals: [],
          now: T0,
        }),
      ).toBe(true);
      expect(
        await store.campaigns.fanOutBatch({
          campaignId: ids[2]!,
          expectPosition: 0,
          toPosition: 1,
          notifications: [note(ids[2]!, 'c')],
          refusals: [
            { position: 1, line: 2, recipientId: 'r-refused', code: 'template_render_failed', reason: 'missing variable', locale: 'en', createdAt: T0 },
          ],
          now: T0,
        }),
      ).toBe(true);
      const counts = await store.campaigns.campaignDeliveryCountsMany([ids[0]!, ids[1]!, ids[2]!]);
      expect(counts.sort((a, b) => a.campaignId.localeCompare(b.campaignId))).toEqual([
        { campaignId: ids[0], state: 'ready', terminalReason: null, downstreamStatus: null, held: false, count: 2 },
        { campaignId: ids[2], state: 'ready', terminalReason: null, downstreamStatus: null, held: false, count: 1 },
      ]);
      expect(await store.campaigns.campaignDeliveryCountsMany([])).toEqual([]);
    });

    it("counts each account's failed call outcomes and failure reasons over the last 15 min, hour and day", async () => {
      const now = T0 + 2 * 24 * HOUR;
      // Four calls claimed together, answered 10 min, 30 min and 5 h ago, and 2 days ago (outside every window).
      const at = [now - 10 * MINUTE, now - 30 * MINUTE, now - 5 * HOUR, T0];
      await seedDeliveries(store, { tenantId: TENANT, count: 4, providerAccount: ACCOUNT, createdAt: T0 - 10 * SECOND, ttlMs: 3 * 24 * HOUR });
      const claimed = await store.claimBatch({ providerAccount: ACCOUNT, workerId: 'w1', now: T0 - SECOND, leaseMs: 30 * SECOND, limit: 4 });
      expect(claimed).toHaveLength(4);
      for (const [i, c] of claimed.entries()) await report(store, c, { kind: 'retryable', code: 'http_503', message: 'busy' }, at[i]!);
      // A permanent answer ends a delivery terminal/rejected 10 min ago, on another account.
      await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: 'acct-sms', channel: 'sms', createdAt: now - 11 * MINUTE, ttlMs: HOUR });
      const s = await claimOne(store, now - 10 * MINUTE, 'acct-sms');
      await report(store, s, { kind: 'permanent', reason: 'invalid_destination', code: 'invalid_number', message: 'no such number' }, now - 10 * MINUTE);
      // An accepted call is not an error.
      await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: 'acct-sms', channel: 'sms', createdAt: now - 2 * MINUTE, ttlMs: HOUR });
      await report(store, await claimOne(store, now - MINUTE, 'acct-sms'), { kind: 'accepted', providerMessageId: 'pm-ok' }, now - MINUTE);

      const rows = await store.health.recentProviderErrors({ since15m: now - 15 * MINUTE, since1h: now - HOUR, since24h: now - 24 * HOUR });
      expect(rows).toEqual([
        { providerAccount: ACCOUNT, kind: 'attempt', errorClass: 'retryable', last15m: 1, last1h: 2, last24h: 3 },
        { providerAccount: 'acct-sms', kind: 'attempt', errorClass: 'permanent', last15m: 1, last1h: 1, last24h: 1 },
        { providerAccount: 'acct-sms', kind: 'terminal', errorClass: 'rejected', last15m: 1, last1h: 1, last24h: 1 },
      ]);
    });
  });
}
