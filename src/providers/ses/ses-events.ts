/**
 * SES sending events (the `Message` of an SNS notification from a configuration set's event
 * destination) as downstream evidence. Pure. Source: "Contents of event data that Amazon SES
 * publishes to Amazon SNS" (SES Developer Guide). Identity feedback notifications
 * (`notificationType` instead of `eventType`, no tags) are read the same way.
 *
 * | SES event | downstream | suppress |
 * |---|---|---|
 * | Send | sent | |
 * | DeliveryDelay | sent (SES holds it and keeps trying) | |
 * | Delivery | delivered | |
 * | Open, Click | delivered (a pixel or link fetch proves the mail arrived; image proxies and link scanners make them no proof of a reader) | |
 * | Bounce, Permanent | bounced | bounced |
 * | Bounce, Transient or Undetermined | bounced (SES publishes a soft bounce only once it gave up) | |
 * | Complaint | complained (feedback type `not-spam`: delivered) | complained |
 * | Reject, Rendering Failure | failed | |
 * | Subscription, anything else | no event (recorded as nothing, answered 200) | |
 */
import type { DownstreamStatus } from '../../domain/index.js';
import type { CallbackEvent, CallbackParse } from '../provider.js';
import { isTagValue, REFERENCE_TAG } from './build-request.js';
import { malformed } from '../callback-parse.js';

type Mapping = { status: DownstreamStatus; suppress: CallbackEvent['suppress']; detailField: string | null };

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function time(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

/** The downstream meaning of one event, or null for an event that carries none. */
function mapping(eventType: string, event: Record<string, unknown>): Mapping | null | 'malformed' {
  switch (eventType) {
    case 'Send':
      return { status: 'sent', suppress: null, detailField: 'send' };
    case 'DeliveryDelay':
      return { status: 'sent', suppress: null, detailField: 'deliveryDelay' };
    case 'Delivery':
      return { status: 'delivered', suppress: null, detailField: 'delivery' };
    case 'Open':
      return { status: 'delivered', suppress: null, detailField: 'open' };
    case 'Click':
      return { status: 'delivered', suppress: null, detailField: 'click' };
    case 'Bounce': {
      const bounceType = record(event.bounce)?.bounceType;
      if (bounceType === 'Permanent') return { status: 'bounced', suppress: 'bounced', detailField: 'bounce' };
      if (bounceType === 'Transient' || bounceType === 'Undetermined') return { status: 'bounced', suppress: null, detailField: 'bounce' };
      return 'malformed';
    }
    case 'Complaint': {
      const complaint = record(event.complaint);
      if (complaint === null) return 'malformed';
      // A feedback report that says the mail was not spam is no complaint, but it does show the mail arrived.
      if (complaint.complaintFeedbackType === 'not-spam') return { status: 'delivered', suppress: null, detailField: 'complaint' };
      return { status: 'complained', suppress: 'complained', detailField: 'complaint' };
    }
    case 'Reject':
      return { status: 'failed', suppress: null, detailField: 'reject' };
    case 'Rendering Failure':
      return { status: 'failed', suppress: null, detailField: 'failure' };
    default:
      return null;
  }
}

/**
 * Parses an SES event into at most one callback event with `eventId` (the SNS MessageId,
 * stable across SNS retries). `fallbackTimeMs` (the SNS Timestamp) is used when the event
 * names no time of its own.
 */
export function parseSesEvent(message: string, eventId: string, fallbackTimeMs: number): CallbackParse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return malformed('Message is not an SES event (not JSON)');
  }
  const event = record(parsed);
  if (event === null) return malformed('Message is not an SES event (not an object)');
  const eventType = event.eventType ?? event.notificationType;
  if (typeof eventType !== 'string' || eventType === '') return malformed('Message has no eventType');
  const mail = record(event.mail);
  if (mail === null) {
    // SNS's own test notification on a feedback topic has no mail: nothing to record.
    if (eventType === 'AmazonSnsSubscriptionSucceeded') return { ok: true, events: [] };
    return malformed('Message has no mail object');
  }
  const meaning = mapping(eventType, event);
  if (meaning === 'malformed') return malformed(`${eventType} event lacks its ${eventType.toLowerCase()} object`);
  if (meaning === null) return { ok: true, events: [] };
  const providerMessageId = typeof mail.messageId === 'string' && mail.messageId !== '' ? mail.messageId : null;
  const tags = record(mail.tags);
  const tagged = tags?.[REFERENCE_TAG];
  const first: unknown = Array.isArray(tagged) ? (tagged as unknown[])[0] : undefined;
  const reference = typeof first === 'string' && isTagValue(first) ? first : null;
  if (providerMessageId === null && reference === null) return malformed(`mail has neither messageId nor the ${REFERENCE_TAG} tag`);
  const detail = meaning.detailField === null ? null : record(event[meaning.detailField]);
  const occurredAt = time(detail?.timestamp) ?? time(mail.timestamp) ?? fallbackTimeMs;
  return { ok: true, events: [{ eventId, status: meaning.status, providerMessageId, reference, occurredAt, suppress: meaning.suppress }] };
}
