/**
 * The PostgreSQL driver's own part of `store.webhooks` (the rest: parts/webhooks.ts). The relay
 * takes a transaction-scoped advisory lock first: sequence values are handed out before commit,
 * so two relays running at once could commit their messages' seqs out of order, and a sender
 * could then pass a message that is still invisible. One relay at a time makes seq order the
 * order of publication. Outbox rows themselves are read by `published_at IS NULL`, so a row
 * whose transaction commits after higher ids were published is relayed by a later pass.
 *
 * Dialect-specific: the relay is one statement with data-modifying CTEs, behind a lock SQLite does
 * not need, and an attempt round's results are written in one statement over arrays.
 */
import { WebhooksPart } from '../parts/webhooks.js';
import { type Body, count, one } from '../sql-executor.js';
import type { OutboxRelayed, OutboxRelayRequest, WebhookAttemptRound } from '../webhook-store.js';
import type { PostgresContext } from './sql-context.js';

/** `store.webhooks` of the PostgreSQL store. */
export class PostgresWebhooks extends WebhooksPart {
  constructor(private readonly sql: PostgresContext) {
    super(sql);
  }

  async relayOutbox(r: OutboxRelayRequest): Promise<OutboxRelayed> {
    return this.sql.transaction(function* () {
      yield* one('outbox_relay_lock');
      const row = yield* one('outbox_relay', { now: r.now, limit: Math.max(1, r.limit) });
      return { published: Number(row?.published ?? 0), messages: Number(row?.messages ?? 0) };
    });
  }

  protected *recordMessages(r: WebhookAttemptRound): Body<void> {
    const a = r.attempts;
    yield* count('webhook_messages_record', {
      endpoint_id: r.endpointId,
      now: r.now,
      ids: a.map((x) => x.messageId),
      delivered: a.map((x) => x.delivered),
      statuses: a.map((x) => x.status),
      errors: a.map((x) => x.error),
      next_attempt_ats: a.map((x) => x.nextAttemptAt),
    });
  }
}
