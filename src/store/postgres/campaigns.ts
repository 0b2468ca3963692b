/**
 * The PostgreSQL driver's campaign tables (see src/store/campaign-store.ts). Fan-out batches
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
import { toDeliveryFacts } from '../rows.js';
import type { DeliveryFacts, RecipientInput } from '../store.js';
import { createManyParams, type Client, type PostgresStore } from './postgres-store.js';

/** Campaign methods of the PostgreSQL store, over its pool and named statements. */
export class PostgresCampaigns {
  constructor(private readonly s: PostgresStore) {}

  async putRecipient(r: { tenantId: string; recipient: RecipientInput; now: number }): Promise<{ created: boolean; profile: RecipientProfile }> {
    const p = r.recipient;
    const [row] = await this.s.q('recipient_upsert', [r.tenantId, p.id, p.email ?? null, p.phone ?? null, p.push_token ?? null, p.locale ?? null, r.now]);
    return { created: row!.inserted === true, profile: toRecipientProfile(row!) };
  }

  async getRecipients(tenantId: string, ids: readonly string[]): Promise<RecipientProfile[]> {
    if (ids.length === 0) return [];
    return (await this.s.q('recipients_get_many', [tenantId, ids])).map(toRecipientProfile);
  }

  async createAudience(a: { id: string; tenantId: string; source: AudienceSource; now: number }): Promise<void> {
    await this.s.q('audience_insert', [a.id, a.tenantId, a.source, a.now]);
  }

  async appendAudienceRows(audienceId: string, rows: readonly AudienceRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const col = <T>(f: (r: AudienceRow) => T) => rows.map(f);
    const written = await this.s.q('audience_rows_insert', [
      audienceId,
      col((r) => r.position),
      col((r) => r.line),
      col((r) => r.recipient.id),
      col((r) => r.recipient.email ?? null),
      col((r) => r.recipient.phone ?? null),
      col((r) => r.recipient.push_token ?? null),
      col((r) => r.recipient.locale ?? null),
    ]);
    return written.length;
  }

  async sealAudience(r: { audienceId: string; duplicates: number; now: number }): Promise<AudienceView> {
    const [row] = await this.s.q('audience_seal', [r.audienceId, r.duplicates, r.now]);
    if (!row) throw new Error(`audience ${r.audienceId} is not loading`);
    return toAudienceView(row);
  }

  async deleteAudience(audienceId: string): Promise<void> {
    await this.s.q('audience_delete', [audienceId]);
  }

  async pruneLoadingAudiences(before: number): Promise<number> {
    const ids = (await this.s.q('audiences_loading_before', [before])).map((r) => String(r.id));
    for (const id of ids) await this.deleteAudience(id);
    return ids.length;
  }

  async getAudience(tenantId: string, id: string): Promise<AudienceView | null> {
    const [r] = await this.s.q('audience_get', [tenantId, id]);
    return r ? toAudienceView(r) : null;
  }

  async readAudienceRows(audienceId: string, afterPosition: number, limit: number): Promise<AudienceRow[]> {
    return (await this.s.q('audience_rows_after', [audienceId, afterPosition, Math.max(0, limit)])).map(toAudienceRow);
  }

  async audienceLinesWithout(audienceId: string, channel: Channel, limit: number): Promise<number[]> {
    return (await this.s.q('audience_lines_without', [audienceId, ADDRESS_COLUMN[channel], Math.max(0, limit)])).map((r) => Number(r.line));
  }

  async createCampaign(c: NewCampaign): Promise<void> {
    await this.s.q('campaign_insert', [
      c.id,
      c.tenantId,
      c.name,
      c.status,
      c.channel,
      c.purpose,
      c.providerAccount,
      c.lane,
      JSON.stringify(c.content),
      c.metadata === null ? null : JSON.stringify(c.metadata),
      c.ttlMs,
      c.audienceId,
      c.audienceSize,
      c.deadlineAt,
      JSON.stringify(c.plan),
      c.createdAt,
      c.startedAt,
    ]);
  }

