/**
 * The fallback part of the Store contract (`store.fallbacks`): a notification's later channels
 * wait as pending fallbacks until the previous channel misses its deadline or ends; the
 * fallback scheduler (src/delivery/fallback-scheduler.ts) lists the due ones and turns each into
 * a delivery or drops it. Both drivers implement it; test/delivery/fallback.test.ts runs on each.
 */
import type { Channel, DeliveryState, DownstreamStatus, FallbackEvidence } from '../domain/index.js';

/** Where the previous channel's delivery stands, as `decideFallback` reads it. */
export interface PreviousDelivery {
  state: DeliveryState;
  downstreamStatus: DownstreamStatus | null;
}

/** A pending fallback whose turn may have come, with the facts `decideFallback` needs. */
export interface DueFallback {
  notificationId: string;
  position: number;
  tenantId: string;
  channel: Channel;
  providerAccount: string;
  dueAt: number;
  expiresAt: number;
  evidence: FallbackEvidence;
  afterMs: number;
  previous: PreviousDelivery;
}

/** What the scheduler decided for one pending fallback: `create` its delivery (starting the next deadline) or `drop` it. */
export interface FallbackResolution {
  notificationId: string;
  position: number;
  action: 'create' | 'drop';
  now: number;
  /** When the channel after this one becomes due (used by `create`). */
  nextDueAt: number;
}

/** `store.fallbacks`; implemented by sqlite/fallbacks.ts and postgres/fallbacks.ts. */
export interface FallbackStore {
  /** Pending fallbacks past their deadline, or whose previous channel already ended. */
  listDueFallbacks(now: number, limit: number): Promise<DueFallback[]>;
  /**
   * Acts on one pending fallback in one transaction: `create` turns it into a ready delivery
   * and starts the next channel's deadline (`nextDueAt`); `drop` deletes it and every later channel of the
   * notification. False when another sweeper already took it.
   */
  resolveFallback(r: FallbackResolution): Promise<boolean>;
}
