/**
 * Resend's webhooks, verified and parsed. Resend signs through Svix, which is Standard Webhooks
 * under other header names (`svix-id`, `svix-timestamp`, `svix-signature`; `whsec_` secrets;
 * `v1,<base64 HMAC-SHA256("<id>.<timestamp>.<raw body>")>`): src/signing/standard-webhooks.ts
 * checks them, with its 5-minute tolerance (Svix's too). The event id is `svix-id`, the same on
 * every retry of one event. Bodies are `{"type", "created_at", "data"}` (resend/resend-openapi
 * "Webhook Events"); the mapping to the downstream lattice is in docs/providers/resend.md.
 */
import type { DownstreamStatus } from '../../domain/index.js';
import type { CallbackEvent, CallbackParse, SyncCallbackVerifier } from '../provider.js';
import { standardWebhooksVerifier } from '../callback-secrets.js';
import { REFERENCE_TAG } from './build-request.js';
import { jsonObjectBody, malformed } from '../callback-parse.js';

/** What an e-mail event means on the lattice; null for events Herald records nothing for. */
type Mapping = { status: DownstreamStatus; suppress: CallbackEvent['suppress'] } | null;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The Herald reference among an event's tags. Resend's webhook schema gives tags as a
 * name-to-value object; older payloads (and the send request) use `[{name, value}]`: both read.
 */
function referenceTag(tags: unknown): string | null {
  if (Array.isArray(tags)) {
    for (const tag of tags) {
      if (isObject(tag) && tag.name === REFERENCE_TAG && typeof tag.value === 'string' && tag.value !== '') return tag.value;
    }
    return null;
  }
  if (isObject(tags)) {
    const value = tags[REFERENCE_TAG];
    return typeof value === 'string' && value !== '' ? value : null;
  }
  return null;
}

/** Bounce `type` Permanent is a hard bounce (suppress); Transient and Undetermined are not. */
function bounceMapping(data: Record<string, unknown>): Mapping | undefined {
  const bounce = data.bounce;
  if (bounce === undefined) return { status: 'bounced', suppress: null };
  if (!isObject(bounce) || (bounce.type !== undefined && typeof bounce.type !== 'string')) return undefined;
  return { status: 'bounced', suppress: bounce.type === 'Permanent' ? 'bounced' : null };
}

/**
 * `email.suppressed`: Resend did not send because the address is on its suppression list,
 * for an earlier bounce or complaint. Not sent is `failed`; the reason carries over to
 * Herald's own list, since Resend will refuse the address again.
 */
function suppressedMapping(data: Record<string, unknown>): Mapping {
  const reason = isObject(data.suppressed) ? data.suppressed.reason : undefined;
  if (reason === 'previous_complaint') return { status: 'failed', suppress: 'complained' };
  if (reason === 'previous_bounce') return { status: 'failed', suppress: 'bounced' };
  return { status: 'failed', suppress: null };
}

/**
 * The lattice status of an e-mail event; null to ignore it (answered 200, nothing recorded);
 * undefined when its data is malformed. Ignored: `email.opened` and `email.clicked` (a pixel
 * fetched by a privacy proxy, as Apple Mail Privacy Protection does on receipt, or a link
 * followed by a security scanner is not a person reading, so `read` would be a guess),
 * `email.scheduled` (Resend's own scheduling, unused) and `email.received` (inbound mail).
 */
function mapEmailEvent(type: string, data: Record<string, unknown>): Mapping | undefined {
  switch (type) {
    // "The API request was successful and Resend will attempt to deliver": sent from Herald's side.
    case 'email.sent':
      return { status: 'sent', suppress: null };
    // The receiving server deferred it; Resend keeps trying. It has left Resend: no further than sent.
    case 'email.delivery_delayed':
      return { status: 'sent', suppress: null };
    case 'email.delivered':
      return { status: 'delivered', suppress: null };
    case 'email.bounced':
      return bounceMapping(data);
    case 'email.complained':
      return { status: 'complained', suppress: 'complained' };
    // e.g. reached_daily_quota: Resend gave up on it; an account matter, not the address's.
    case 'email.failed':
      return { status: 'failed', suppress: null };
    case 'email.suppressed':
      return suppressedMapping(data);
    default:
      // Opens, clicks and the rest; also event types Resend adds later: a 4xx would only make
      // Svix retry an event Herald cannot use.
      return null;
  }
}

/** Parses one verified body into its event (none for events Herald ignores), never quoting the body. */
export function parseResendEvent(rawBody: Buffer, svixId: string): CallbackParse {
  const parsed = jsonObjectBody(rawBody);
  if (!parsed.ok) return parsed.refusal;
  const { type, created_at: createdAt, data } = parsed.body;
  if (typeof type !== 'string' || type === '') return malformed('type is missing');
  // contact.* and domain.* events are about the audience and the domains, not a message.
  if (!type.startsWith('email.')) return { ok: true, events: [] };
  if (!isObject(data)) return malformed('data is not an object');
  const mapping = mapEmailEvent(type, data);
  if (mapping === undefined) return malformed('data.bounce is malformed');
  if (mapping === null) return { ok: true, events: [] };
  const emailId = data.email_id;
  if (typeof emailId !== 'string' || emailId === '') return malformed('data.email_id is missing');
  const occurredAt = typeof createdAt === 'string' ? Date.parse(createdAt) : Number.NaN;
  const event: CallbackEvent = {
    eventId: svixId,
    status: mapping.status,
    providerMessageId: emailId,
    reference: referenceTag(data.tags),
    occurredAt: Number.isNaN(occurredAt) ? null : occurredAt,
    suppress: mapping.suppress,
  };
  return { ok: true, events: [event] };
}

/**
 * The verifier for an account's webhook signing secrets (`whsec_...`, the current one first and
 * the previous one while rotating): any listed secret verifies. Svix's headers are read, and
 * Standard Webhooks' `webhook-*` ones when those are absent (Svix sends both forms).
 */
export function createResendCallbackVerifier(secrets: readonly string[]): SyncCallbackVerifier {
  return standardWebhooksVerifier(secrets, parseResendEvent, (h) =>
    h['svix-id'] !== undefined || h['svix-timestamp'] !== undefined || h['svix-signature'] !== undefined
      ? { 'webhook-id': h['svix-id'], 'webhook-timestamp': h['svix-timestamp'], 'webhook-signature': h['svix-signature'] }
      : h,
  );
}
