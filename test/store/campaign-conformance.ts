/**
 * The campaign part of the Store contract, run against every driver: recipient profiles,
 * audiences written batch by batch (a repeated id skipped, counts at seal), guarded campaign
 * transitions, fan-out batches that commit with their cursor (and refuse a stale one), pause
 * holds and resume releases without touching claims, one-query progress counts, finishing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CAMPAIGN_HOLD_UNTIL } from '../../src/domain/campaign-status.js';
import type { AudienceRow, CampaignRefusal, NewCampaign } from '../../src/store/campaign-store.js';
import type { NewNotification, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { buildNotification, mustDecide, MINUTE, SECOND, T0 } from './fixtures.js';

const TENANT = 't_alpha';
const ACCOUNT = 'acct-email';

const row = (position: number, id = `u${position}`, email: string | null = `${id}@example.com`): AudienceRow => ({
  position,
  line: position + 1,
  recipient: { id, ...(email === null ? {} : { email }) },
});

/** A recipient fan-out refused, as the runner records it. */
const refusal = (position: number, recipientId = `u${position}`, code = 'template_render_failed'): CampaignRefusal => ({
  position,
  line: position + 1,
  recipientId,
  code,
  reason: `template welcome version 1 (locale en) sms.text: undefined variable: first_name`,
  locale: code.startsWith('template_') ? 'en' : null,
  createdAt: T0,
});

/** A campaign's notification for one recipient, as fan-out builds it. */
const note = (campaignId: string, recipientId: string, now = T0): NewNotification =>
  buildNotification({ tenantId: TENANT, createdAt: now, recipientId, groupKey: `cmp:${campaignId}:${recipientId}`, purpose: 'marketing', ttlMs: 60 * MINUTE });

