/**
 * The SQLite driver's campaign part (see src/store/campaign-store.ts). Each method runs one
 * synchronous transaction, like the rest of the driver; fan-out batches go through the
 * driver's own intake insert (`insertNotification`), so a campaign's notifications are
 * exactly what POST /v1/notifications would have written.
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
import { toDeliveryFacts, type Row } from '../rows.js';
import { insertNotification } from './notifications.js';
import type { SqliteContext } from './sql-context.js';
import { bindTo, openContent } from '../content-cipher.js';

/** `store.campaigns` of the SQLite store, over its connection and named statements. */
export class SqliteCampaigns implements CampaignStore {
  constructor(private readonly sql: SqliteContext) {}

  async putRecipient(r: RecipientPut): Promise<RecipientPutResult> {
    const p = r.recipient;
    return this.sql.write(() => {
      const existed = this.recipients(r.tenantId, [p.id]).length === 1;
      const row = this.sql.stmt('recipient_upsert').get({
        tenant_id: r.tenantId,
        id: p.id,
        email: p.email ?? null,
        phone: p.phone ?? null,
        push_token: p.push_token ?? null,
        locale: p.locale ?? null,
        now: r.now,
      }) as Row;
      return { created: !existed, profile: toRecipientProfile(row) };
    });
  }

  async getRecipients(tenantId: string, ids: readonly string[]): Promise<RecipientProfile[]> {
    return this.recipients(tenantId, ids);
  }

  private recipients(tenantId: string, ids: readonly string[]): RecipientProfile[] {
    if (ids.length === 0) return [];
    return (this.sql.stmt('recipients_get_many').all({ tenant_id: tenantId, ids_json: JSON.stringify(ids) }) as Row[]).map(toRecipientProfile);
  }

  async createAudience(a: NewAudience): Promise<void> {
    this.sql.stmt('audience_insert').run({ id: a.id, tenant_id: a.tenantId, source: a.source, now: a.now });
  }

  async appendAudienceRows(audienceId: string, rows: readonly AudienceRow[]): Promise<number> {
    const insert = this.sql.stmt('audience_rows_insert');
    return this.sql.write(() => {
      let written = 0;
      for (const r of rows) {
        written += insert.run({
          audience_id: audienceId,
          position: r.position,
          line: r.line,
          recipient_id: r.recipient.id,
          email: r.recipient.email ?? null,
          phone: r.recipient.phone ?? null,
          push_token: r.recipient.push_token ?? null,
          locale: r.recipient.locale ?? null,
          data_json: r.data === undefined ? null : this.sql.sealContent(r.data, audienceDataBinding(audienceId, r.position)),
        }).changes;
      }
      return written;
    });
  }

  async sealAudience(r: AudienceSeal): Promise<AudienceView> {
    const row = this.sql.write(() => this.sql.stmt('audience_seal').get({ id: r.audienceId, duplicates: r.duplicates, now: r.now }) as Row | undefined);
    if (!row) throw new Error(`audience ${r.audienceId} is not loading`);
    return toAudienceView(row);
  }

  async deleteAudience(audienceId: string): Promise<void> {
    this.deleteOne(audienceId);
  }

  private deleteOne(audienceId: string): void {
    this.sql.write(() => this.sql.stmt('audience_delete').run({ id: audienceId }));
  }

  async pruneLoadingAudiences(before: number): Promise<number> {
    const ids = (this.sql.stmt('audiences_loading_before').all({ before }) as Row[]).map((r) => String(r.id));
    for (const id of ids) this.deleteOne(id);
    return ids.length;
  }

  async getAudience(tenantId: string, id: string): Promise<AudienceView | null> {
    const r = this.sql.stmt('audience_get').get({ tenant_id: tenantId, id }) as Row | undefined;
    return r ? toAudienceView(r) : null;
  }

  async readAudienceRows(audienceId: string, afterPosition: number, limit: number): Promise<AudienceRow[]> {
    const rows = this.sql.stmt('audience_rows_after').all({ audience_id: audienceId, after: afterPosition, limit: Math.max(0, limit) }) as Row[];
    return rows.map((r) =>
      toAudienceRow(
        r,
        r.data_json === null ? null : openContent<Record<string, unknown>>(this.sql.cipher, r.data_json, audienceDataBinding(audienceId, Number(r.position))),
      ),
    );
  }

  async audienceLinesWithout(audienceId: string, channel: Channel, limit: number): Promise<number[]> {
    const rows = this.sql.stmt('audience_lines_without').all({ audience_id: audienceId, column: ADDRESS_COLUMN[channel], limit: Math.max(0, limit) }) as Row[];
    return rows.map((r) => Number(r.line));
  }

  async createCampaign(c: NewCampaign): Promise<void> {
    this.sql.stmt('campaign_insert').run({
      id: c.id,
      tenant_id: c.tenantId,
      name: c.name,
      status: c.status,
      channel: c.channel,
      purpose: c.purpose,
      provider_account: c.providerAccount,
      lane: c.lane,
      content_json: this.sql.sealContent(c.content, bindTo('campaigns', 'content_json', c.id)),
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
    });
  }

  async getCampaign(tenantId: string, id: string): Promise<CampaignRecord | null> {
    const r = this.sql.stmt('campaign_get').get({ tenant_id: tenantId, id }) as Row | undefined;
    return r ? toCampaignRecord(this.sql.openRow(r, 'campaigns')) : null;
  }

