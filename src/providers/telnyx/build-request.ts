/**
 * What Herald sends Telnyx for one SMS: `POST /v2/messages`, JSON, with Herald's key as
 * `Idempotency-Key` (https://developers.telnyx.com/api/messaging/send-message,
 * https://developers.telnyx.com/docs/development/api-fundamentals/idempotency). Pure, and the
 * same bytes on every attempt of a delivery: Telnyx answers 422 when a key comes back with a
 * body that is not byte-for-byte the original, so nothing time-dependent goes in the body.
 * Telnyx's send has no validity field (its answer's `valid_until` is Telnyx's own), so the
 * challenge clock cannot travel with the message (docs/providers/telnyx.md).
 */
import { createHash } from 'node:crypto';
import type { SubmitRequest } from '../provider.js';
import type { TelnyxSettings } from './settings.js';

export const MESSAGES_PATH = '/v2/messages';

// Letters, digits, `-` and `_`, 1-255. Telnyx's general idempotency page also allows colons,
// but other Telnyx surfaces and keys quoted back in URLs do not; this set fits every reading
// (docs/providers/telnyx.md, "What goes on the wire").
const TELNYX_KEY = /^[A-Za-z0-9_-]{1,255}$/;

/**
 * The Idempotency-Key for Herald's key: the key itself when it is made only of letters, digits,
 * `-` and `_` (Herald's `hk_<base64url>` keys are), else `sha256_<hex>` of it, so every attempt
 * of a delivery still carries one value and different deliveries different ones.
 */
export function telnyxIdempotencyKey(idempotencyKey: string): string {
  return TELNYX_KEY.test(idempotencyKey) ? idempotencyKey : `sha256_${createHash('sha256').update(idempotencyKey).digest('hex')}`;
}

export interface TelnyxMessageOptions {
  settings: Pick<TelnyxSettings, 'from' | 'messagingProfileId'>;
  request: Pick<SubmitRequest, 'destination' | 'content'>;
  /** Where Telnyx should post this message's webhooks, or null to leave them to the messaging profile. */
  webhookUrl: string | null;
}

/** The JSON body of one message. */
export function buildTelnyxMessage(options: TelnyxMessageOptions): Buffer {
  const { settings, request } = options;
  const payload: Record<string, unknown> = {};
  if (settings.from !== null) payload.from = settings.from;
  if (settings.messagingProfileId !== null) payload.messaging_profile_id = settings.messagingProfileId;
  payload.to = request.destination;
  payload.text = request.content.text;
  if (options.webhookUrl !== null) {
    payload.webhook_url = options.webhookUrl;
    // Only Herald's URL: the profile's webhooks would get the same events again, unverified by us.
    payload.use_profile_webhooks = false;
  }
  return Buffer.from(JSON.stringify(payload));
}
