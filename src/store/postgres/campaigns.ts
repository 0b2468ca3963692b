/**
 * The PostgreSQL driver's campaign part (see src/store/campaign-store.ts). Fan-out batches
 * write their notifications with intake's own group-commit statement (`notification_create_many`,
 * parameters from `createManyParams`) inside one transaction that first moves the campaign's
 * cursor: the row lock that update takes serializes runners and pauses on one campaign.
 */
import { CAMPAIGN_TRANSITIONS } from '../../domain/campaign-status.js';
import type { Channel } from '../../domain/index.js';
import {
  ADDRESS_COLUMN,
  toAudienceRow,
  toAudienceView,
  toCampaignDeliveryCount,
  toCampaignGroupCount,
  toCampaignRecord,
  audienceDataBinding,
  toCampaignRefusal,
  toRecipientProfile,
} from '../campaign-rows.js';
import type {
  AudienceRow,
  AudienceSeal,
  AudienceView,
  CampaignActionRequest,
  CampaignGroupCount,
  CampaignListQuery,
  CampaignPage,
  CampaignDeliveryCount,
  CampaignFinish,
  CampaignFinishRequest,
  CampaignPause,
  CampaignRecord,
  CampaignRef,
  CampaignRefusal,
  CampaignRefusalCount,
  CampaignStore,
  DeliveryHold,
  FanOutBatch,
  NewAudience,
  NewCampaign,
  RecipientProfile,
  RecipientPut,
  RecipientPutResult,
} from '../campaign-store.js';
import type { DeliveryFacts } from '../core-store.js';
import { toDeliveryFacts } from '../rows.js';
import { createManyParams } from './notifications.js';
import type { Client, PostgresContext } from './sql-context.js';
import { bindTo, openContent } from '../content-cipher.js';

/** `store.campaigns` of the PostgreSQL store, over its pool and named statements. */
export class PostgresCampaigns implements CampaignStore {
  constructor(private readonly sql: PostgresContext) {}

  async putRecipient(r: RecipientPut): Promise<RecipientPutResult> {
    const p = r.recipient;
    const [row] = await this.sql.q('recipient_upsert', [r.tenantId, p.id, p.email ?? null, p.phone ?? null, p.push_token ?? null, p.locale ?? null, r.now]);
    return { created: row!.inserted === true, profile: toRecipientProfile(row!) };
  }

  async getRecipients(tenantId: string, ids: readonly string[]): Promise<RecipientProfile[]> {
    if (ids.length === 0) return [];
    return (await this.sql.q('recipients_get_many', [tenantId, ids])).map(toRecipientProfile);
  }

  async createAudience(a: NewAudience): Promise<void> {
    await this.sql.q('audience_insert', [a.id, a.tenantId, a.source, a.now]);
  }

  async appendAudienceRows(audienceId: string, rows: readonly AudienceRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const col = <T>(f: (r: AudienceRow) => T) => rows.map(f);
    const written = await this.sql.q('audience_rows_insert', [
      audienceId,
      col((r) => r.position),
      col((r) => r.line),
      col((r) => r.recipient.id),
      col((r) => r.recipient.email ?? null),
      col((r) => r.recipient.phone ?? null),
      col((r) => r.recipient.push_token ?? null),
      col((r) => r.recipient.locale ?? null),
      col((r) => (r.data === undefined ? null : this.sql.sealContent(r.data, audienceDataBinding(audienceId, r.position)))),
    ]);
    return written.length;
  }

  async sealAudience(r: AudienceSeal): Promise<AudienceView> {
    const [row] = await this.sql.q('audience_seal', [r.audienceId, r.duplicates, r.now]);
    if (!row) throw new Error(`audience ${r.audienceId} is not loading`);
    return toAudienceView(row);
  }

  async deleteAudience(audienceId: string): Promise<void> {
    await this.sql.q('audience_delete', [audienceId]);
  }

  async pruneLoadingAudiences(before: number): Promise<number> {
    const ids = (await this.sql.q('audiences_loading_before', [before])).map((r) => String(r.id));
    for (const id of ids) await this.deleteAudience(id);
    return ids.length;
  }

  async getAudience(tenantId: string, id: string): Promise<AudienceView | null> {
    const [r] = await this.sql.q('audience_get', [tenantId, id]);
    return r ? toAudienceView(r) : null;
  }

  async readAudienceRows(audienceId: string, afterPosition: number, limit: number): Promise<AudienceRow[]> {
    const rows = await this.sql.q('audience_rows_after', [audienceId, afterPosition, Math.max(0, limit)]);
    return rows.map((r) =>
      toAudienceRow(
        r,
        r.data_json === null ? null : openContent<Record<string, unknown>>(this.sql.cipher, r.data_json, audienceDataBinding(audienceId, Number(r.position))),
      ),
    );
  }

  async audienceLinesWithout(audienceId: string, channel: Channel, limit: number): Promise<number[]> {
    return (await this.sql.q('audience_lines_without', [audienceId, ADDRESS_COLUMN[channel], Math.max(0, limit)])).map((r) => Number(r.line));
  }

  async createCampaign(c: NewCampaign): Promise<void> {
    await this.sql.q('campaign_insert', [
      c.id,
      c.tenantId,
      c.name,
      c.status,
      c.channel,
      c.purpose,
      c.providerAccount,
      c.lane,
      this.sql.sealContent(c.content, bindTo('campaigns', 'content_json', c.id)),
      c.metadata === null ? null : JSON.stringify(c.metadata),
      c.ttlMs,
      c.audienceId,
      c.audienceSize,
      c.deadlineAt,
      JSON.stringify(c.plan),
      c.createdAt,
      c.startedAt,
      c.template?.id ?? null,
      c.template?.version ?? null,
    ]);
  }

