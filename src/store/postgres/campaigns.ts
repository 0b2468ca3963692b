/**
 * The PostgreSQL driver's own part of `store.campaigns` (the rest: parts/campaigns.ts). Fan-out
 * batches write their notifications with intake's own group-commit statement
 * (`notification_create_many`, parameters from `createManyParams`) inside one transaction that
 * first moves the campaign's cursor: the row lock that update takes serializes runners and pauses
 * on one campaign. Dialect-specific: each of these writes its batch in one statement over arrays
 * (SQLite: one row per statement), and the recipient upsert says itself whether it created.
 */
import { audienceDataBinding, toRecipientProfile } from '../campaign-rows.js';
import type { AudienceRow, CampaignRefusal, FanOutBatch, RecipientPut, RecipientPutResult } from '../campaign-store.js';
import { CampaignsPart } from '../parts/campaigns.js';
import { createManyParams } from './notifications.js';
import type { PostgresContext } from './sql-context.js';

/** `store.campaigns` of the PostgreSQL store. */
export class PostgresCampaigns extends CampaignsPart {
  constructor(private readonly sql: PostgresContext) {
    super(sql);
  }

  async putRecipient(r: RecipientPut): Promise<RecipientPutResult> {
    const p = r.recipient;
    const [row] = await this.sql.q('recipient_upsert', [
      r.tenantId,
      p.id,
      p.email ?? null,
      p.phone ?? null,
      p.push_token ?? null,
      p.locale ?? null,
      r.now,
      p.time_zone ?? null,
    ]);
    return { created: row!.inserted === true, profile: toRecipientProfile(row!) };
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
      col((r) => r.recipient.time_zone ?? null),
    ]);
    return written.length;
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
}
