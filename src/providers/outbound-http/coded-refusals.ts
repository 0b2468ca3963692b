/**
 * What the classifiers of the SMS kinds with error-code tables (twilio, telnyx) share: a row of
 * the kind's table as an outcome, and the rules by status for an answer no row and no rule of
 * the kind's own decided. Each kind keeps its table, its 2xx, 409, 429 and 5xx rules and its words.
 */
import type { PermanentReason, SubmitOutcome } from '../../domain/index.js';

/** A row of a kind's error-code table: the code's meaning in Herald's words (never the provider's text, which may quote the number). */
export type CodedRefusal =
  | { kind: 'permanent'; reason: PermanentReason; code: string; message: string }
  | { kind: 'retryable'; code: string; message: string }
  | { kind: 'throttled'; code: string; message: string };

/** An answer's label in messages: its status, and the provider's error code when it gave one. */
export function answerLabel(status: number, code: string | number | null): string {
  return code === null ? `HTTP ${status}` : `HTTP ${status}, error ${code}`;
}

/** A table row as an outcome: a throttle pauses the whole account for `throttleWaitMs()` (null: the ladder decides); a retryable code advises no wait. */
export function codedOutcome(row: CodedRefusal, throttleWaitMs: () => number | null): SubmitOutcome {
  if (row.kind === 'throttled') return { ...row, retryAfterMs: throttleWaitMs(), scope: 'account' };
  if (row.kind === 'retryable') return { ...row, retryAfterMs: null };
  return row;
}

/**
 * The last rules, for an answer nothing else decided: 401/403 refused the credentials and any
 * other 4xx the message (permanent: sent again as it is, it is refused again); anything else
 * (1xx, 3xx: no create answers that, and a redirect means base_url is wrong) is retryable as
 * unexpected. The outcome's code keeps the provider's (`twilio_21211`), else `http_<status>`.
 */
export function refusalByStatus(provider: string, status: number, code: string | number | null): SubmitOutcome {
  const label = answerLabel(status, code);
  const coded = code === null ? `http_${status}` : `${provider.toLowerCase()}_${code}`;
  if (status === 401 || status === 403)
    return { kind: 'permanent', reason: 'unauthorized', code: coded, message: `${provider} refused the credentials (${label})` };
  if (status >= 400) return { kind: 'permanent', reason: 'other', code: coded, message: `${provider} refused the message (${label})` };
  return { kind: 'retryable', code: 'unexpected_status', message: `${provider} answered ${label}`, retryAfterMs: null };
}
