/**
 * The inbound part of the Store contract (`store.inbound`, docs/inbound.md): messages people
 * send back (from phones' `sms:received` webhooks and providers' inbound webhooks), the webhook
 * event ids already taken, STOP keyword suppressions, and the phones' own health reports.
 * Written once in parts/inbound.ts; both drivers pass test/store/inbound-conformance.ts.
 *
 * Rules every implementation keeps: an incoming message, its event id, its keyword's effect
 * (suppression written or lifted) and its `message.received` outbox event are committed in one
 * transaction or not at all, and a second delivery of the same event or of the same message
 * (same account and external id) changes nothing; the sender is stored as a keyed hash, the
 * number and text only sealed (AES-GCM bound to the row, like notification content).
 */
import type { InboundKind, KeywordAction } from '../domain/index.js';

/** Where an incoming message arrived (`INBOUND_SOURCES`). */
export type InboundSourceName = 'phone' | 'twilio' | 'telnyx';

export interface NewInboundMessage {
  id: string;
  tenantId: string;
  providerAccount: string;
  source: InboundSourceName;
  /** The phone's or provider's id of the message. */
  externalId: string;
  deviceId: string | null;
  simNumber: number | null;
  kind: InboundKind;
  /** The sender, E.164 or as the network gave it; sealed with the text, never stored in clear. */
  sender: string;
  /** Keyed hash of "sms:" + sender (the hash masked destinations keep). */
  senderHash: string;
  content: string | null;
  keyword: KeywordAction | null;
  receivedAt: number;
  now: number;
}

/** What the message does beside being stored, in the same transaction. */
export interface InboundEffects {
  /** STOP: the sender is suppressed on SMS for the tenant (an existing entry is kept as it was). */
  suppress: boolean;
  /** START: the sender's keyword suppression is lifted. */
  lift: boolean;
  /** The `message.received` outbox event's payload (the store adds the link to the last notification), or null for none. */
  event: Record<string, unknown> | null;
}

/** The webhook event a message came in (deduplicated per source: "device:<id>", "account:<id>"). */
export interface InboundEventKey {
  source: string;
  eventId: string;
}

export type RecordInboundResult = { recorded: true; replyToNotificationId: string | null } | { recorded: false; duplicate: 'event' | 'message' };

export interface InboundMessageRecord {
  id: string;
  tenantId: string;
  providerAccount: string;
  source: InboundSourceName;
  externalId: string;
  deviceId: string | null;
  simNumber: number | null;
  kind: InboundKind;
  senderHash: string;
  /** Null once retention erased it. */
  sender: string | null;
  content: string | null;
  contentErasedAt: number | null;
  keyword: KeywordAction | null;
  replyToNotificationId: string | null;
  receivedAt: number;
  recordedAt: number;
}

export interface InboundFilter {
  tenantId: string;
  providerAccount?: string | null;
  deviceId?: string | null;
  senderHash?: string | null;
  /** received_at >= since */
  since?: number | null;
  /** received_at < until */
  until?: number | null;
  /** Rows after this id in the listing's order (newest first). */
  after?: { receivedAt: number; id: string } | null;
  limit: number;
}

export interface KeywordSuppressionRecord {
  tenantId: string;
  channel: 'sms';
  destination: string;
  keyword: string;
  providerAccount: string;
  inboundId: string;
  createdAt: number;
}

export interface DeviceHealthRecord {
  deviceId: string;
  at: number;
  batteryPercent: number | null;
  charging: boolean | null;
  internet: boolean | null;
  transports: string[] | null;
  cellular: string | null;
  signal: number | null;
  failedLastHour: number | null;
  appVersion: string | null;
}

export interface InboundStore {
  /**
   * Stores one incoming message with its effects, once. A duplicate event id or message
   * (account + external id) writes nothing and says which. The reply link is the newest SMS
   * notification of the account to this sender among its last `linkScan` deliveries.
   */
  recordInbound(msg: NewInboundMessage, event: InboundEventKey | null, effects: InboundEffects, linkScan: number): Promise<RecordInboundResult>;
  /** Takes an event id for an event that stores nothing else; false when it was already taken. */
  takeEvent(event: InboundEventKey, now: number): Promise<boolean>;
  /**
   * Of `tenantIds`, the one whose SMS on the account to this number (in clear or by its hash) is
   * the newest among each tenant's last `scan` deliveries on it; null when none has one.
   */
  newestSenderTenant(tenantIds: readonly string[], providerAccount: string, destination: string, destinationHash: string, scan: number): Promise<string | null>;
  /** Stores a health report under its event id, once; false when the event was already taken. */
  recordHealth(sample: DeviceHealthRecord, event: InboundEventKey | null): Promise<boolean>;
  getInbound(tenantId: string, id: string): Promise<InboundMessageRecord | null>;
  /** Newest first (received_at, then id). */
  listInbound(filter: InboundFilter): Promise<InboundMessageRecord[]>;
  /** The keyword suppressions of these destinations (SMS), for the send-time check. */
  keywordSuppressionsOf(tenantId: string, destinations: readonly string[]): Promise<KeywordSuppressionRecord[]>;
  listKeywordSuppressions(tenantId: string, limit: number): Promise<KeywordSuppressionRecord[]>;
  /** Each device's newest health report. */
  latestHealth(deviceIds: readonly string[]): Promise<DeviceHealthRecord[]>;
  /** One device's reports since `since`, oldest first. */
  healthHistory(deviceId: string, since: number): Promise<DeviceHealthRecord[]>;
  /** Ids of messages recorded before `before` whose content is still there (retention), at most `limit`. */
  inboundContentDue(before: number, limit: number): Promise<string[]>;
  /** Erases these messages' sender and text; returns how many changed. */
  eraseInboundContent(ids: readonly string[], now: number): Promise<number>;
  /** Deletes event ids and health reports older than their bounds, at most `limit` of each; returns how many. */
  prune(eventsBefore: number, healthBefore: number, limit: number): Promise<number>;
}
