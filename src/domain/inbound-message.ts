/**
 * The words of an incoming message (docs/inbound.md): where it came from and what kind it is.
 * The schema's CHECK constraints list the same words (test/store/schema-checks.test.ts).
 */

/** Where an incoming message arrived: a phone's `sms:received` webhook, or a provider's inbound webhook. */
export const INBOUND_SOURCES = ['phone', 'twilio', 'telnyx'] as const;

/** A text SMS, a data SMS (binary, base64) or an MMS (its subject only: Herald keeps no media). */
export const INBOUND_KINDS = ['sms', 'data', 'mms'] as const;
export type InboundKind = (typeof INBOUND_KINDS)[number];
