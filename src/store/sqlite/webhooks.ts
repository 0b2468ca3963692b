/**
 * The SQLite driver's own part of `store.webhooks` (the rest: parts/webhooks.ts). SQLite has one
 * writer at a time, so relays cannot interleave and outbox rowids follow commit order; the relay
 * still reads by `published_at IS NULL` so that a row written with a lower id after a higher one
 * was published is not skipped either.
 *
 * Dialect-specific: SQLite has no data-modifying CTEs, so the relay is three statements in one
 * transaction (PostgreSQL: one, after an advisory lock), and an attempt round's results are
 * written one message per statement (PostgreSQL: one statement over arrays).
 */
import { WebhooksPart } from '../parts/webhooks.js';
import { type Body, count, one } from '../sql-executor.js';
import type { OutboxRelayed, OutboxRelayRequest, WebhookAttemptRound } from '../webhook-store.js';
import type { SqliteContext } from './sql-context.js';

/** `store.webhooks` of the SQLite store. */
export class SqliteWebhooks extends WebhooksPart {
  constructor(private readonly sql: SqliteContext) {
    super(sql);
  }

  async relayOutbox(r: OutboxRelayRequest): Promise<OutboxRelayed> {
    return this.sql.transaction(function* () {
      const bounds = (yield* one('outbox_relay_bounds', { limit: Math.max(1, r.limit) }))!;
      if (Number(bounds.n) === 0) return { published: 0, messages: 0 };
      const messages = yield* count('outbox_relay', { last_id: bounds.last_id, now: r.now });
      const published = yield* count('outbox_mark_published', { last_id: bounds.last_id, now: r.now });
      return { published, messages };
    });
  }

  protected *recordMessages(r: WebhookAttemptRound): Body<void> {
    for (const a of r.attempts) {
      yield* count('webhook_messages_record', {
        endpoint_id: r.endpointId,
        id: a.messageId,
        now: r.now,
        delivered: a.delivered,
        status: a.status,
        error: a.error,
        next_attempt_at: a.nextAttemptAt,
      });
    }
  }
}
