/**
 * Channel fallback with an explicit deadline: `channels: ["email", "sms"]` with
 * `fallback_after_seconds` sends email first and creates the SMS delivery only if, by the
 * deadline, the email delivery has not reached the stated evidence level. The decision is
 * made by a scheduler from stored facts, never from an exception handler.
 */
import type { DownstreamStatus } from './downstream.js';
import type { DeliveryState } from './vocabulary.js';

export const FALLBACK_EVIDENCE = ['accepted', 'sent', 'delivered'] as const;
export type FallbackEvidence = (typeof FALLBACK_EVIDENCE)[number];

const RANK: Record<DownstreamStatus, number> = {
  accepted: 1,
  sent: 2,
  delivered: 3,
  read: 4,
  // A bounce or failure is evidence that the message did not get through.
  bounced: 0,
  failed: 0,
  complained: 3,
};
const NEEDED: Record<FallbackEvidence, number> = { accepted: 1, sent: 2, delivered: 3 };

export interface FallbackFacts {
  /** The previous channel's delivery. */
  previous: { state: DeliveryState; downstreamStatus: DownstreamStatus | null };
  /** When the previous channel's deadline passes. */
  dueAt: number;
  expiresAt: number;
  evidence: FallbackEvidence;
  now: number;
}

export type FallbackDecision =
  /** The previous channel got through: the later channels are not needed. */
  | { kind: 'resolved' }
  /** Create the next channel's delivery now. */
  | { kind: 'create' }
  /** Starting now would be at or after expiry: the fallback is not created. */
  | { kind: 'expired' }
  /** Not yet: the deadline has not passed and the previous channel may still get through. */
  | { kind: 'wait' };

/** True when a delivery has reached the evidence level a fallback waits for. */
export function reachedEvidence(state: DeliveryState, downstream: DownstreamStatus | null, level: FallbackEvidence): boolean {
  if (downstream !== null) return RANK[downstream] >= NEEDED[level];
  return level === 'accepted' && state === 'accepted';
}

/**
 * Decides one pending fallback. A previous delivery that ended terminal can never get
 * through, so its fallback starts at once instead of waiting out the deadline.
 */
export function decideFallback(f: FallbackFacts): FallbackDecision {
  if (reachedEvidence(f.previous.state, f.previous.downstreamStatus, f.evidence)) return { kind: 'resolved' };
  const hopeless = f.previous.state === 'terminal' || f.previous.downstreamStatus === 'bounced' || f.previous.downstreamStatus === 'failed';
  if (!hopeless && f.now < f.dueAt) return { kind: 'wait' };
  if (f.now >= f.expiresAt) return { kind: 'expired' };
  return { kind: 'create' };
}
