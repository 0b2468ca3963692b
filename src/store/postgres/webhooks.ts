/**
 * The PostgreSQL driver's customer-webhook tables (see src/store/webhook-store.ts). The relay
 * takes a transaction-scoped advisory lock first: sequence values are handed out before commit,
 * so two relays running at once could commit their messages' seqs out of order, and a sender
 * could then pass a message that is still invisible. One relay at a time makes seq order the
 * order of publication. Outbox rows themselves are read by `published_at IS NULL`, so a row
 * whose transaction commits after higher ids were published is relayed by a later pass.
 */
import {
  toWebhookEndpointView,
  toWebhookMessage,
  toWebhookTarget,
  type NewWebhookEndpoint,
  type WebhookAttemptRecord,
  type WebhookEndpointOutcome,
  type WebhookEndpointView,
  type WebhookMessage,
  type WebhookTarget,
} from '../webhook-store.js';
import type { PostgresStore } from './postgres-store.js';

/** Webhook methods of the PostgreSQL store, over its pool and named statements. */
export class PostgresWebhooks {
  constructor(private readonly s: PostgresStore) {}

  async createEndpoint(e: NewWebhookEndpoint): Promise<void> {
    await this.s.q('webhook_endpoint_insert', [e.id, e.tenantId, e.url, e.description, JSON.stringify(e.eventTypes), e.secret, e.now]);
  }

  async listEndpoints(tenantId: string, id: string | null = null): Promise<WebhookEndpointView[]> {
    return (await this.s.q('webhook_endpoints_list', [tenantId, id])).map(toWebhookEndpointView);
  }

  async deleteEndpoint(tenantId: string, id: string): Promise<boolean> {
    return (await this.s.q('webhook_endpoint_delete', [tenantId, id])).length === 1;
  }

  async rotateSecret(r: { tenantId: string; id: string; secret: string; previousUntil: number; now: number }): Promise<boolean> {
    return (await this.s.q('webhook_endpoint_rotate', [r.tenantId, r.id, r.secret, r.previousUntil, r.now])).length === 1;
  }

  async enableEndpoint(r: { tenantId: string; id: string; now: number }): Promise<boolean> {
    return this.s.tx(async (c) => {
      if ((await this.s.q('webhook_endpoint_enable', [r.tenantId, r.id, r.now], c)).length !== 1) return false;
      await this.s.q('webhook_messages_due_now', [r.id, r.now], c);
      return true;
    });
  }

  async relayOutbox(r: { now: number; limit: number }): Promise<{ published: number; messages: number }> {
    return this.s.tx(async (c) => {
      await this.s.q('outbox_relay_lock', [], c);
      const [row] = await this.s.q('outbox_relay', [r.now, Math.max(1, r.limit)], c);
      return { published: Number(row?.published ?? 0), messages: Number(row?.messages ?? 0) };
    });
  }

  async pruneHistory(r: { outboxBefore: number; messagesBefore: number; limit: number }): Promise<{ outbox: number; messages: number }> {
    const limit = Math.max(1, r.limit);
    const [outbox] = await this.s.q('outbox_prune', [r.outboxBefore, limit]);
    const [messages] = await this.s.q('webhook_messages_prune', [r.messagesBefore, limit]);
    return { outbox: Number(outbox?.n ?? 0), messages: Number(messages?.n ?? 0) };
  }

  async claimEndpoints(r: { now: number; owner: string; leaseMs: number; limit: number }): Promise<WebhookTarget[]> {
    if (r.limit <= 0) return [];
    return (await this.s.q('webhook_endpoints_claim', [r.now, r.owner, r.now + r.leaseMs, r.limit])).map(toWebhookTarget);
  }

  async listHeads(r: { endpointId: string; now: number; limit: number }): Promise<WebhookMessage[]> {
    if (r.limit <= 0) return [];
    return (await this.s.q('webhook_heads_due', [r.endpointId, r.now, r.limit])).map(toWebhookMessage);
  }

  async recordAttempts(r: {
    endpointId: string;
    owner: string;
    now: number;
    leaseUntil: number;
    attempts: WebhookAttemptRecord[];
    endpoint: WebhookEndpointOutcome;
  }): Promise<void> {
    await this.s.tx(async (c) => {
      const a = r.attempts;
      if (a.length > 0) {
        await this.s.q(
          'webhook_messages_record',
          [r.endpointId, r.now, a.map((x) => x.messageId), a.map((x) => x.delivered), a.map((x) => x.status), a.map((x) => x.error), a.map((x) => x.nextAttemptAt)],
          c,
        );
      }
      const e = r.endpoint;
      if (e.kind === 'healthy') await this.s.q('webhook_endpoint_healthy', [r.endpointId, r.owner, r.now, r.leaseUntil], c);
      else if (e.kind === 'failing') {
        await this.s.q('webhook_endpoint_failing', [r.endpointId, r.owner, r.now, r.leaseUntil, e.nextAttemptAt, e.status, e.error], c);
      } else {
        await this.s.q('webhook_endpoint_disable', [r.endpointId, r.now, e.reason, e.status, e.error], c);
      }
    });
  }

  async releaseEndpoint(r: { endpointId: string; owner: string }): Promise<void> {
    await this.s.q('webhook_endpoint_release', [r.endpointId, r.owner]);
  }
}
