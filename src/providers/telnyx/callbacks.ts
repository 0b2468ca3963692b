/**
 * Telnyx's messaging webhooks, verified with Ed25519
 * (https://developers.telnyx.com/development/api-fundamentals/webhooks): header
 * `telnyx-signature-ed25519` is the base64 signature of `${telnyx-timestamp}|${raw body}` by
 * Telnyx's key; the account lists the public key from the portal. The timestamp must be
 * within 300 s of now (past or future), as Telnyx's own SDK checks. Verified before anything
 * is parsed, with node:crypto; failures name the check, never a value.
 *
 * Body: `{"data": {"event_type": "message.sent" | "message.finalized" | ..., "id": "<event id>",
 * "occurred_at": "<ISO>", "payload": {"id": "<message id>", "to": [{"status": "delivered", ...}],
 * "errors": [...]}, "record_type": "event"}, "meta": {"attempt": 1, ...}}`. The event id
 * `data.id` is the dedupe key: a retried webhook carries the same one.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { DownstreamStatus } from '../../domain/index.js';
import type { CallbackEvent, CallbackParse, CallbackRequest, SyncCallbackVerifier } from '../provider.js';
import { header, malformed, refused } from '../callback-parse.js';

/** Telnyx's tolerance, the same in its SDK: a timestamp more than 300 s from now is refused. */
export const TELNYX_TOLERANCE_MS = 300_000;

/**
 * `to[].status` of an outbound message → downstream status. `delivery_unconfirmed` is final
 * at Telnyx but only says the carrier was handed the message: `sent`. Queued and sending
 * still prove Telnyx holds the message: the lattice's floor, `accepted`.
 */
const RECIPIENT_STATUS: Readonly<Record<string, DownstreamStatus>> = {
  queued: 'accepted',
  sending: 'accepted',
  sent: 'sent',
  delivery_unconfirmed: 'sent',
  delivered: 'delivered',
  read: 'read',
  delivery_failed: 'failed',
  sending_failed: 'failed',
  expired: 'failed',
};

const IDENTIFIER = /^[A-Za-z0-9_-]{1,64}$/;

/** A node:crypto key for a raw 32-byte Ed25519 public key. */
export function ed25519PublicKey(raw: Buffer): KeyObject {
  if (raw.length !== 32) throw new Error('an Ed25519 public key is 32 bytes');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses a verified webhook body into its event (none for event types Herald does not track). */
export function parseTelnyxCallback(rawBody: Buffer): CallbackParse {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return malformed('body is not JSON');
  }
  if (!isObject(body) || !isObject(body.data)) return malformed('data is not an object');
  const data = body.data;
  if (typeof data.id !== 'string' || !IDENTIFIER.test(data.id)) return malformed('data.id is missing or not an identifier');
  if (typeof data.event_type !== 'string') return malformed('data.event_type is missing');
  const eventType = data.event_type;
  // Inbound messages, replaced-link clicks, opt-out notices...: acknowledged, not recorded.
  if (eventType !== 'message.sent' && eventType !== 'message.finalized' && eventType !== 'message.read') return { ok: true, events: [] };
  if (!isObject(data.payload)) return malformed('data.payload is not an object');
  const payload = data.payload;
  if (typeof payload.id !== 'string' || !IDENTIFIER.test(payload.id)) return malformed('data.payload.id is missing or not an identifier');
  let status: DownstreamStatus | undefined;
  if (eventType === 'message.read') status = 'read';
  else {
    const to: unknown = Array.isArray(payload.to) ? (payload.to as unknown[])[0] : undefined;
    const recipientStatus = isObject(to) ? to.status : undefined;
    if (typeof recipientStatus !== 'string') return malformed('data.payload.to[0].status is missing');
    status = RECIPIENT_STATUS[recipientStatus];
    // A status Telnyx may add later: acknowledged, not recorded (a 4xx would only be retried).
    if (status === undefined) return { ok: true, events: [] };
  }
  const occurredAt = typeof data.occurred_at === 'string' ? Date.parse(data.occurred_at) : Number.NaN;
  const event: CallbackEvent = {
    eventId: data.id,
    status,
    providerMessageId: payload.id,
    // Telnyx echoes nothing of Herald's; an unknown settles by resending with the same key.
    reference: null,
    occurredAt: Number.isNaN(occurredAt) ? null : occurredAt,
    suppress: null,
  };
  return { ok: true, events: [event] };
}

/** The verifier for an account's public keys (raw 32 bytes each; the current one first, older ones while rotating). */
export function createTelnyxCallbackVerifier(publicKeys: readonly Buffer[]): SyncCallbackVerifier {
  if (publicKeys.length === 0) throw new Error('a Telnyx callback verifier needs a public key');
  const keys = publicKeys.map(ed25519PublicKey);
  return {
    verify(request: CallbackRequest, nowMs: number): CallbackParse {
      const signature = header(request.headers, 'telnyx-signature-ed25519');
      const timestamp = header(request.headers, 'telnyx-timestamp');
      if (signature === undefined || signature === '') return refused('telnyx-signature-ed25519 is missing');
      if (timestamp === undefined || !/^\d{1,15}$/.test(timestamp)) return refused('telnyx-timestamp is missing or not whole seconds');
      if (Math.abs(nowMs - Number(timestamp) * 1000) > TELNYX_TOLERANCE_MS) return refused('telnyx-timestamp is more than 300 s from now');
      const raw = /^[A-Za-z0-9+/]+={0,2}$/.test(signature) ? Buffer.from(signature, 'base64') : Buffer.alloc(0);
      if (raw.length !== 64) return refused('telnyx-signature-ed25519 is not a base64 Ed25519 signature');
      const signed = Buffer.concat([Buffer.from(`${timestamp}|`, 'utf8'), request.rawBody]);
      // Every key is tried, so the time taken does not say which one matched.
      let ok = false;
      for (const key of keys) ok = verify(null, signed, key, raw) || ok;
      if (!ok) return refused('telnyx-signature-ed25519 does not verify with any configured public key');
      return parseTelnyxCallback(request.rawBody);
    },
  };
}
