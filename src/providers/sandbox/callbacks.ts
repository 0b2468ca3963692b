/**
 * Verification and parsing of the sandbox's delivery callbacks: Standard Webhooks signatures
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`) checked over the raw bytes before
 * anything is parsed, then one JSON event per request:
 *
 *   {"type":"message.<status>","timestamp":"<ISO>","data":{"event_id":"evt_…",
 *    "provider_message_id":"…","reference":"<idempotency key, optional>","channel":"sms",
 *    "status":"<status>","bounce_type":"hard" (optional)}}
 *
 * Details in failures name the check that failed, never a value from the body.
 */
import { DOWNSTREAM_STATUSES, isChannel, type DownstreamStatus } from '../../domain/index.js';
import type { CallbackEvent, CallbackParse, SyncCallbackVerifier } from '../provider.js';
import { standardWebhooksVerifier } from '../callback-secrets.js';
import { jsonObjectBody, malformed } from '../callback-parse.js';

/** The statuses a sandbox callback may carry: the lattice's, except `accepted` (the send's answer, never a callback). */
const CALLBACK_STATUSES: ReadonlySet<string> = new Set<DownstreamStatus>(DOWNSTREAM_STATUSES.filter((s) => s !== 'accepted'));

// Shared with every kind whose provider signs with a listed secret: src/providers/callback-secrets.ts.
export { resolveCallbackSecrets } from '../callback-secrets.js';

function optionalString(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Parses a verified body into one event, or explains (without quoting it) why it cannot. */
export function parseSandboxCallback(rawBody: Buffer, webhookId: string): CallbackParse {
  const parsed = jsonObjectBody(rawBody);
  if (!parsed.ok) return parsed.refusal;
  const { type, timestamp, data } = parsed.body;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return malformed('data is not an object');
  const fields = data as Record<string, unknown>;
  const status = fields.status;
  if (typeof status !== 'string' || !CALLBACK_STATUSES.has(status)) return malformed('data.status is not a callback status');
  if (type !== `message.${status}`) return malformed('type does not match data.status');
  if (typeof fields.event_id !== 'string' || fields.event_id === '') return malformed('data.event_id is missing');
  // The signature covers webhook-id and body together; a disagreement is a sender bug, and
  // the dedupe key must be one value.
  if (fields.event_id !== webhookId) return malformed('data.event_id differs from webhook-id');
  const occurredAt = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
  if (Number.isNaN(occurredAt)) return malformed('timestamp is not an ISO 8601 time');
  const providerMessageId = optionalString(fields.provider_message_id);
  const reference = optionalString(fields.reference);
  if (providerMessageId === undefined) return malformed('data.provider_message_id is not a string');
  if (reference === undefined) return malformed('data.reference is not a string');
  if (providerMessageId === null && reference === null) {
    return malformed('neither data.provider_message_id nor data.reference is given');
  }
  if (fields.channel !== undefined && !isChannel(fields.channel)) return malformed('data.channel is not a channel');
  const bounceType = fields.bounce_type;
  if (bounceType !== undefined && bounceType !== 'hard' && bounceType !== 'soft') {
    return malformed('data.bounce_type is neither hard nor soft');
  }
  let suppress: CallbackEvent['suppress'] = null;
  if (status === 'bounced' && bounceType === 'hard') suppress = 'bounced';
  else if (status === 'complained') suppress = 'complained';
  const event: CallbackEvent = {
    eventId: fields.event_id,
    status: status as DownstreamStatus,
    providerMessageId,
    reference,
    occurredAt,
    suppress,
  };
  return { ok: true, events: [event] };
}

/** Builds the verifier for an account's secrets (the current one first, older ones while rotating); it answers synchronously. */
export function createSandboxCallbackVerifier(secrets: readonly string[]): SyncCallbackVerifier {
  return standardWebhooksVerifier(secrets, parseSandboxCallback);
}
