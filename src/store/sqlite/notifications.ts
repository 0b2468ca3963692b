/**
 * The SQLite driver's intake insert: one notification with its deliveries (or, with fallback,
 * its first delivery and the pending later channels), the `notification.created` outbox event,
 * the completed idempotency key, and the supersede of older generations. Shared by the core's
 * createNotification (group-committed) and the campaign fan-out (a batch in one transaction),
 * so a campaign's notifications are exactly what POST /v1/notifications would have written.
 */
import Database from 'better-sqlite3';
import { checkGeneration, pendingOlder, supersedeWrites } from '../challenge.js';
import {
  StoreConflictError,
  type BatchItemOutcome,
  type BatchKeyTerms,
  type BatchNotification,
  type CreatedNotification,
  type NewNotification,
  type SupersededDelivery,
  type TenantIdempotencyCompletion,
} from '../core-store.js';
import type { Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';
import { takeIdempotencyKey } from './idempotency.js';
import { applyTransition } from './transitions.js';
import { bindTo } from '../content-cipher.js';

/** Writes one notification's statements; runs inside the caller's transaction or savepoint. */
export function insertNotification(sql: SqliteContext, n: NewNotification, idem: TenantIdempotencyCompletion | undefined): CreatedNotification {
  // One writer at a time in SQLite: the generation check and the supersede below cannot race.
  const latest = sql.stmt('latest_generation').get({ tenant_id: n.tenantId, group_key: n.groupKey }) as Row | undefined;
  checkGeneration(latest?.generation, n.generation);
  sql.stmt('notification_insert').run({
    id: n.id,
    tenant_id: n.tenantId,
    recipient_id: n.recipient.id,
    recipient_json: JSON.stringify(n.recipient),
    purpose: n.purpose,
    channels_json: JSON.stringify(n.channels),
    content_json: sql.sealContent(n.content, bindTo('notifications', 'content_json', n.id)),
    group_key: n.groupKey,
    generation: n.generation,
    metadata_json: n.metadata === null ? null : JSON.stringify(n.metadata),
    expires_at: n.expiresAt,
    created_at: n.createdAt,
  });
  // With fallback, only the first channel is a delivery now; the others wait their turn.
  const createdNow = n.fallback ? n.deliveries.slice(0, 1) : n.deliveries;
  createdNow.forEach((d, position) => {
    sql.stmt('delivery_insert').run({
      id: d.id,
      notification_id: n.id,
      tenant_id: n.tenantId,
      position,
      channel: d.channel,
      purpose: n.purpose,
      provider_account: d.providerAccount,
      destination: d.destination,
      idempotency_key: d.idempotencyKey,
      expires_at: n.expiresAt,
      next_attempt_at: n.dueAt ?? n.createdAt,
      now: n.createdAt,
    });
  });
  sql.stmt('outbox_insert').run({
    tenant_id: n.tenantId,
    notification_id: n.id,
    delivery_id: null,
    event_type: 'notification.created',
    payload_json: JSON.stringify({
      notification_id: n.id,
      purpose: n.purpose,
      deliveries: n.deliveries.map((d) => ({ id: d.id, channel: d.channel, state: 'ready' })),
    }),
    now: n.createdAt,
  });
  if (idem) {
    const done = sql.stmt('idempotency_complete').run({
      tenant_id: idem.tenantId,
      key: idem.key,
      fingerprint: idem.fingerprint,
      response_status: idem.statusCode,
      response_body: JSON.stringify(idem.body),
    });
    // The reservation was taken over (its lock ran out) by another request: do not commit twice.
    if (done.changes !== 1) throw new StoreConflictError('idempotency key is no longer reserved', { constraint: 'idempotency_keys' });
  }
  if (n.retryLadder) sql.stmt('notification_set_ladder').run({ id: n.id, retry_ladder: n.retryLadder });
  if (n.pinnedChannels?.length) sql.stmt('notification_set_pinned').run({ id: n.id, pinned_channels: JSON.stringify(n.pinnedChannels) });
  if (n.fallback) {
    sql.stmt('notification_set_fallback').run({ id: n.id, fallback_after_ms: n.fallback.afterMs, fallback_evidence: n.fallback.evidence });
    n.deliveries.slice(1).forEach((d, i) => {
      sql.stmt('fallback_insert').run({
        notification_id: n.id,
        position: i + 1,
        delivery_id: d.id,
        tenant_id: n.tenantId,
        channel: d.channel,
        provider_account: d.providerAccount,
        destination: d.destination,
        idempotency_key: d.idempotencyKey,
        // Only the next channel has a deadline; the ones after it start theirs in turn.
        due_at: i === 0 ? (n.dueAt ?? n.createdAt) + n.fallback!.afterMs : null,
      });
    });
  }
  if (n.generation > 1) {
    sql.stmt('fallbacks_drop_older').run({ tenant_id: n.tenantId, group_key: n.groupKey, generation: n.generation });
    const older = pendingOlder(sql.stmt('challenge_pending_older').all({ tenant_id: n.tenantId, group_key: n.groupKey, generation: n.generation }) as Row[]);
    const superseded: SupersededDelivery[] = [];
    for (const w of supersedeWrites(
      older.map((o) => o.facts),
      n.createdAt,
    )) {
      const o = older.find((x) => x.facts.deliveryId === w.deliveryId)!;
      if (applyTransition(sql, w)) superseded.push({ deliveryId: w.deliveryId, channel: o.channel, purpose: o.purpose });
    }
    return { superseded };
  }
  return { superseded: [] };
}

/**
 * Writes a batch's notifications inside the caller's transaction, each in a savepoint (a nested
 * better-sqlite3 transaction): an item refused by a uniqueness rule (or whose key reservation was
 * taken over) is rolled back alone and answered as its conflict; any other error is thrown.
 * With `keys`, each item's key is taken in its savepoint first (takeIdempotencyKey), so a refused
 * item leaves its key as it found it and a key not taken leaves the item unwritten.
 */
export function insertNotifications(sql: SqliteContext, items: BatchNotification[], keys?: BatchKeyTerms): BatchItemOutcome[] {
  return items.map(({ notification, idempotency }): BatchItemOutcome => {
    try {
      return sql.db.transaction((): BatchItemOutcome => {
        if (keys && idempotency) {
          const taken = takeIdempotencyKey(sql, { tenantId: idempotency.tenantId, key: idempotency.key, fingerprint: idempotency.fingerprint, ...keys });
          if (taken.kind !== 'reserved') return { ok: false, key: taken };
        }
        return { ok: true, superseded: insertNotification(sql, notification, idempotency).superseded };
      })();
    } catch (err) {
      const conflict = mapCreateError(err);
      if (conflict instanceof StoreConflictError) return { ok: false, conflict };
      throw err;
    }
  });
}

/** A duplicate delivery identity is the caller's conflict; other errors pass through unchanged. */
export function mapCreateError(err: unknown): unknown {
  if (err instanceof Database.SqliteError && err.code === 'SQLITE_CONSTRAINT_UNIQUE') {
    const constraint = /deliveries\.idempotency_key/.test(err.message)
      ? 'deliveries.idempotency_key'
      : /notifications\.group_key/.test(err.message)
        ? 'notifications.challenge'
        : 'unique';
    return new StoreConflictError('a delivery with this identity already exists', { constraint }, { cause: err });
  }
  return err;
}
