/**
 * The PostgreSQL driver's guarded transitions: a run of writes for distinct deliveries in one
 * statement (`transitions_apply`: updates, attempt closes and outbox events together). Shared by
 * every write that moves a delivery (applyTransitions, supersede, replays, reconciliation, the
 * heartbeat sweep). Dialect-specific because SQLite needs three statements per write
 * (sqlite/transitions.ts).
 */
import type pg from 'pg';
import type { TransitionWrite } from '../core-store.js';
import { all, type Body } from '../sql-executor.js';
import { attemptFields, decisionFields, transitionPayload } from '../transition-fields.js';
import type { Client, PostgresContext } from './sql-context.js';

/**
 * A run of guarded transitions (each delivery at most once: one statement sees one snapshot) as
 * a body step; returns the deliveries whose guard held, each with its provider account.
 */
export function* transitionRun(run: readonly TransitionWrite[]): Body<Map<string, string>> {
  const attempts = run.map((w) => (w.attempt ? attemptFields(w.attempt.outcome) : null));
  const decisions = run.map((w) => decisionFields(w.attempt));
  const rows = yield* all('transitions_apply', {
    ids: run.map((w) => w.deliveryId),
    expect_states: run.map((w) => w.expect.state),
    expect_lease_versions: run.map((w) => w.expect.leaseVersion),
    to_states: run.map((w) => w.transition.to),
    terminal_reasons: run.map((w) => w.transition.terminalReason),
    next_attempt_ats: run.map((w) => w.transition.nextAttemptAt),
    provider_message_ids: run.map((w) => w.transition.providerMessageId ?? null),
    downstream_statuses: run.map((w) => (w.transition.to === 'accepted' ? 'accepted' : null)),
    last_error_codes: attempts.map((a) => a?.error_code ?? null),
    now: run[0]!.now,
    attempt_numbers: run.map((w) => w.attempt?.number ?? null),
    outcomes: attempts.map((a) => a?.outcome ?? null),
    attempt_pmids: attempts.map((a) => a?.provider_message_id ?? null),
    error_codes: attempts.map((a) => a?.error_code ?? null),
    error_messages: attempts.map((a) => a?.error_message ?? null),
    retry_after_ms: attempts.map((a) => a?.retry_after_ms ?? null),
    payloads: run.map((w) => transitionPayload(w)),
    decisions: decisions.map((d) => d.decision),
    decision_retry_ats: decisions.map((d) => d.decision_retry_at),
    next_stage_decisions: decisions.map((d) => d.next_stage_decision),
    next_stage_retry_ats: decisions.map((d) => d.next_stage_retry_at),
    move_tos: run.map((w) => w.move?.to ?? null),
    failover_reasons: run.map((w) => w.move?.reason ?? null),
  });
  return new Map(rows.map((r) => [String(r.id), String(r.provider_account)]));
}

/** One guarded transition as a body step: the delivery's provider account when its guard held, null when not. */
export function* guardedTransition(w: TransitionWrite): Body<string | null> {
  return (yield* transitionRun([w])).get(w.deliveryId) ?? null;
}

/** Applies a run of guarded transitions on `c` (a transaction's connection, or the pool); returns the ids whose guard held. */
export async function applyRun(sql: PostgresContext, run: TransitionWrite[], c: pg.Pool | Client): Promise<Set<string>> {
  return new Set((await sql.drive(transitionRun(run), c)).keys());
}
