/**
 * `store.retention`: what the retention job and a recipient's erasure do to stored data
 * (docs/retention.md). Content is erased in place (content_json becomes a marker naming what
 * went, when and why); destinations are masked, keeping a keyed hash the caller computes; each
 * batch is recorded in `erasures`. Every statement is bounded by a limit, so a pass never holds
 * the writer long; times come in as `now`.
 */
import type { Purpose } from '../domain/index.js';
import type { DeliveryFacts } from './core-store.js';

/** Why something was erased. */
export const ERASURE_CAUSES = ['retention', 'recipient_request'] as const;
export type ErasureCause = (typeof ERASURE_CAUSES)[number];

/** What an erasure record covers. */
export const ERASURE_KINDS = ['otp_content', 'content', 'destinations', 'recipient'] as const;
export type ErasureKind = (typeof ERASURE_KINDS)[number];

/** What an erased notification's content_json holds instead (in clear: it carries no content). */
export interface ErasedContent {
  erased: { at: number; cause: ErasureCause; kind: ErasureKind; removed: 'content' };
}

/** True for content the retention job or an erasure replaced with its marker. */
export function isErasedContent(c: unknown): c is ErasedContent {
  return typeof c === 'object' && c !== null && 'erased' in c && typeof c.erased === 'object';
}

/** A delivery whose destination is due to be masked. */
export interface DestinationToMask {
  deliveryId: string;
  notificationId: string;
  channel: string;
  destination: string;
}

/** One recorded erasure. */
export interface ErasureRecord {
  /** Its place in the log (ascending); 0 before it is stored. */
  id: number;
  cause: ErasureCause;
  kind: ErasureKind;
  tenantId: string | null;
  recipientId: string | null;
  count: number;
  details: Record<string, unknown> | null;
  createdAt: number;
}

/** What a retention batch records: the store fills in each tenant and its count. */
export type ErasureTemplate = Omit<ErasureRecord, 'id' | 'count' | 'tenantId'>;

/** What erasing one recipient removed (the answer of DELETE /v1/recipients/:id). */
export interface RecipientErasure {
  notificationsErased: number;
  destinationsMasked: number;
  profileDeleted: boolean;
  preferencesDeleted: number;
  pushSubscriptionsDeleted: number;
  audienceRowsCleared: number;
  /** Notifications left as they are because a delivery is still submitting or unknown (erase again once it settles). */
  notificationsInFlight: number;
}

export interface RetentionStore {
  /** Ids of up to `limit` OTP notifications with content, expired at `now`, every delivery terminal or accepted, no fallback left. */
  otpContentDue(now: number, limit: number): Promise<string[]>;
  /** Ids of up to `limit` notifications of `purpose` with content, created before `before`, every delivery settled. */
  contentDue(purpose: Purpose, before: number, limit: number): Promise<string[]>;
  /**
   * Replaces the content of these notifications with `marker` and records one erasure per tenant
   * whose notifications changed (`record` with that tenant and its count); returns how many changed.
   */
  eraseContent(ids: readonly string[], marker: ErasedContent, record: ErasureTemplate): Promise<number>;
  /** Up to `limit` settled deliveries created before `before` whose destination is still in clear. */
  destinationsDue(before: number, limit: number): Promise<DestinationToMask[]>;
  /**
   * Masks these deliveries' destinations (keeping `hash`) and their notifications' recipient
   * addresses, records one erasure per tenant whose deliveries changed; returns how many deliveries changed.
   */
  maskDestinations(masks: ReadonlyArray<{ deliveryId: string; hash: string }>, record: ErasureTemplate): Promise<number>;
  /** A recipient's deliveries still waiting to be sent (ready, retryable): an erasure cancels them first. */
  recipientPending(tenantId: string, recipientId: string): Promise<DeliveryFacts[]>;
  /** A recipient's deliveries with a destination in clear (any state), for the caller to hash. */
  recipientDestinations(tenantId: string, recipientId: string): Promise<DestinationToMask[]>;
  /**
   * Erases one recipient in one transaction: content of every notification none of whose
   * deliveries is submitting or unknown, the given masks, profile, preferences, push
   * subscriptions, audience addresses; records it. Pending (ready/retryable) deliveries must
   * already be cancelled by the caller (through `decide`).
   */
  eraseRecipient(
    tenantId: string,
    recipientId: string,
    masks: ReadonlyArray<{ deliveryId: string; hash: string }>,
    marker: ErasedContent,
    now: number,
  ): Promise<RecipientErasure>;
  /** Up to `limit` of the tenant's recorded erasures with an id below `beforeId` (null: from the newest), newest first. */
  listErasures(tenantId: string, beforeId: number | null, limit: number): Promise<ErasureRecord[]>;
  /**
   * Key rotation: re-seals with the primary key up to `limit` rows of `table` after `afterId`
   * (id order) whose content is in clear or sealed with another key; each write is guarded by the
   * value that was read. `lastId` null: the table is done.
   */
  resealContent(table: 'notifications' | 'campaigns', afterId: string, limit: number): Promise<{ scanned: number; resealed: number; lastId: string | null }>;
  /**
   * Key rotation for audience rows' template data (audience_recipients.data_json): as
   * `resealContent`, rows in (audience, position) order after `after` (`<audience id>/<position>`,
   * '' for the first page).
   */
  resealAudienceData(after: string, limit: number): Promise<{ scanned: number; resealed: number; lastId: string | null }>;
}
