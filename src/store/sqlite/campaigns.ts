/**
 * The SQLite driver's campaign tables (see src/store/campaign-store.ts). Each method runs one
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
  toCampaignRecord,
  toRecipientProfile,
} from '../campaign-rows.js';
import type {
  AudienceRow,
  AudienceSource,
  AudienceView,
  CampaignDeliveryCount,
  CampaignRecord,
  FanOutBatch,
  NewCampaign,
  RecipientProfile,
} from '../campaign-store.js';
import { toDeliveryFacts, type Row } from '../rows.js';
import type { DeliveryFacts, RecipientInput } from '../store.js';
import type { SqliteStore } from './sqlite-store.js';

/** Campaign methods of the SQLite store, over its connection and named statements. */
export class SqliteCampaigns {
  constructor(private readonly s: SqliteStore) {}

  putRecipient(r: { tenantId: string; recipient: RecipientInput; now: number }): { created: boolean; profile: RecipientProfile } {
    const p = r.recipient;
    const tx = this.s.db.transaction(() => {
      const existed = this.getRecipients(r.tenantId, [p.id]).length === 1;
      const row = this.s.stmt('recipient_upsert').get({
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
    return tx.immediate();
  }

  getRecipients(tenantId: string, ids: readonly string[]): RecipientProfile[] {
    if (ids.length === 0) return [];
    return (this.s.stmt('recipients_get_many').all({ tenant_id: tenantId, ids_json: JSON.stringify(ids) }) as Row[]).map(toRecipientProfile);
  }

  createAudience(a: { id: string; tenantId: string; source: AudienceSource; now: number }): void {
    this.s.stmt('audience_insert').run({ id: a.id, tenant_id: a.tenantId, source: a.source, now: a.now });
  }

  appendAudienceRows(audienceId: string, rows: readonly AudienceRow[]): number {
    const insert = this.s.stmt('audience_row_insert');
    const tx = this.s.db.transaction(() => {
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
        }).changes;
      }
      return written;
    });
    return tx.immediate();
  }

  sealAudience(r: { audienceId: string; duplicates: number; now: number }): AudienceView {
    const seal = () => this.s.stmt('audience_seal').get({ id: r.audienceId, duplicates: r.duplicates, now: r.now }) as Row | undefined;
    const row = this.s.db.transaction(seal).immediate();
    if (!row) throw new Error(`audience ${r.audienceId} is not loading`);
    return toAudienceView(row);
  }

  deleteAudience(audienceId: string): void {
    this.s.db.transaction(() => this.s.stmt('audience_delete').run({ id: audienceId })).immediate();
  }

  pruneLoadingAudiences(before: number): number {
    const ids = (this.s.stmt('audiences_loading_before').all({ before }) as Row[]).map((r) => String(r.id));
    for (const id of ids) this.deleteAudience(id);
    return ids.length;
  }

  getAudience(tenantId: string, id: string): AudienceView | null {
    const r = this.s.stmt('audience_get').get({ tenant_id: tenantId, id }) as Row | undefined;
    return r ? toAudienceView(r) : null;
  }

  readAudienceRows(audienceId: string, afterPosition: number, limit: number): AudienceRow[] {
    return (this.s.stmt('audience_rows_after').all({ audience_id: audienceId, after: afterPosition, limit: Math.max(0, limit) }) as Row[]).map(toAudienceRow);
  }

  audienceLinesWithout(audienceId: string, channel: Channel, limit: number): number[] {
    const rows = this.s.stmt('audience_lines_without').all({ audience_id: audienceId, column: ADDRESS_COLUMN[channel], limit: Math.max(0, limit) }) as Row[];
    return rows.map((r) => Number(r.line));
  }

  createCampaign(c: NewCampaign): void {
    this.s.stmt('campaign_insert').run({
      id: c.id,
      tenant_id: c.tenantId,
      name: c.name,
      status: c.status,
      channel: c.channel,
      purpose: c.purpose,
      provider_account: c.providerAccount,
      lane: c.lane,
      content_json: JSON.stringify(c.content),
      metadata_json: c.metadata === null ? null : JSON.stringify(c.metadata),
      ttl_ms: c.ttlMs,
      audience_id: c.audienceId,
      audience_size: c.audienceSize,
      deadline_at: c.deadlineAt,
      plan_json: JSON.stringify(c.plan),
      now: c.createdAt,
      started_at: c.startedAt,
    });
  }

  getCampaign(tenantId: string, id: string): CampaignRecord | null {
    const r = this.s.stmt('campaign_get').get({ tenant_id: tenantId, id }) as Row | undefined;
    return r ? toCampaignRecord(r) : null;
  }

  private transition(r: { tenantId: string; id: string; action: keyof typeof CAMPAIGN_TRANSITIONS; now: number; plan?: unknown }): boolean {
    const t = CAMPAIGN_TRANSITIONS[r.action];
    const row = this.s.stmt('campaign_transition').get({
      tenant_id: r.tenantId,
      id: r.id,
      from_json: JSON.stringify(t.from),
      to: t.to,
      now: r.now,
      plan_json: r.plan === undefined ? null : JSON.stringify(r.plan),
    });
    return row !== undefined;
  }

  transitionCampaign(r: { tenantId: string; id: string; action: 'start' | 'cancel'; now: number; plan?: unknown }): boolean {
    return this.s.db.transaction(() => this.transition(r)).immediate();
  }

  pauseCampaign(r: { tenantId: string; id: string; now: number; holdUntil: number }): boolean {
    const tx = this.s.db.transaction((): boolean => {
      if (!this.transition({ ...r, action: 'pause' })) return false;
      this.s.stmt('campaign_hold_deliveries').run({ campaign_id: r.id, hold_until: r.holdUntil });
      return true;
    });
    return tx.immediate();
  }

  resumeCampaign(r: { tenantId: string; id: string; now: number }): boolean {
    const tx = this.s.db.transaction((): boolean => {
      if (!this.transition({ ...r, action: 'resume' })) return false;
      this.s.stmt('campaign_release_deliveries').run({ campaign_id: r.id, now: r.now });
      return true;
    });
    return tx.immediate();
  }

  holdPausedDeliveries(r: { holdUntil: number }): number {
    return this.s.db.transaction(() => this.s.stmt('campaign_hold_paused').run({ hold_until: r.holdUntil }).changes).immediate();
  }

  listActiveCampaigns(limit: number): CampaignRecord[] {
    return (this.s.stmt('campaigns_active').all({ limit: Math.max(0, limit) }) as Row[]).map(toCampaignRecord);
  }

  fanOutBatch(b: FanOutBatch): boolean {
    const tx = this.s.db.transaction((): boolean => {
      const moved = this.s.stmt('campaign_advance').get({
        id: b.campaignId,
        expect_position: b.expectPosition,
        to_position: b.toPosition,
        fanned_out: b.notifications.length,
        skipped: b.skipped,
        now: b.now,
      });
      if (moved === undefined) return false;
      const link = this.s.stmt('campaign_link_deliveries');
      for (const n of b.notifications) {
        this.s.insertNotification(n, undefined);
        link.run({ campaign_id: b.campaignId, notification_id: n.id });
      }
      return true;
    });
    return tx.immediate();
  }

  countCampaignQueued(campaignId: string): number {
    return Number((this.s.stmt('campaign_queued_count').get({ campaign_id: campaignId }) as Row).n);
  }

  campaignDeliveryCounts(campaignId: string): CampaignDeliveryCount[] {
    return (this.s.stmt('campaign_delivery_counts').all({ campaign_id: campaignId }) as Row[]).map(toCampaignDeliveryCount);
  }

  listCampaignPending(campaignId: string, limit: number): DeliveryFacts[] {
    return (this.s.stmt('campaign_pending').all({ campaign_id: campaignId, limit: Math.max(0, limit) }) as Row[]).map(toDeliveryFacts);
  }

  finishCampaign(r: { id: string; now: number }): 'complete' | 'cancel' | null {
    const row = this.s.db.transaction(() => this.s.stmt('campaign_finish').get({ id: r.id, now: r.now }) as Row | undefined).immediate();
    if (!row) return null;
    return row.status === 'completed' ? 'complete' : 'cancel';
  }
}
