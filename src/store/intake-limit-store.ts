/**
 * The intake-limit part of the Store contract (`store.intakeLimits`, docs/abuse-limits.md): the
 * counts behind the limits on the way in, kept in the database so every API process of a
 * deployment spends one budget. Two kinds:
 *
 *   - request windows: one row per API key (or dashboard user), a fixed-window counter bumped by
 *     one statement per request (an upsert that starts the count again when the window moved);
 *   - velocity events: one row per notification counted by a velocity rule, keyed by a keyed
 *     hash of its subject (destination or recipient id, never in clear), checked and written in
 *     one transaction that serializes on the subjects, so concurrent intakes cannot both take the
 *     last slot.
 *
 * Both drivers implement it; test/store/intake-limits-conformance.ts runs on each.
 */

/** One subject a velocity take counts: its keyed hash and the rule's bound. */
export interface VelocitySubjectCheck {
  /** Which rule (destination or recipient): stored with the event, so two rules never share counts. */
  rule: 'destination' | 'recipient';
  /** HMAC of the subject (the caller's key); the store never sees the subject itself. */
  hash: string;
  max: number;
  windowMs: number;
}

export interface VelocityTake {
  tenantId: string;
  purpose: string;
  subjects: readonly VelocitySubjectCheck[];
  now: number;
  /** Events older than this (the longest configured window) may be deleted, a bounded number per take. */
  pruneBefore: number;
}

/** Taken: one event per subject was written (ids to give back if the notification is not committed); refused: the first subject at its bound. */
export type VelocityTakeResult = { ok: true; eventIds: string[] } | { ok: false; refused: VelocitySubjectCheck; retryAt: number };

export interface IntakeLimitStore {
  /**
   * Counts one request of `subjectId` in the fixed window starting at `windowStart` and returns
   * the count in that window, this request included (1 when the window is new).
   */
  countRequest(subjectId: string, windowStart: number): Promise<number>;
  /**
   * Checks every subject against its rule and, when none is at its bound, records one event per
   * subject, all in one transaction; when one is, writes nothing and says which and until when.
   */
  takeVelocity(take: VelocityTake): Promise<VelocityTakeResult>;
  /** Deletes events a take recorded for a notification that was then not committed. */
  releaseVelocity(eventIds: readonly string[]): Promise<void>;
  /** How many events of a rule's subject and purpose are newer than `since`. */
  velocityCount(tenantId: string, rule: 'destination' | 'recipient', hash: string, purpose: string, since: number): Promise<number>;
}
