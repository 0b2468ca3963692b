/**
 * `store.campaigns`, written once for both drivers (see ../campaign-store.ts), but for the three
 * batch writes (a recipient upsert that says whether it created, audience rows, a fan-out batch),
 * which are the drivers' own (sqlite/campaigns.ts, postgres/campaigns.ts).
 */
import { CAMPAIGN_TRANSITIONS } from '../../domain/campaign-status.js';
import type { Channel } from '../../domain/index.js';
import {
  ADDRESS_COLUMN,
  audienceDataBinding,
  toAudienceRow,
  toAudienceView,
  toCampaignDeliveryCount,
  toCampaignGroupCount,
  toCampaignRecord,
  toCampaignRefusal,
  toRecipientProfile,
} from '../campaign-rows.js';
import type {
  AudienceRow,
  AudienceSeal,
  AudienceView,
  AudienceZoneCount,
  CampaignActionRequest,
  CampaignDeliveryCount,
  CampaignFinish,
  CampaignFinishRequest,
  CampaignGroupCount,
  CampaignListQuery,
  CampaignPage,
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
import { bindTo, openContent } from '../content-cipher.js';
import type { DeliveryFacts } from '../core-store.js';
import { strOrNull, toDeliveryFacts } from '../rows.js';
import { type Body, type Executor, count, list, one } from '../sql-executor.js';

/** The guarded status update CAMPAIGN_TRANSITIONS allows for `action`; true when it applied. */
function* transition(r: CampaignRef & { action: keyof typeof CAMPAIGN_TRANSITIONS; plan?: unknown }): Body<boolean> {
  const t = CAMPAIGN_TRANSITIONS[r.action];
  const row = yield* one('campaign_transition', {
    tenant_id: r.tenantId,
    id: r.id,
    from_statuses: list(t.from),
    to: t.to,
    now: r.now,
    plan_json: r.plan === undefined ? null : JSON.stringify(r.plan),
  });
  return row !== undefined;
}

/** Recipient profiles, audiences and campaigns. */
export abstract class CampaignsPart implements CampaignStore {
  constructor(protected readonly x: Executor) {}

  abstract putRecipient(r: RecipientPut): Promise<RecipientPutResult>;

  abstract appendAudienceRows(audienceId: string, rows: readonly AudienceRow[]): Promise<number>;

  abstract fanOutBatch(b: FanOutBatch): Promise<boolean>;

  async getRecipients(tenantId: string, ids: readonly string[]): Promise<RecipientProfile[]> {
    if (ids.length === 0) return [];
    return (await this.x.all('recipients_get_many', { tenant_id: tenantId, ids: list(ids) })).map(toRecipientProfile);
  }

  async createAudience(a: NewAudience): Promise<void> {
    await this.x.count('audience_insert', { id: a.id, tenant_id: a.tenantId, source: a.source, now: a.now });
  }

  async sealAudience(r: AudienceSeal): Promise<AudienceView> {
    const row = await this.x.one('audience_seal', { id: r.audienceId, duplicates: r.duplicates, now: r.now });
    if (!row) throw new Error(`audience ${r.audienceId} is not loading`);
    return toAudienceView(row);
  }

  async deleteAudience(audienceId: string): Promise<void> {
    await this.x.count('audience_delete', { id: audienceId });
  }

  async pruneLoadingAudiences(before: number): Promise<number> {
    const ids = (await this.x.all('audiences_loading_before', { before })).map((r) => String(r.id));
    for (const id of ids) await this.deleteAudience(id);
    return ids.length;
  }

  async getAudience(tenantId: string, id: string): Promise<AudienceView | null> {
    const r = await this.x.one('audience_get', { tenant_id: tenantId, id });
    return r ? toAudienceView(r) : null;
  }

  async readAudienceRows(audienceId: string, afterPosition: number, limit: number): Promise<AudienceRow[]> {
    const rows = await this.x.all('audience_rows_after', { audience_id: audienceId, after: afterPosition, limit: Math.max(0, limit) });
    return rows.map((r) =>
      toAudienceRow(
        r,
        r.data_json === null ? null : openContent<Record<string, unknown>>(this.x.cipher, r.data_json, audienceDataBinding(audienceId, Number(r.position))),
      ),
    );
  }

  async audienceZoneCounts(audienceId: string): Promise<AudienceZoneCount[]> {
    const rows = await this.x.all('audience_zone_counts', { audience_id: audienceId });
    return rows.map((r) => ({ timeZone: strOrNull(r.time_zone), recipients: Number(r.recipients) }));
  }

  async audienceLinesWithout(audienceId: string, channel: Channel, limit: number): Promise<number[]> {
    const rows = await this.x.all('audience_lines_without', { audience_id: audienceId, column: ADDRESS_COLUMN[channel], limit: Math.max(0, limit) });
    return rows.map((r) => Number(r.line));
  }

  async createCampaign(c: NewCampaign): Promise<void> {
    await this.x.count('campaign_insert', {
      id: c.id,
      tenant_id: c.tenantId,
      name: c.name,
      status: c.status,
      channel: c.channel,
      purpose: c.purpose,
      provider_account: c.providerAccount,
      lane: c.lane,
      content_json: this.x.sealContent(c.content, bindTo('campaigns', 'content_json', c.id)),
      metadata_json: c.metadata === null ? null : JSON.stringify(c.metadata),
      ttl_ms: c.ttlMs,
      audience_id: c.audienceId,
      audience_size: c.audienceSize,
      deadline_at: c.deadlineAt,
      plan_json: JSON.stringify(c.plan),
      now: c.createdAt,
      started_at: c.startedAt,
      template_id: c.template?.id ?? null,
      template_version: c.template?.version ?? null,
      send_at: c.sendAt,
    });
  }

  async getCampaign(tenantId: string, id: string): Promise<CampaignRecord | null> {
    const r = await this.x.one('campaign_get', { tenant_id: tenantId, id });
    return r ? toCampaignRecord(this.x.openRow(r, 'campaigns')) : null;
  }

  transitionCampaign(r: CampaignActionRequest): Promise<boolean> {
    return this.x.run(() => transition(r));
  }

  pauseCampaign(r: CampaignPause): Promise<boolean> {
    return this.x.transaction(function* () {
      if (!(yield* transition({ ...r, action: 'pause' }))) return false;
      yield* count('campaign_hold_deliveries', { campaign_id: r.id, hold_until: r.holdUntil });
      return true;
    });
  }

  resumeCampaign(r: CampaignRef): Promise<boolean> {
    return this.x.transaction(function* () {
      if (!(yield* transition({ ...r, action: 'resume' }))) return false;
      yield* count('campaign_release_deliveries', { campaign_id: r.id, now: r.now });
      return true;
    });
  }

  holdPausedDeliveries(r: DeliveryHold): Promise<number> {
    return this.x.count('campaign_hold_paused', { hold_until: r.holdUntil });
  }

  async listCampaigns(q: CampaignListQuery): Promise<CampaignPage> {
    const limit = Math.max(1, q.limit);
    const rows = await this.x.all('campaigns_list', { tenant_id: q.tenantId, status: q.status ?? null, after: q.after, limit: limit + 1 });
    const items = rows.slice(0, limit).map((r) => toCampaignRecord(this.x.openRow(r, 'campaigns')));
    return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.id : null };
  }

  async listActiveCampaigns(limit: number): Promise<CampaignRecord[]> {
    return (await this.x.all('campaigns_active', { limit: Math.max(0, limit) })).map((r) => toCampaignRecord(this.x.openRow(r, 'campaigns')));
  }

  async countCampaignQueued(campaignId: string): Promise<number> {
    return Number((await this.x.one('campaign_queued_count', { campaign_id: campaignId }))?.n ?? 0);
  }

  async campaignDeliveryCounts(campaignId: string): Promise<CampaignDeliveryCount[]> {
    return (await this.x.all('campaign_delivery_counts', { campaign_id: campaignId })).map(toCampaignDeliveryCount);
  }

  async campaignDeliveryCountsMany(campaignIds: readonly string[]): Promise<CampaignGroupCount[]> {
    if (campaignIds.length === 0) return [];
    return (await this.x.all('campaign_delivery_counts_many', { campaign_ids: list(campaignIds) })).map(toCampaignGroupCount);
  }

  async listCampaignRefusals(campaignId: string, afterPosition: number, limit: number): Promise<CampaignRefusal[]> {
    return (await this.x.all('campaign_refusals_after', { campaign_id: campaignId, after: afterPosition, limit: Math.max(0, limit) })).map(toCampaignRefusal);
  }

  async campaignRefusalCounts(campaignId: string): Promise<CampaignRefusalCount[]> {
    return (await this.x.all('campaign_refusal_counts', { campaign_id: campaignId })).map((r) => ({ code: String(r.code), count: Number(r.n) }));
  }

  async listCampaignPending(campaignId: string, limit: number): Promise<DeliveryFacts[]> {
    return (await this.x.all('campaign_pending', { campaign_id: campaignId, limit: Math.max(0, limit) })).map(toDeliveryFacts);
  }

  async finishCampaign(r: CampaignFinishRequest): Promise<CampaignFinish | null> {
    const row = await this.x.one('campaign_finish', { id: r.id, now: r.now });
    if (!row) return null;
    return row.status === 'completed' ? 'complete' : 'cancel';
  }
}
