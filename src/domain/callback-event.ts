import type { DownstreamStatus } from './downstream.js';

/**
 * One delivery event from a provider callback, already verified and parsed. Matched to a
 * delivery by `providerMessageId`, else by `reference` (Herald's idempotency key, where the
 * provider echoes it back, like Postmark metadata or SendGrid custom_args).
 */
export interface CallbackEvent {
  /** The provider's event id: the dedupe key (a repeated delivery of the same event has the same id). */
  eventId: string;
  status: DownstreamStatus;
  providerMessageId: string | null;
  reference: string | null;
  /** Epoch ms when the provider says it happened, if it says. */
  occurredAt: number | null;
  /** Set for a hard bounce or a complaint: the address goes on the tenant's suppression list. */
  suppress: 'bounced' | 'complained' | null;
}
