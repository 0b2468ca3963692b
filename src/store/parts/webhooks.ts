/**
 * `store.webhooks`, written once for both drivers (see ../webhook-store.ts). The relay itself
 * and the batch write of attempt results differ by dialect and are the drivers' own
 * (sqlite/webhooks.ts, postgres/webhooks.ts).
 */
import { type Body, type Executor, count } from '../sql-executor.js';
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

/** Customer endpoints, the outbox relay and the sender's bookkeeping. */
export abstract class WebhooksPart implements WebhookStore {
  constructor(protected readonly x: Executor) {}

  /** Fans a batch of outbox rows out to the endpoints that want them, in order (dialect-specific: see the drivers). */
  abstract relayOutbox(r: OutboxRelayRequest): Promise<OutboxRelayed>;

  /** Writes each attempt's result on its message, inside recordWebhookAttempts' transaction. */
  protected abstract recordMessages(r: WebhookAttemptRound): Body<void>;

  async createWebhookEndpoint(e: NewWebhookEndpoint): Promise<void> {
    await this.x.count('webhook_endpoint_insert', {
      id: e.id,
      tenant_id: e.tenantId,
      url: e.url,
      description: e.description,
      event_types_json: JSON.stringify(e.eventTypes),
      secret: e.secret,
      now: e.now,
    });
  }

  listWebhookEndpoints(tenantId: string): Promise<WebhookEndpointView[]> {
    return this.endpoints(tenantId, null);
  }

  async getWebhookEndpoint(tenantId: string, id: string): Promise<WebhookEndpointView | null> {
    return (await this.endpoints(tenantId, id))[0] ?? null;
  }

  /** The tenant's endpoints, or the one named `id`: one statement serves both. */
  private async endpoints(tenantId: string, id: string | null): Promise<WebhookEndpointView[]> {
    return (await this.x.all('webhook_endpoints_list', { tenant_id: tenantId, id })).map(toWebhookEndpointView);
  }

  async deleteWebhookEndpoint(tenantId: string, id: string): Promise<boolean> {
    return (await this.x.count('webhook_endpoint_delete', { tenant_id: tenantId, id })) === 1;
  }

  async rotateWebhookSecret(r: WebhookSecretRotation): Promise<boolean> {
    const params = { tenant_id: r.tenantId, id: r.id, secret: r.secret, previous_until: r.previousUntil, now: r.now };
    return (await this.x.count('webhook_endpoint_rotate', params)) === 1;
  }

  enableWebhookEndpoint(r: WebhookEndpointEnabling): Promise<boolean> {
    return this.x.transaction(function* () {
      if ((yield* count('webhook_endpoint_enable', { tenant_id: r.tenantId, id: r.id, now: r.now })) !== 1) return false;
      yield* count('webhook_messages_due_now', { endpoint_id: r.id, now: r.now });
      return true;
    });
  }

  async pruneWebhookHistory(r: WebhookHistoryPruning): Promise<PrunedWebhookHistory> {
    const limit = Math.max(1, r.limit);
    return {
      outbox: await this.x.count('outbox_prune', { before: r.outboxBefore, limit }),
      messages: await this.x.count('webhook_messages_prune', { before: r.messagesBefore, limit }),
    };
  }

  async claimWebhookEndpoints(r: WebhookEndpointClaim): Promise<WebhookTarget[]> {
    if (r.limit <= 0) return [];
    return (await this.x.all('webhook_endpoints_claim', { now: r.now, owner: r.owner, lease_until: r.now + r.leaseMs, limit: r.limit })).map(toWebhookTarget);
  }

  async listWebhookHeads(r: WebhookHeadsQuery): Promise<WebhookMessage[]> {
    if (r.limit <= 0) return [];
    return (await this.x.all('webhook_heads_due', { endpoint_id: r.endpointId, now: r.now, limit: r.limit })).map(toWebhookMessage);
  }

  async recordWebhookAttempts(r: WebhookAttemptRound): Promise<void> {
    await this.x.transaction(() => this.recordAttemptsBody(r));
  }

  private *recordAttemptsBody(r: WebhookAttemptRound): Body<void> {
    if (r.attempts.length > 0) yield* this.recordMessages(r);
    const e = r.endpoint;
    const lease = { id: r.endpointId, owner: r.owner, now: r.now, lease_until: r.leaseUntil };
    if (e.kind === 'healthy') yield* count('webhook_endpoint_healthy', lease);
    else if (e.kind === 'failing') yield* count('webhook_endpoint_failing', { ...lease, next_attempt_at: e.nextAttemptAt, status: e.status, error: e.error });
    else yield* count('webhook_endpoint_disable', { id: r.endpointId, now: r.now, reason: e.reason, status: e.status, error: e.error });
  }

  async releaseWebhookEndpoint(r: WebhookEndpointLease): Promise<void> {
    await this.x.count('webhook_endpoint_release', { id: r.endpointId, owner: r.owner });
  }
}
