/**
 * The operator alert part of the Store contract (`store.alerts`): the state of each alert
 * (rule, subject) that src/observability/alerter.ts evaluates, and the history of what was sent
 * to whom. States are written with a compare-and-set over the whole evaluation, so two worker
 * processes evaluating at once commit one evaluation and send one message, not two. History
 * rows hold masked targets and error classes only: any API key may read them. Both drivers
 * implement it; test/store/alerts-conformance.ts runs on each.
 */
import type { AlertState } from '../domain/index.js';

/** What a history row records: a firing or resolved announcement, or a `herald alerts test` message. */
export const ALERT_HISTORY_KINDS = ['firing', 'resolved', 'test'] as const;
export type AlertHistoryKind = (typeof ALERT_HISTORY_KINDS)[number];

export const ALERT_TARGET_KINDS = ['email', 'sms', 'webhook'] as const;
export type AlertTargetKind = (typeof ALERT_TARGET_KINDS)[number];

export const ALERT_OUTCOMES = ['sent', 'failed'] as const;
export type AlertOutcome = (typeof ALERT_OUTCOMES)[number];

/** One message (or one failed try of it) to one target about one alert. */
export interface NewAlertSent {
  sentAt: number;
  /** Null for a test message. */
  rule: string | null;
  subject: string | null;
  kind: AlertHistoryKind;
  targetKind: AlertTargetKind;
  /** Masked (domain/alert-targets.ts): never the full address, number or URL. */
  target: string;
  /** The provider account an e-mail or SMS went through; null for a webhook. */
  providerAccount: string | null;
  outcome: AlertOutcome;
  /** Why it failed, as a class (`retryable`, `permanent:invalid_destination`, `http_503`, ...); null when sent. */
  errorClass: string | null;
}

export interface AlertSentRecord extends NewAlertSent {
  /** Increasing in insertion order: the history's cursor. */
  id: number;
}

export interface AlertHistoryPage {
  items: AlertSentRecord[];
  /** The id to pass as `before` for the next (older) page, or null at the end. */
  nextBefore: number | null;
}

/** `store.alerts`; implemented by sqlite/alerts.ts and postgres/alerts.ts. */
export interface AlertStore {
  /** Every stored alert state (firing and clear). */
  listStates(): Promise<AlertState[]>;
  /**
   * Writes every change in one transaction if each is still at the version it was read at (0:
   * not stored yet), each at its version + 1, and returns them as written; null, with nothing
   * written, when any one has moved (another process committed first).
   */
  commitStates(changes: readonly AlertState[], now: number): Promise<AlertState[] | null>;
  /** Appends history rows. */
  recordSent(entries: readonly NewAlertSent[]): Promise<void>;
  /** Deletes history rows sent before `before`; returns how many. */
  pruneHistory(before: number): Promise<number>;
  /** History, newest first: rows with id below `before` (null: from the newest), at most `limit`. */
  listHistory(before: number | null, limit: number): Promise<AlertHistoryPage>;
}