  async getCampaign(tenantId: string, id: string): Promise<CampaignRecord | null> {
    const [r] = await this.s.q('campaign_get', [tenantId, id]);
    return r ? toCampaignRecord(r) : null;
  }

  private async transition(
    r: { tenantId: string; id: string; action: keyof typeof CAMPAIGN_TRANSITIONS; now: number; plan?: unknown },
    c?: Client,
  ): Promise<boolean> {
    const t = CAMPAIGN_TRANSITIONS[r.action];
    const params = [r.tenantId, r.id, t.from, t.to, r.now, r.plan === undefined ? null : JSON.stringify(r.plan)];
    return (await this.s.q('campaign_transition', params, c)).length === 1;
  }

  transitionCampaign(r: { tenantId: string; id: string; action: 'start' | 'cancel'; now: number; plan?: unknown }): Promise<boolean> {
    return this.transition(r);
  }

  pauseCampaign(r: { tenantId: string; id: string; now: number; holdUntil: number }): Promise<boolean> {
    return this.s.tx(async (c) => {
      if (!(await this.transition({ ...r, action: 'pause' }, c))) return false;
      await this.s.q('campaign_hold_deliveries', [r.id, r.holdUntil], c);
      return true;
    });
  }

  resumeCampaign(r: { tenantId: string; id: string; now: number }): Promise<boolean> {
    return this.s.tx(async (c) => {
      if (!(await this.transition({ ...r, action: 'resume' }, c))) return false;
      await this.s.q('campaign_release_deliveries', [r.id, r.now], c);
      return true;
    });
  }

  async holdPausedDeliveries(r: { holdUntil: number }): Promise<number> {
    return (await this.s.q('campaign_hold_paused', [r.holdUntil])).length;
  }

  async listActiveCampaigns(limit: number): Promise<CampaignRecord[]> {
    return (await this.s.q('campaigns_active', [Math.max(0, limit)])).map(toCampaignRecord);
  }

  async fanOutBatch(b: FanOutBatch): Promise<boolean> {
    const done = await this.s.tx(async (c) => {
      const moved = await this.s.q('campaign_advance', [b.campaignId, b.expectPosition, b.toPosition, b.notifications.length, b.skipped, b.now], c);
      if (moved.length === 0) return false;
      // Intake's own group-commit statement: the whole batch in one round trip (no idempotency keys).
      if (b.notifications.length > 0) await this.s.q('notification_create_many', createManyParams(b.notifications.map((n) => ({ n }))), c);
      await this.s.q('campaign_link_deliveries', [b.campaignId, b.notifications.map((n) => n.id)], c);
      return true;
    });
    if (done && b.notifications.length > 0) this.s.wakeListeners([...new Set(b.notifications.flatMap((n) => n.deliveries.map((d) => d.providerAccount)))]);
    return done;
  }

  async countCampaignQueued(campaignId: string): Promise<number> {
    const [r] = await this.s.q('campaign_queued_count', [campaignId]);
    return Number(r?.n ?? 0);
  }

  async campaignDeliveryCounts(campaignId: string): Promise<CampaignDeliveryCount[]> {
    return (await this.s.q('campaign_delivery_counts', [campaignId])).map(toCampaignDeliveryCount);
  }

  async listCampaignPending(campaignId: string, limit: number): Promise<DeliveryFacts[]> {
    return (await this.s.q('campaign_pending', [campaignId, Math.max(0, limit)])).map(toDeliveryFacts);
  }

  async finishCampaign(r: { id: string; now: number }): Promise<'complete' | 'cancel' | null> {
    const [row] = await this.s.q('campaign_finish', [r.id, r.now]);
    if (!row) return null;
    return row.status === 'completed' ? 'complete' : 'cancel';
  }
}
