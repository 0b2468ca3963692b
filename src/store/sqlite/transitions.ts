/**
 * The SQLite driver's guarded transition: the delivery update, its attempt close and its outbox
 * event, three statements in the caller's transaction. Shared by every write that moves a
 * delivery (applyTransitions, supersede, replays, reconciliation).
 */
import type { TransitionWrite } from '../core-store.js';
import type { Row } from '../rows.js';
import { attemptFields, decisionFields, transitionPayload } from '../transition-fields.js';
import type { SqliteContext } from './sql-context.js';

/**
 * Applies one guarded transition with its attempt close and outbox event; runs inside the
 * caller's transaction. False when the delivery is no longer in the expected state and lease version.
 */
export function applyTransition(sql: SqliteContext, w: TransitionWrite): boolean {
  const t = w.transition;
  const attempt = w.attempt ? attemptFields(w.attempt.outcome) : null;
  const row = sql.stmt('delivery_transition').get({
    id: w.deliveryId,
    expect_state: w.expect.state,
    expect_lease_version: w.expect.leaseVersion,
    to_state: t.to,
    terminal_reason: t.terminalReason,
    next_attempt_at: t.nextAttemptAt,
    provider_message_id: t.providerMessageId ?? null,
    downstream_status: t.to === 'accepted' ? 'accepted' : null,
    last_error_code: attempt?.error_code ?? null,
    now: w.now,
  }) as Row | undefined;
  if (!row) return false;
  if (w.attempt && attempt) {
    sql.stmt('attempt_finish').run({ delivery_id: w.deliveryId, number: w.attempt.number, now: w.now, ...attempt, ...decisionFields(w.attempt) });
  }
  sql.stmt('outbox_insert').run({
    tenant_id: row.tenant_id,
    notification_id: row.notification_id,
    delivery_id: w.deliveryId,
    event_type: `delivery.${t.to}`,
    payload_json: transitionPayload(w),
    now: w.now,
  });
  return true;
}
