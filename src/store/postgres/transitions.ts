/**
 * The PostgreSQL driver's guarded transitions: a run of writes for distinct deliveries in one
 * statement (`transitions_apply`: updates, attempt closes and outbox events together). Shared by
 * every write that moves a delivery (applyTransitions, supersede, replays, reconciliation).
 */
import type pg from 'pg';
import type { TransitionWrite } from '../core-store.js';
import { attemptFields, decisionFields, transitionPayload } from '../transition-fields.js';
import type { Client, PostgresContext } from './sql-context.js';

/**
 * Applies a run of guarded transitions (each delivery at most once: one statement sees one
 * snapshot) on `c`; returns the ids of the deliveries whose guard held.
 */
export async function applyRun(sql: PostgresContext, run: TransitionWrite[], c: pg.Pool | Client): Promise<Set<string>> {
  const now = run[0]!.now;
  const attempts = run.map((w) => (w.attempt ? attemptFields(w.attempt.outcome) : null));
  const decisions = run.map((w) => decisionFields(w.attempt));
  const rows = await sql.q(
    'transitions_apply',
    [
      run.map((w) => w.deliveryId),
      run.map((w) => w.expect.state),
      run.map((w) => w.expect.leaseVersion),
      run.map((w) => w.transition.to),
      run.map((w) => w.transition.terminalReason),
      run.map((w) => w.transition.nextAttemptAt),
      run.map((w) => w.transition.providerMessageId ?? null),
      run.map((w) => (w.transition.to === 'accepted' ? 'accepted' : null)),
      attempts.map((a) => a?.error_code ?? null),
      now,
      run.map((w) => w.attempt?.number ?? null),
      attempts.map((a) => a?.outcome ?? null),
      attempts.map((a) => a?.provider_message_id ?? null),
      attempts.map((a) => a?.error_code ?? null),
      attempts.map((a) => a?.error_message ?? null),
      attempts.map((a) => a?.retry_after_ms ?? null),
      run.map((w) => transitionPayload(w)),
      decisions.map((d) => d.decision),
      decisions.map((d) => d.decision_retry_at),
      decisions.map((d) => d.next_stage_decision),
      decisions.map((d) => d.next_stage_retry_at),
    ],
    c,
  );
  return new Set(rows.map((r) => String(r.id)));
}