/** Runs the campaign contract against one driver. */
export function campaignConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Campaign store conformance: ${name}`, () => {
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

    async function audience(rows: AudienceRow[], id = `aud_${Math.random().toString(36).slice(2)}`) {
      await store.campaigns.createAudience({ id, tenantId: TENANT, source: 'csv', now: T0 });
      const written = await store.campaigns.appendAudienceRows(id, rows);
      return store.campaigns.sealAudience({ audienceId: id, duplicates: rows.length - written, now: T0 });
    }

    async function campaign(audienceId: string, size: number, over: Partial<NewCampaign> = {}): Promise<string> {
      const id = `cmp_${Math.random().toString(36).slice(2)}`;
      await store.campaigns.createCampaign({
        id,
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
        ttlMs: 60 * MINUTE,
        audienceId,
        audienceSize: size,
        deadlineAt: T0 + 10 * MINUTE,
        sendAt: null,
        plan: { feasible: true },
        createdAt: T0,
        startedAt: T0,
        ...over,
      });
      return id;
    }

    it('stores, replaces and looks up recipient profiles per tenant', async () => {
      const a = await store.campaigns.putRecipient({ tenantId: TENANT, recipient: { id: 'u1', email: 'a@example.com', locale: 'en' }, now: T0 });
      expect(a.created).toBe(true);
      expect(a.profile).toMatchObject({ id: 'u1', email: 'a@example.com', phone: null, locale: 'en', createdAt: T0 });
      const b = await store.campaigns.putRecipient({ tenantId: TENANT, recipient: { id: 'u1', phone: '+14155550123' }, now: T0 + 1 });
      expect(b).toMatchObject({ created: false, profile: { email: null, phone: '+14155550123', createdAt: T0, updatedAt: T0 + 1 } });
      expect((await store.campaigns.getRecipients(TENANT, ['u1', 'nobody'])).map((p) => p.id)).toEqual(['u1']);
      expect(await store.campaigns.getRecipients('t_beta', ['u1'])).toEqual([]);
    });

    it('writes an audience batch by batch, skips a repeated id, and counts rows and addresses at seal', async () => {
      await store.campaigns.createAudience({ id: 'aud_1', tenantId: TENANT, source: 'ndjson', now: T0 });
      expect(await store.campaigns.getAudience(TENANT, 'aud_1')).toMatchObject({ status: 'loading' });
      expect(await store.campaigns.appendAudienceRows('aud_1', [row(1), row(2), row(3, 'u1')])).toBe(2);
      expect(await store.campaigns.appendAudienceRows('aud_1', [row(4, 'u4', null), row(5, 'u2')])).toBe(1);
      const a = await store.campaigns.sealAudience({ audienceId: 'aud_1', duplicates: 2, now: T0 + SECOND });
      expect(a).toMatchObject({ id: 'aud_1', status: 'ready', source: 'ndjson', size: 3, duplicates: 2, withAddress: { email: 2, sms: 0, push: 0 } });
      expect(await store.campaigns.getAudience('t_beta', 'aud_1')).toBeNull();
      expect((await store.campaigns.readAudienceRows('aud_1', 0, 10)).map((r) => [r.position, r.recipient.id])).toEqual([
        [1, 'u1'],
        [2, 'u2'],
        [4, 'u4'],
      ]);
      expect((await store.campaigns.readAudienceRows('aud_1', 2, 1)).map((r) => r.position)).toEqual([4]);
      expect(await store.campaigns.audienceLinesWithout('aud_1', 'email', 10)).toEqual([5]);
      expect(await store.campaigns.readAudienceRows('aud_1', 1, 10)).toEqual([
        { position: 2, line: 3, recipient: { id: 'u2', email: 'u2@example.com' } },
        { position: 4, line: 5, recipient: { id: 'u4' } },
      ]);
    });

    it("keeps a campaign's send_at (null when it has none), in the record and in the runner's list", async () => {
      const a = await audience([row(1)]);
      const id = await campaign(a.id, 1, { sendAt: T0 + 90 * MINUTE });
      expect(await store.campaigns.getCampaign(TENANT, id)).toMatchObject({ sendAt: T0 + 90 * MINUTE });
      expect((await store.campaigns.listActiveCampaigns(10)).find((c) => c.id === id)).toMatchObject({ sendAt: T0 + 90 * MINUTE });
      expect(await store.campaigns.getCampaign(TENANT, await campaign(a.id, 1))).toMatchObject({ sendAt: null });
    });

    it("keeps each row's template data (nested, typed) and a campaign's pinned template; a row without data has none", async () => {
      const data = { first_name: 'Ada', order: { total: 12.5, items: ['a', 'b'] }, vip: true };
      const a = await audience([{ ...row(1), data }, row(2), { ...row(3), data: { first_name: 'Zoë' } }]);
      expect(await store.campaigns.readAudienceRows(a.id, 0, 10)).toEqual([{ ...row(1), data }, row(2), { ...row(3), data: { first_name: 'Zoë' } }]);
      const id = await campaign(a.id, 3, { content: null, template: { id: 'welcome', version: 2 } });
      expect(await store.campaigns.getCampaign(TENANT, id)).toMatchObject({ content: null, template: { id: 'welcome', version: 2 } });
      expect((await store.campaigns.listActiveCampaigns(10)).find((c) => c.id === id)).toMatchObject({ template: { id: 'welcome', version: 2 } });
      const plain = await campaign(a.id, 3);
      expect(await store.campaigns.getCampaign(TENANT, plain)).toMatchObject({ content: { subject: 'Hi', text: 'Hello' }, template: null });
    });

    it('records refusals with the fan-out batch (not when the batch is refused), lists them by position and counts them by code', async () => {
      const a = await audience([row(1), row(2), row(3), row(4)]);
      const id = await campaign(a.id, 4);
      const stale = { campaignId: id, expectPosition: 1, toPosition: 2, notifications: [], refusals: [refusal(2)], now: T0 };
      expect(await store.campaigns.fanOutBatch(stale)).toBe(false);
      expect(await store.campaigns.listCampaignRefusals(id, 0, 10)).toEqual([]);
      const first = [refusal(1), refusal(3, 'u3', 'validation_failed')];
      expect(
        await store.campaigns.fanOutBatch({ campaignId: id, expectPosition: 0, toPosition: 3, notifications: [note(id, 'u2')], refusals: first, now: T0 }),
      ).toBe(true);
      expect(await store.campaigns.fanOutBatch({ campaignId: id, expectPosition: 3, toPosition: 4, notifications: [], refusals: [refusal(4)], now: T0 })).toBe(
        true,
      );
      expect(await store.campaigns.getCampaign(TENANT, id)).toMatchObject({ fannedOut: 1, skipped: 3, fannedOutPosition: 4 });
      expect(await store.campaigns.listCampaignRefusals(id, 0, 10)).toEqual([refusal(1), refusal(3, 'u3', 'validation_failed'), refusal(4)]);
      expect((await store.campaigns.listCampaignRefusals(id, 1, 1)).map((r) => r.position)).toEqual([3]);
      expect(await store.campaigns.campaignRefusalCounts(id)).toEqual([
        { code: 'template_render_failed', count: 2 },
        { code: 'validation_failed', count: 1 },
      ]);
    });

    it('deletes a failed upload and prunes abandoned loading audiences, never one a campaign uses', async () => {
      await store.campaigns.createAudience({ id: 'aud_gone', tenantId: TENANT, source: 'csv', now: T0 });
      await store.campaigns.appendAudienceRows('aud_gone', [row(1)]);
      await store.campaigns.deleteAudience('aud_gone');
      expect(await store.campaigns.getAudience(TENANT, 'aud_gone')).toBeNull();
      await store.campaigns.createAudience({ id: 'aud_old', tenantId: TENANT, source: 'csv', now: T0 });
      await store.campaigns.createAudience({ id: 'aud_new', tenantId: TENANT, source: 'csv', now: T0 + MINUTE });
      expect(await store.campaigns.pruneLoadingAudiences(T0 + 1)).toBe(1);
      expect(await store.campaigns.getAudience(TENANT, 'aud_new')).not.toBeNull();
      const a = await audience([row(1)], 'aud_used');
      await campaign(a.id, 1);
      await store.campaigns.deleteAudience(a.id);
      expect(await store.campaigns.getAudience(TENANT, a.id)).not.toBeNull();
    });

    it('applies campaign transitions only from the statuses they allow', async () => {
      const a = await audience([row(1)]);
      const id = await campaign(a.id, 1, { status: 'draft', startedAt: null });
      expect(await store.campaigns.pauseCampaign({ tenantId: TENANT, id, now: T0, holdUntil: CAMPAIGN_HOLD_UNTIL })).toBe(false);
      expect(await store.campaigns.transitionCampaign({ tenantId: 't_beta', id, action: 'start', now: T0 })).toBe(false);
      expect(await store.campaigns.transitionCampaign({ tenantId: TENANT, id, action: 'start', now: T0 + 5, plan: { feasible: false } })).toBe(true);
      expect(await store.campaigns.transitionCampaign({ tenantId: TENANT, id, action: 'start', now: T0 + 6 })).toBe(false);
      expect(await store.campaigns.getCampaign(TENANT, id)).toMatchObject({ status: 'running', startedAt: T0 + 5, plan: { feasible: false } });
      expect(await store.campaigns.pauseCampaign({ tenantId: TENANT, id, now: T0 + 7, holdUntil: CAMPAIGN_HOLD_UNTIL })).toBe(true);
      expect(await store.campaigns.getCampaign(TENANT, id)).toMatchObject({ status: 'paused', pausedAt: T0 + 7 });
      expect(await store.campaigns.resumeCampaign({ tenantId: TENANT, id, now: T0 + 8 })).toBe(true);
      expect(await store.campaigns.resumeCampaign({ tenantId: TENANT, id, now: T0 + 8 })).toBe(false);
      expect(await store.campaigns.getCampaign(TENANT, id)).toMatchObject({ status: 'running', pausedAt: null, startedAt: T0 + 5 });
      expect(await store.campaigns.transitionCampaign({ tenantId: TENANT, id, action: 'cancel', now: T0 + 9 })).toBe(true);
      expect(await store.campaigns.transitionCampaign({ tenantId: TENANT, id, action: 'cancel', now: T0 + 9 })).toBe(false);
      expect(await store.campaigns.getCampaign('t_beta', id)).toBeNull();
    });

    it('commits a fan-out batch with its cursor, refuses a stale cursor or a paused campaign, and links the deliveries', async () => {
      const a = await audience([row(1), row(2), row(3)]);
      const id = await campaign(a.id, 3);
      const first = [note(id, 'u1'), note(id, 'u2')];
      expect(await store.campaigns.fanOutBatch({ campaignId: id, expectPosition: 0, toPosition: 2, notifications: first, refusals: [], now: T0 })).toBe(true);
      // The same batch again (a second runner, a re-run after a crash): refused, nothing written twice.
      expect(
        await store.campaigns.fanOutBatch({
          campaignId: id,
          expectPosition: 0,
          toPosition: 2,
          notifications: [note(id, 'u1'), note(id, 'u2')],
          refusals: [],
          now: T0,
        }),
      ).toBe(false);
      expect(await store.campaigns.getCampaign(TENANT, id)).toMatchObject({ fannedOutPosition: 2, fannedOut: 2, skipped: 0 });
      expect(await store.campaigns.countCampaignQueued(id)).toBe(2);
      expect(await store.getNotification(TENANT, first[0]!.id)).not.toBeNull();

      expect(await store.campaigns.pauseCampaign({ tenantId: TENANT, id, now: T0, holdUntil: CAMPAIGN_HOLD_UNTIL })).toBe(true);
      expect(
        await store.campaigns.fanOutBatch({ campaignId: id, expectPosition: 2, toPosition: 3, notifications: [note(id, 'u3')], refusals: [], now: T0 }),
      ).toBe(false);
      await store.campaigns.resumeCampaign({ tenantId: TENANT, id, now: T0 });
      expect(await store.campaigns.fanOutBatch({ campaignId: id, expectPosition: 2, toPosition: 3, notifications: [], refusals: [refusal(3)], now: T0 })).toBe(
        true,
      );
      expect(await store.campaigns.getCampaign(TENANT, id)).toMatchObject({ fannedOutPosition: 3, fannedOut: 2, skipped: 1 });
      expect(await store.campaigns.listCampaignRefusals(id, 0, 10)).toEqual([refusal(3)]);
      expect(await store.campaigns.campaignDeliveryCounts(id)).toEqual([
        { state: 'ready', terminalReason: null, downstreamStatus: null, held: false, count: 2 },
      ]);
    });

    it('pause holds queued deliveries out of every claim; resume makes them due again, keeping a later retry time', async () => {
      const a = await audience([row(1), row(2), row(3)]);
      const id = await campaign(a.id, 3);
      await store.campaigns.fanOutBatch({
        campaignId: id,
        expectPosition: 0,
        toPosition: 3,
        notifications: [note(id, 'u1'), note(id, 'u2'), note(id, 'u3')],
        refusals: [],
        now: T0,
      });
      // One call in flight at the pause; it ends retryable (due in 5 minutes) while paused.
      const [inFlight] = await store.claimBatch({ providerAccount: ACCOUNT, workerId: 'w1', now: T0, leaseMs: 30 * SECOND, limit: 1 });
      await store.campaigns.pauseCampaign({ tenantId: TENANT, id, now: T0 + SECOND, holdUntil: CAMPAIGN_HOLD_UNTIL });
      expect(await store.claimBatch({ providerAccount: ACCOUNT, workerId: 'w1', now: T0 + 2 * SECOND, leaseMs: 30 * SECOND, limit: 10 })).toEqual([]);
      expect(await store.nextDueAt(ACCOUNT, T0 + 2 * SECOND)).toBe(CAMPAIGN_HOLD_UNTIL);
      const outcome = { kind: 'retryable' as const, code: 'http_503', message: 'unavailable', retryAfterMs: 5 * MINUTE };
      const retry = mustDecide(
        { state: 'submitting', attemptCount: 1, expiresAt: inFlight!.expiresAt, nextAttemptAt: null },
        { type: 'outcome', outcome },
        T0 + 2 * SECOND,
      );
      await store.applyTransitions([
        {
          deliveryId: inFlight!.deliveryId,
          expect: { state: 'submitting', leaseVersion: inFlight!.leaseVersion },
          transition: retry,
          now: T0 + 2 * SECOND,
          attempt: { number: 1, outcome },
        },
      ]);
      expect(await store.campaigns.holdPausedDeliveries({ holdUntil: CAMPAIGN_HOLD_UNTIL })).toBe(1);
      expect(await store.campaigns.holdPausedDeliveries({ holdUntil: CAMPAIGN_HOLD_UNTIL })).toBe(0);
      const counts = await store.campaigns.campaignDeliveryCounts(id);
      expect(counts.filter((c) => c.held).reduce((n, c) => n + c.count, 0)).toBe(3);
      expect(await store.claimBatch({ providerAccount: ACCOUNT, workerId: 'w1', now: T0 + 10 * MINUTE, leaseMs: 30 * SECOND, limit: 10 })).toEqual([]);

      const resumeAt = T0 + MINUTE;
      expect(await store.campaigns.resumeCampaign({ tenantId: TENANT, id, now: resumeAt })).toBe(true);
      const due = await store.claimBatch({ providerAccount: ACCOUNT, workerId: 'w1', now: resumeAt, leaseMs: 30 * SECOND, limit: 10 });
      // The two never tried are due now; the retry keeps its own time (it was due after the resume).
      expect(due).toHaveLength(2);
      expect((await store.getDelivery(inFlight!.deliveryId))!.nextAttemptAt).toBe(retry.nextAttemptAt);
      expect(retry.nextAttemptAt).toBeGreaterThan(resumeAt);
      expect((await store.campaigns.campaignDeliveryCounts(id)).some((c) => c.held)).toBe(false);
    });

    it('counts progress in one aggregate, lists pending for cancellation, and finishes campaigns', async () => {
      const a = await audience([row(1), row(2)]);
      const id = await campaign(a.id, 2);
      await store.campaigns.fanOutBatch({
        campaignId: id,
        expectPosition: 0,
        toPosition: 2,
        notifications: [note(id, 'u1'), note(id, 'u2')],
        refusals: [],
        now: T0,
      });
      const [c] = await store.claimBatch({ providerAccount: ACCOUNT, workerId: 'w1', now: T0, leaseMs: 30 * SECOND, limit: 1 });
      const accepted = { kind: 'accepted' as const, providerMessageId: 'pm-1' };
      const t = mustDecide({ state: 'submitting', attemptCount: 1, expiresAt: c!.expiresAt, nextAttemptAt: null }, { type: 'outcome', outcome: accepted }, T0);
      await store.applyTransitions([
        {
          deliveryId: c!.deliveryId,
          expect: { state: 'submitting', leaseVersion: c!.leaseVersion },
          transition: t,
          now: T0,
          attempt: { number: 1, outcome: accepted },
        },
      ]);
      const counts = await store.campaigns.campaignDeliveryCounts(id);
      expect(counts.map((g) => [g.state, g.downstreamStatus, g.count]).sort()).toEqual([
        ['accepted', 'accepted', 1],
        ['ready', null, 1],
      ]);
      expect(await store.campaigns.finishCampaign({ id, now: T0 })).toBeNull();
      expect((await store.campaigns.listCampaignPending(id, 10)).map((f) => f.state)).toEqual(['ready']);
      expect(await store.campaigns.listActiveCampaigns(10)).toHaveLength(1);

      await store.campaigns.transitionCampaign({ tenantId: TENANT, id, action: 'cancel', now: T0 });
      const [p] = await store.campaigns.listCampaignPending(id, 10);
      const cancel = mustDecide(p!, { type: 'cancel' }, T0);
      await store.applyTransitions([{ deliveryId: p!.deliveryId, expect: { state: p!.state, leaseVersion: p!.leaseVersion }, transition: cancel, now: T0 }]);
      expect(await store.campaigns.finishCampaign({ id, now: T0 + 1 })).toBe('cancel');
      expect(await store.campaigns.getCampaign(TENANT, id)).toMatchObject({ status: 'cancelled', finishedAt: T0 + 1 });
      expect(await store.campaigns.listActiveCampaigns(10)).toEqual([]);

      const b = await audience([row(1, 'v1')]);
      const done = await campaign(b.id, 1);
      expect(await store.campaigns.finishCampaign({ id: done, now: T0 })).toBeNull();
      await store.campaigns.fanOutBatch({ campaignId: done, expectPosition: 0, toPosition: 1, notifications: [], refusals: [refusal(1, 'v1')], now: T0 });
      expect(await store.campaigns.finishCampaign({ id: done, now: T0 + 2 })).toBe('complete');
      expect(await store.campaigns.getCampaign(TENANT, done)).toMatchObject({ status: 'completed', finishedAt: T0 + 2 });
    });
  });
}