  /** The guarded status update CAMPAIGN_TRANSITIONS allows for `action`; runs in the caller's transaction. */
  private transition(r: CampaignRef & { action: keyof typeof CAMPAIGN_TRANSITIONS; plan?: unknown }): boolean {
    const t = CAMPAIGN_TRANSITIONS[r.action];
    const row = this.sql.stmt('campaign_transition').get({
      tenant_id: r.tenantId,
      id: r.id,
      from_json: JSON.stringify(t.from),
      to: t.to,
      now: r.now,
      plan_json: r.plan === undefined ? null : JSON.stringify(r.plan),
    });
    return row !== undefined;
  }

  async transitionCampaign(r: CampaignActionRequest): Promise<boolean> {
    return this.sql.write(() => this.transition(r));
  }

  async pauseCampaign(r: CampaignPause): Promise<boolean> {
    return this.sql.write((): boolean => {
      if (!this.transition({ ...r, action: 'pause' })) return false;
      this.sql.stmt('campaign_hold_deliveries').run({ campaign_id: r.id, hold_until: r.holdUntil });
      return true;
    });
  }

  async resumeCampaign(r: CampaignRef): Promise<boolean> {
    return this.sql.write((): boolean => {
      if (!this.transition({ ...r, action: 'resume' })) return false;
      this.sql.stmt('campaign_release_deliveries').run({ campaign_id: r.id, now: r.now });
      return true;
    });
  }

  async holdPausedDeliveries(r: DeliveryHold): Promise<number> {
    return this.sql.write(() => this.sql.stmt('campaign_hold_paused').run({ hold_until: r.holdUntil }).changes);
  }

  async listCampaigns(q: CampaignListQuery): Promise<CampaignPage> {
    const limit = Math.max(1, q.limit);
    const rows = this.sql.stmt('campaigns_list').all({ tenant_id: q.tenantId, status: q.status ?? null, after: q.after, limit: limit + 1 }) as Row[];
    const items = rows.slice(0, limit).map((r) => toCampaignRecord(this.sql.openRow(r, 'campaigns')));
    return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.id : null };
  }

  async listActiveCampaigns(limit: number): Promise<CampaignRecord[]> {
    return (this.sql.stmt('campaigns_active').all({ limit: Math.max(0, limit) }) as Row[]).map((r) => toCampaignRecord(this.sql.openRow(r, 'campaigns')));
  }

  async fanOutBatch(b: FanOutBatch): Promise<boolean> {
    return this.sql.write((): boolean => {
      const moved = this.sql.stmt('campaign_advance').get({
        id: b.campaignId,
        expect_position: b.expectPosition,
        to_position: b.toPosition,
        fanned_out: b.notifications.length,
        skipped: b.refusals.length,
        now: b.now,
      });
      if (moved === undefined) return false;
      const refuse = this.sql.stmt('campaign_refusal_insert');
      for (const r of b.refusals) {
        refuse.run({
          campaign_id: b.campaignId,
          position: r.position,
          line: r.line,
          recipient_id: r.recipientId,
          code: r.code,
          reason: r.reason,
          locale: r.locale,
          now: r.createdAt,
        });
      }
      const link = this.sql.stmt('campaign_link_deliveries');
      for (const n of b.notifications) {
        insertNotification(this.sql, n, undefined);
        link.run({ campaign_id: b.campaignId, notification_id: n.id });
      }
      return true;
    });
  }

  async countCampaignQueued(campaignId: string): Promise<number> {
    return Number((this.sql.stmt('campaign_queued_count').get({ campaign_id: campaignId }) as Row).n);
  }

  async campaignDeliveryCounts(campaignId: string): Promise<CampaignDeliveryCount[]> {
    return (this.sql.stmt('campaign_delivery_counts').all({ campaign_id: campaignId }) as Row[]).map(toCampaignDeliveryCount);
  }

  async campaignDeliveryCountsMany(campaignIds: readonly string[]): Promise<CampaignGroupCount[]> {
    if (campaignIds.length === 0) return [];
    return (this.sql.stmt('campaign_delivery_counts_many').all({ campaign_ids: JSON.stringify(campaignIds) }) as Row[]).map(toCampaignGroupCount);
  }

  async listCampaignRefusals(campaignId: string, afterPosition: number, limit: number): Promise<CampaignRefusal[]> {
    const rows = this.sql.stmt('campaign_refusals_after').all({ campaign_id: campaignId, after: afterPosition, limit: Math.max(0, limit) }) as Row[];
    return rows.map(toCampaignRefusal);
  }

  async campaignRefusalCounts(campaignId: string): Promise<CampaignRefusalCount[]> {
    return (this.sql.stmt('campaign_refusal_counts').all({ campaign_id: campaignId }) as Row[]).map((r) => ({ code: String(r.code), count: Number(r.n) }));
  }

  async listCampaignPending(campaignId: string, limit: number): Promise<DeliveryFacts[]> {
    return (this.sql.stmt('campaign_pending').all({ campaign_id: campaignId, limit: Math.max(0, limit) }) as Row[]).map(toDeliveryFacts);
  }

  async finishCampaign(r: CampaignFinishRequest): Promise<CampaignFinish | null> {
    const row = this.sql.write(() => this.sql.stmt('campaign_finish').get({ id: r.id, now: r.now }) as Row | undefined);
    if (!row) return null;
    return row.status === 'completed' ? 'complete' : 'cancel';
  }
}
