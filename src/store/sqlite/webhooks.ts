/**
 * The SQLite driver's customer-webhook tables (see src/store/webhook-store.ts). Each method runs
 * one synchronous transaction. SQLite has one writer at a time, so relays cannot interleave and
 * outbox rowids follow commit order; the relay still reads by `published_at IS NULL` so that a
 * row written with a lower id after a higher one was published is not skipped either.
 */
import type { Row } from '../rows.js';
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
import type { SqliteStore } from './sqlite-store.js';

/** Webhook methods of the SQLite store, over its connection and named statements. */
export class SqliteWebhooks {
  constructor(private readonly s: SqliteStore) {}

  createEndpoint(e: NewWebhookEndpoint): void {
    this.s.stmt('webhook_endpoint_insert').run({
      id: e.id,
      tenant_id: e.tenantId,
      url: e.url,
      description: e.description,
      event_types_json: JSON.stringify(e.eventTypes),
      secret: e.secret,
      now: e.now,
    });
  }

  listEndpoints(tenantId: string, id: string | null = null): WebhookEndpointView[] {
    return (this.s.stmt('webhook_endpoints_list').all({ tenant_id: tenantId, id }) as Row[]).map(toWebhookEndpointView);
  }

  deleteEndpoint(tenantId: string, id: string): boolean {
    return this.s.stmt('webhook_endpoint_delete').run({ tenant_id: tenantId, id }).changes === 1;
  }

  rotateSecret(r: { tenantId: string; id: string; secret: string; previousUntil: number; now: number }): boolean {
    const params = { tenant_id: r.tenantId, id: r.id, secret: r.secret, previous_until: r.previousUntil, now: r.now };
    return this.s.stmt('webhook_endpoint_rotate').run(params).changes === 1;
  }

  enableEndpoint(r: { tenantId: string; id: string; now: number }): boolean {
    const tx = this.s.db.transaction((): boolean => {
      if (this.s.stmt('webhook_endpoint_enable').run({ tenant_id: r.tenantId, id: r.id, now: r.now }).changes !== 1) return false;
      this.s.stmt('webhook_messages_due_now').run({ endpoint_id: r.id, now: r.now });
      return true;
    });
    return tx.immediate();
  }

  relayOutbox(r: { now: number; limit: number }): { published: number; messages: number } {
    const tx = this.s.db.transaction(() => {
      const bounds = this.s.stmt('outbox_relay_bounds').get({ limit: Math.max(1, r.limit) }) as Row;
      if (Number(bounds.n) === 0) return { published: 0, messages: 0 };
      const messages = this.s.stmt('outbox_relay').run({ last_id: bounds.last_id, now: r.now }).changes;
      const published = this.s.stmt('outbox_mark_published').run({ last_id: bounds.last_id, now: r.now }).changes;
      return { published, messages };
    });
    return tx.immediate();
  }

  pruneHistory(r: { outboxBefore: number; messagesBefore: number; limit: number }): { outbox: number; messages: number } {
    const limit = Math.max(1, r.limit);
    return {
      outbox: this.s.stmt('outbox_prune').run({ before: r.outboxBefore, limit }).changes,
      messages: this.s.stmt('webhook_messages_prune').run({ before: r.messagesBefore, limit }).changes,
    };
  }

  claimEndpoints(r: { now: number; owner: string; leaseMs: number; limit: number }): WebhookTarget[] {
    const params = { now: r.now, owner: r.owner, lease_until: r.now + r.leaseMs, limit: Math.max(0, r.limit) };
    const tx = this.s.db.transaction(() => this.s.stmt('webhook_endpoints_claim').all(params) as Row[]);
    return tx.immediate().map(toWebhookTarget);
  }

  listHeads(r: { endpointId: string; now: number; limit: number }): WebhookMessage[] {
    const rows = this.s.stmt('webhook_heads_due').all({ endpoint_id: r.endpointId, now: r.now, limit: Math.max(0, r.limit) }) as Row[];
    return rows.map(toWebhookMessage);
  }

  recordAttempts(r: {
    endpointId: string;
    owner: string;
    now: number;
    leaseUntil: number;
    attempts: WebhookAttemptRecord[];
    endpoint: WebhookEndpointOutcome;
  }): void {
    const tx = this.s.db.transaction(() => {
      for (const a of r.attempts) {
        this.s.stmt('webhook_messages_record').run({
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
      if (e.kind === 'healthy') this.s.stmt('webhook_endpoint_healthy').run(lease);
      else if (e.kind === 'failing') {
        this.s.stmt('webhook_endpoint_failing').run({ ...lease, next_attempt_at: e.nextAttemptAt, status: e.status, error: e.error });
      } else {
        this.s.stmt('webhook_endpoint_disable').run({ id: r.endpointId, now: r.now, reason: e.reason, status: e.status, error: e.error });
      }
    });
    tx.immediate();
  }

  releaseEndpoint(r: { endpointId: string; owner: string }): void {
    this.s.stmt('webhook_endpoint_release').run({ id: r.endpointId, owner: r.owner });
  }
}