  async getCampaign(tenantId: string, id: string): Promise<CampaignRecord | null> {
    const [r] = await this.sql.q('campaign_get', [tenantId, id]);
    return r ? toCampaignRecord(this.sql.openRow(r, 'campaigns')) : null;
  }

  /** The guarded status update CAMPAIGN_TRANSITIONS allows for `action`, on `c` when inside a transaction. */
  private async transition(r: CampaignRef & { action: keyof typeof CAMPAIGN_TRANSITIONS; plan?: unknown }, c?: Client): Promise<boolean> {
    const t = CAMPAIGN_TRANSITIONS[r.action];
    const params = [r.tenantId, r.id, t.from, t.to, r.now, r.plan === undefined ? null : JSON.stringify(r.plan)];
    return (await this.sql.q('campaign_transition', params, c)).length === 1;
  }

  transitionCampaign(r: CampaignActionRequest): Promise<boolean> {
    return this.transition(r);
  }

  pauseCampaign(r: CampaignPause): Promise<boolean> {
    return this.sql.tx(async (c) => {
      if (!(await this.transition({ ...r, action: 'pause' }, c))) return false;
      await this.sql.q('campaign_hold_deliveries', [r.id, r.holdUntil], c);
      return true;
    });
  }

  resumeCampaign(r: CampaignRef): Promise<boolean> {
    return this.sql.tx(async (c) => {
      if (!(await this.transition({ ...r, action: 'resume' }, c))) return false;
      await this.sql.q('campaign_release_deliveries', [r.id, r.now], c);
      return true;
    });
  }

  async holdPausedDeliveries(r: DeliveryHold): Promise<number> {
    return (await this.sql.q('campaign_hold_paused', [r.holdUntil])).length;
  }

  async listCampaigns(q: CampaignListQuery): Promise<CampaignPage> {
    const limit = Math.max(1, q.limit);
    const rows = await this.sql.q('campaigns_list', [q.tenantId, q.status ?? null, q.after, limit + 1]);
    const items = rows.slice(0, limit).map((r) => toCampaignRecord(this.sql.openRow(r, 'campaigns')));
    return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.id : null };
  }

  async listActiveCampaigns(limit: number): Promise<CampaignRecord[]> {
    return (await this.sql.q('campaigns_active', [Math.max(0, limit)])).map((r) => toCampaignRecord(this.sql.openRow(r, 'campaigns')));
  }

  async fanOutBatch(b: FanOutBatch): Promise<boolean> {
    const done = await this.sql.tx(async (c) => {
      const moved = await this.sql.q('campaign_advance', [b.campaignId, b.expectPosition, b.toPosition, b.notifications.length, b.refusals.length, b.now], c);
      if (moved.length === 0) return false;
      if (b.refusals.length > 0) {
        const col = <T>(f: (r: CampaignRefusal) => T) => b.refusals.map(f);
        await this.sql.q(
          'campaign_refusal_insert',
          [
            b.campaignId,
            col((r) => r.position),
            col((r) => r.line),
            col((r) => r.recipientId),
            col((r) => r.code),
            col((r) => r.reason),
            col((r) => r.locale),
            b.now,
          ],
          c,
        );
      }
      // Intake's own group-commit statement: the whole batch in one round trip (no idempotency keys).
      if (b.notifications.length > 0)
        await this.sql.q(
          'notification_create_many',
          createManyParams(
            this.sql,
            b.notifications.map((n) => ({ n })),
            // The deliveries are inserted with their campaign: no second write of each row.
            b.campaignId,
          ),
          c,
        );
      return true;
    });
    if (done && b.notifications.length > 0) this.sql.wakeListeners([...new Set(b.notifications.flatMap((n) => n.deliveries.map((d) => d.providerAccount)))]);
    return done;
  }

  async countCampaignQueued(campaignId: string): Promise<number> {
    const [r] = await this.sql.q('campaign_queued_count', [campaignId]);
    return Number(r?.n ?? 0);
  }

  async campaignDeliveryCounts(campaignId: string): Promise<CampaignDeliveryCount[]> {
    return (await this.sql.q('campaign_delivery_counts', [campaignId])).map(toCampaignDeliveryCount);
  }

  async campaignDeliveryCountsMany(campaignIds: readonly string[]): Promise<CampaignGroupCount[]> {
    if (campaignIds.length === 0) return [];
    return (await this.sql.q('campaign_delivery_counts_many', [[...campaignIds]])).map(toCampaignGroupCount);
  }

  async listCampaignRefusals(campaignId: string, afterPosition: number, limit: number): Promise<CampaignRefusal[]> {
    return (await this.sql.q('campaign_refusals_after', [campaignId, afterPosition, Math.max(0, limit)])).map(toCampaignRefusal);
  }

  async campaignRefusalCounts(campaignId: string): Promise<CampaignRefusalCount[]> {
    return (await this.sql.q('campaign_refusal_counts', [campaignId])).map((r) => ({ code: String(r.code), count: Number(r.n) }));
  }

  async listCampaignPending(campaignId: string, limit: number): Promise<DeliveryFacts[]> {
    return (await this.sql.q('campaign_pending', [campaignId, Math.max(0, limit)])).map(toDeliveryFacts);
  }

  async finishCampaign(r: CampaignFinishRequest): Promise<CampaignFinish | null> {
    const [row] = await this.sql.q('campaign_finish', [r.id, r.now]);
    if (!row) return null;
    return row.status === 'completed' ? 'complete' : 'cancel';
  }
}
