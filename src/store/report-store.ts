/**
 * The user-report part of the Store contract (`store.reports`): what a producer's support
 * tooling says a person experienced with a notification, a duplicate or nothing received,
 * stored as said and never edited, so an operator can set it beside the evidence (one
 * ledger-confirmed submission and a reported duplicate point outside Herald). Both drivers
 * implement it; test/store/reports-conformance.ts runs on each.
 */
import type { Channel } from '../domain/index.js';

/** What a person reported. */
export const REPORT_KINDS = ['duplicate', 'not_received'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

export interface NewReport {
  id: string;
  tenantId: string;
  notificationId: string;
  kind: ReportKind;
  /** The channel the report is about, when the reporter knows it. */
  channel: Channel | null;
  note: string | null;
  /** The API key id that filed it. */
  reportedBy: string;
  now: number;
}

export interface ReportRecord {
  id: string;
  notificationId: string;
  kind: ReportKind;
  channel: Channel | null;
  note: string | null;
  reportedBy: string;
  createdAt: number;
}

/** `store.reports`; implemented by sqlite/reports.ts and postgres/reports.ts. */
export interface ReportStore {
  /** Stores one report of the tenant's notification; false (nothing written) when the tenant has no such notification. */
  addReport(r: NewReport): Promise<boolean>;
  /** A notification's reports, oldest first. */
  listReports(tenantId: string, notificationId: string): Promise<ReportRecord[]>;
}
