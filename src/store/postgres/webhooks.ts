/**
 * The PostgreSQL driver's customer-webhook part (see src/store/webhook-store.ts). The relay
 * takes a transaction-scoped advisory lock first: sequence values are handed out before commit,
 * so two relays running at once could commit their messages' seqs out of order, and a sender
 * could then pass a message that is still invisible. One relay at a time makes seq order the
 * order of publication. Outbox rows themselves are read by `published_at IS NULL`, so a row
 * whose transaction commits after higher ids were published is relayed by a later pass.
 */
import { toWebhookEndpointView, toWebhookMessage, toWebhookTarget } from '../webhook-rows.js';
import type {
  NewWebhookEndpoint,
  OutboxRelayed,
  OutboxRelayRequest,
  PrunedWebhookHistory,
  WebhookAttemptRound,
  WebhookEndpointClaim,
  WebhookEndpointEnabling,
  WebhookEndpointLease,
  WebhookEndpointView,
  WebhookHeadsQuery,
  WebhookHistoryPruning,
  WebhookMessage,
  WebhookSecretRotation,
  WebhookStore,
  WebhookTarget,
} from '../webhook-store.js';
import type { PostgresContext } from './sql-context.js';

/** `store.webhooks` of the PostgreSQL store, over its pool and named statements. */
export class PostgresWebhooks implements WebhookStore {
  constructor(private readonly sql: PostgresContext) {}

  async createWebhookEndpoint(e: NewWebhookEndpoint): Promise<void> {
    await this.sql.q('webhook_endpoint_insert', [e.id, e.tenantId, e.url, e.description, JSON.stringify(e.eventTypes), e.secret, e.now]);
  }

  listWebhookEndpoints(tenantId: string): Promise<WebhookEndpointView[]> {
    return this.endpoints(tenantId, null);
  }

  async getWebhookEndpoint(tenantId: string, id: string): Promise<WebhookEndpointView | null> {
    return (await this.endpoints(tenantId, id))[0] ?? null;
  }

  /** The tenant's endpoints, or the one named `id`: one statement serves both. */
  private async endpoints(tenantId: string, id: string | null): Promise<WebhookEndpointView[]> {
    return (await this.sql.q('webhook_endpoints_list', [tenantId, id])).map(toWebhookEndpointView);
  }

  async deleteWebhookEndpoint(tenantId: string, id: string): Promise<boolean> {
    return (await this.sql.q('webhook_endpoint_delete', [tenantId, id])).length === 1;
  }

  async rotateWebhookSecret(r: WebhookSecretRotation): Promise<boolean> {
    return (await this.sql.q('webhook_endpoint_rotate', [r.tenantId, r.id, r.secret, r.previousUntil, r.now])).length === 1;
  }

  async enableWebhookEndpoint(r: WebhookEndpointEnabling): Promise<boolean> {
    return this.sql.tx(async (c) => {
      if ((await this.sql.q('webhook_endpoint_enable', [r.tenantId, r.id, r.now], c)).length !== 1) return false;
      await this.sql.q('webhook_messages_due_now', [r.id, r.now], c);
      return true;
    });
  }

  async relayOutbox(r: OutboxRelayRequest): Promise<OutboxRelayed> {
    return this.sql.tx(async (c) => {
      await this.sql.q('outbox_relay_lock', [], c);
      const [row] = await this.sql.q('outbox_relay', [r.now, Math.max(1, r.limit)], c);
      return { published: Number(row?.published ?? 0), messages: Number(row?.messages ?? 0) };
    });
  }

  async pruneWebhookHistory(r: WebhookHistoryPruning): Promise<PrunedWebhookHistory> {
    const limit = Math.max(1, r.limit);
    const [outbox] = await this.sql.q('outbox_prune', [r.outboxBefore, limit]);
    const [messages] = await this.sql.q('webhook_messages_prune', [r.messagesBefore, limit]);
    return { outbox: Number(outbox?.n ?? 0), messages: Number(messages?.n ?? 0) };
  }

  async claimWebhookEndpoints(r: WebhookEndpointClaim): Promise<WebhookTarget[]> {
    if (r.limit <= 0) return [];
    return (await this.sql.q('webhook_endpoints_claim', [r.now, r.owner, r.now + r.leaseMs, r.limit])).map(toWebhookTarget);
  }

  async listWebhookHeads(r: WebhookHeadsQuery): Promise<WebhookMessage[]> {
    if (r.limit <= 0) return [];
    return (await this.sql.q('webhook_heads_due', [r.endpointId, r.now, r.limit])).map(toWebhookMessage);
  }

  async recordWebhookAttempts(r: WebhookAttemptRound): Promise<void> {
    await this.sql.tx(async (c) => {
      const a = r.attempts;
      if (a.length > 0) {
        await this.sql.q(
          'webhook_messages_record',
          [
            r.endpointId,
            r.now,
            a.map((x) => x.messageId),
            a.map((x) => x.delivered),
            a.map((x) => x.status),
            a.map((x) => x.error),
            a.map((x) => x.nextAttemptAt),
          ],
          c,
        );
      }
      const e = r.endpoint;
      if (e.kind === 'healthy') await this.sql.q('webhook_endpoint_healthy', [r.endpointId, r.owner, r.now, r.leaseUntil], c);
      else if (e.kind === 'failing') {
        await this.sql.q('webhook_endpoint_failing', [r.endpointId, r.owner, r.now, r.leaseUntil, e.nextAttemptAt, e.status, e.error], c);
      } else {
        await this.sql.q('webhook_endpoint_disable', [r.endpointId, r.now, e.reason, e.status, e.error], c);
      }
    });
  }

  async releaseWebhookEndpoint(r: WebhookEndpointLease): Promise<void> {
    await this.sql.q('webhook_endpoint_release', [r.endpointId, r.owner]);
  }
}
