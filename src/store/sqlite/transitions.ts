/**
 * The SQLite driver's guarded transition: the delivery update, its attempt close and its outbox
 * event, three statements in the caller's transaction. Shared by every write that moves a
 * delivery (applyTransitions, supersede, replays, reconciliation, the heartbeat sweep).
 * Dialect-specific because SQLite has no data-modifying CTEs: PostgreSQL writes a whole batch of
 * transitions in one statement (postgres/transitions.ts).
 */
import type { TransitionWrite } from '../core-store.js';
import { type Body, count, one } from '../sql-executor.js';
import { attemptFields, decisionFields, transitionPayload } from '../transition-fields.js';
import type { SqliteContext } from './sql-context.js';

/**
 * One guarded transition with its attempt close and outbox event, as a body step (parts/ run it
 * inside their transaction): the delivery's provider account when the guard held, null when the
 * delivery is no longer in the expected state and lease version.
 */
export function* guardedTransition(w: TransitionWrite): Body<string | null> {
  const t = w.transition;
  const attempt = w.attempt ? attemptFields(w.attempt.outcome) : null;
  const row = yield* one('delivery_transition', {
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
    move_to: w.move?.to ?? null,
  });
  if (!row) return null;
  if (w.attempt && attempt) {
    yield* count('attempt_finish', {
      delivery_id: w.deliveryId,
      number: w.attempt.number,
      now: w.now,
      ...attempt,
      ...decisionFields(w.attempt),
      failover_reason: w.move?.reason ?? null,
    });
  }
  yield* count('outbox_insert', {
    tenant_id: row.tenant_id,
    notification_id: row.notification_id,
    delivery_id: w.deliveryId,
    event_type: `delivery.${t.to}`,
    payload_json: transitionPayload(w),
    now: w.now,
  });
  return String(row.provider_account);
}

/** Applies one guarded transition now, inside the caller's transaction; false when its guard refused. */
export function applyTransition(sql: SqliteContext, w: TransitionWrite): boolean {
  return sql.drive(guardedTransition(w)) !== null;
}
