/**
 * The closed vocabularies every layer shares: channels, purposes, delivery states and
 * terminal reasons. Each list is the single source; the SQL CHECK constraints and the
 * HTTP schemas are tested against it.
 */

export const CHANNELS = ['email', 'sms', 'push'] as const;
export type Channel = (typeof CHANNELS)[number];

export const PURPOSES = ['otp', 'transactional', 'conversational', 'marketing', 'alert'] as const;
export type Purpose = (typeof PURPOSES)[number];

export const DELIVERY_STATES = ['ready', 'submitting', 'accepted', 'unknown', 'retryable', 'terminal'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export const TERMINAL_REASONS = ['expired', 'exhausted', 'rejected', 'superseded', 'suppressed', 'unsubscribed', 'unresolved', 'cancelled', 'held'] as const;
export type TerminalReason = (typeof TERMINAL_REASONS)[number];

/**
 * Why a delivery waits or ended the way it did when the reason is time-aware sending
 * (docs/scheduling.md): shown on the delivery beside its state (`ready` until the window ends,
 * `terminal/expired`, `terminal/suppressed`) and counted in /metrics.
 */
export const HOLD_REASONS = ['quiet_hours', 'frequency_capped'] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];

/** Ambiguity policy of a provider account: what to do when a submission's fate is unknown. */
export const AMBIGUITY_POLICIES = ['wait_for_evidence', 'resend_same_key', 'user_resend', 'accept_duplicate'] as const;
export type AmbiguityPolicy = (typeof AMBIGUITY_POLICIES)[number];

/** The ambiguity policy for a purpose: the account's choice for that purpose, else its one policy. */
export function ambiguityPolicyFor(purpose: Purpose, policy: AmbiguityPolicy, perPurpose?: Partial<Record<Purpose, AmbiguityPolicy>>): AmbiguityPolicy {
  return perPurpose?.[purpose] ?? policy;
}

export function isChannel(value: unknown): value is Channel {
  return typeof value === 'string' && (CHANNELS as readonly string[]).includes(value);
}
