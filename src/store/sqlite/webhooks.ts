/**
 * The SQLite driver's customer-webhook part (see src/store/webhook-store.ts). Each method runs
 * one synchronous transaction. SQLite has one writer at a time, so relays cannot interleave and
 * outbox rowids follow commit order; the relay still reads by `published_at IS NULL` so that a
 * row written with a lower id after a higher one was published is not skipped either.
 */
import type { Row } from '../rows.js';
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
import type { SqliteContext } from './sql-context.js';

/** `store.webhooks` of the SQLite store, over its connection and named statements. */
export class SqliteWebhooks implements WebhookStore {
  constructor(private readonly sql: SqliteContext) {}

  async createWebhookEndpoint(e: NewWebhookEndpoint): Promise<void> {
    this.sql.stmt('webhook_endpoint_insert').run({
      id: e.id,
      tenant_id: e.tenantId,
      url: e.url,
      description: e.description,
      event_types_json: JSON.stringify(e.eventTypes),
      secret: e.secret,
      now: e.now,
    });
  }

  async listWebhookEndpoints(tenantId: string): Promise<WebhookEndpointView[]> {
    return this.endpoints(tenantId, null);
  }

  async getWebhookEndpoint(tenantId: string, id: string): Promise<WebhookEndpointView | null> {
    return this.endpoints(tenantId, id)[0] ?? null;
  }

  /** The tenant's endpoints, or the one named `id`: one statement serves both. */
  private endpoints(tenantId: string, id: string | null): WebhookEndpointView[] {
    return (this.sql.stmt('webhook_endpoints_list').all({ tenant_id: tenantId, id }) as Row[]).map(toWebhookEndpointView);
  }

  async deleteWebhookEndpoint(tenantId: string, id: string): Promise<boolean> {
    return this.sql.stmt('webhook_endpoint_delete').run({ tenant_id: tenantId, id }).changes === 1;
  }

  async rotateWebhookSecret(r: WebhookSecretRotation): Promise<boolean> {
    const params = { tenant_id: r.tenantId, id: r.id, secret: r.secret, previous_until: r.previousUntil, now: r.now };
    return this.sql.stmt('webhook_endpoint_rotate').run(params).changes === 1;
  }

  async enableWebhookEndpoint(r: WebhookEndpointEnabling): Promise<boolean> {
    return this.sql.write((): boolean => {
      if (this.sql.stmt('webhook_endpoint_enable').run({ tenant_id: r.tenantId, id: r.id, now: r.now }).changes !== 1) return false;
      this.sql.stmt('webhook_messages_due_now').run({ endpoint_id: r.id, now: r.now });
      return true;
    });
  }

  async relayOutbox(r: OutboxRelayRequest): Promise<OutboxRelayed> {
    return this.sql.write(() => {
      const bounds = this.sql.stmt('outbox_relay_bounds').get({ limit: Math.max(1, r.limit) }) as Row;
      if (Number(bounds.n) === 0) return { published: 0, messages: 0 };
      const messages = this.sql.stmt('outbox_relay').run({ last_id: bounds.last_id, now: r.now }).changes;
      const published = this.sql.stmt('outbox_mark_published').run({ last_id: bounds.last_id, now: r.now }).changes;
      return { published, messages };
    });
  }

  async pruneWebhookHistory(r: WebhookHistoryPruning): Promise<PrunedWebhookHistory> {
    const limit = Math.max(1, r.limit);
    return {
      outbox: this.sql.stmt('outbox_prune').run({ before: r.outboxBefore, limit }).changes,
      messages: this.sql.stmt('webhook_messages_prune').run({ before: r.messagesBefore, limit }).changes,
    };
  }

  async claimWebhookEndpoints(r: WebhookEndpointClaim): Promise<WebhookTarget[]> {
    const params = { now: r.now, owner: r.owner, lease_until: r.now + r.leaseMs, limit: Math.max(0, r.limit) };
    return this.sql.write(() => this.sql.stmt('webhook_endpoints_claim').all(params) as Row[]).map(toWebhookTarget);
  }

  async listWebhookHeads(r: WebhookHeadsQuery): Promise<WebhookMessage[]> {
    const rows = this.sql.stmt('webhook_heads_due').all({ endpoint_id: r.endpointId, now: r.now, limit: Math.max(0, r.limit) }) as Row[];
    return rows.map(toWebhookMessage);
  }

  async recordWebhookAttempts(r: WebhookAttemptRound): Promise<void> {
    this.sql.write(() => {
      for (const a of r.attempts) {
        this.sql.stmt('webhook_messages_record').run({
          endpoint_id: r.endpointId,
          id: a.messageId,
          now: r.now,
          delivered: a.delivered ? 1 : 0,
          status: a.status,
          error: a.error,
          next_attempt_at: a.nextAttemptAt,
        });
      }
      const e = r.endpoint;
      const lease = { id: r.endpointId, owner: r.owner, now: r.now, lease_until: r.leaseUntil };
      if (e.kind === 'healthy') this.sql.stmt('webhook_endpoint_healthy').run(lease);
      else if (e.kind === 'failing') {
        this.sql.stmt('webhook_endpoint_failing').run({ ...lease, next_attempt_at: e.nextAttemptAt, status: e.status, error: e.error });
      } else {
        this.sql.stmt('webhook_endpoint_disable').run({ id: r.endpointId, now: r.now, reason: e.reason, status: e.status, error: e.error });
      }
    });
  }

  async releaseWebhookEndpoint(r: WebhookEndpointLease): Promise<void> {
    this.sql.stmt('webhook_endpoint_release').run({ id: r.endpointId, owner: r.owner });
  }
}
