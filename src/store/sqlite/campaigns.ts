/**
 * The SQLite driver's own part of `store.campaigns` (the rest: parts/campaigns.ts), each one
 * synchronous transaction. Fan-out batches go through the driver's own intake insert
 * (`insertNotification`), so a campaign's notifications are exactly what POST /v1/notifications
 * would have written. Dialect-specific: these write one row per statement where PostgreSQL writes
 * the batch in one statement over arrays, and the recipient upsert reads first to say whether it
 * created (PostgreSQL's upsert returns that).
 */
import { audienceDataBinding, toRecipientProfile } from '../campaign-rows.js';
import type { AudienceRow, FanOutBatch, RecipientPut, RecipientPutResult } from '../campaign-store.js';
import { CampaignsPart } from '../parts/campaigns.js';
import type { Row } from '../rows.js';
import { insertNotification } from './notifications.js';
import type { SqliteContext } from './sql-context.js';

/** `store.campaigns` of the SQLite store. */
export class SqliteCampaigns extends CampaignsPart {
  constructor(private readonly sql: SqliteContext) {
    super(sql);
  }

  async putRecipient(r: RecipientPut): Promise<RecipientPutResult> {
    const p = r.recipient;
    return this.sql.write(() => {
      const existed = this.sql.stmt('recipients_get_many').all({ tenant_id: r.tenantId, ids: JSON.stringify([p.id]) }).length === 1;
      const row = this.sql.stmt('recipient_upsert').get({
        tenant_id: r.tenantId,
        id: p.id,
        email: p.email ?? null,
        phone: p.phone ?? null,
        push_token: p.push_token ?? null,
        locale: p.locale ?? null,
        time_zone: p.time_zone ?? null,
        now: r.now,
      }) as Row;
      return { created: !existed, profile: toRecipientProfile(row) };
    });
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
          time_zone: r.recipient.time_zone ?? null,
        }).changes;
      }
      return written;
    });
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
}
