/**
 * Postmark's webhooks, authenticated and parsed. Postmark signs nothing: the webhook URL
 * carries HTTP Basic credentials (`https://user:password@herald.example.com/v1/callbacks/<id>`),
 * which arrive as `Authorization: Basic …` and are compared in constant time
 * (https://postmarkapp.com/developer/webhooks/webhooks-overview). A mismatch is 401, not 403:
 * Postmark stops retrying on 403, and a credential fix should let the retries through.
 *
 * Postmark gives no event id, so one is derived from the fields that make an event itself,
 * hashed so no address is kept in it (docs/providers/postmark.md, "Event ids"):
 *   Delivery        sha256 of ["Delivery", MessageID, Recipient, DeliveredAt]
 *   Bounce          sha256 of ["Bounce", MessageID, ID, Type, BouncedAt]   (ID: the bounce's own id)
 *   SpamComplaint   sha256 of ["SpamComplaint", MessageID, ID, Type, BouncedAt]
 * as `pm_` + base64url, each field as the JSON text gives it (a number in decimal). A retried
 * webhook carries the same fields, so it dedupes. Type and BouncedAt ride along because bounce
 * IDs are 64-bit and a JSON number keeps 53 bits: two bounces of one message whose IDs round
 * to the same double still differ in time or type.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { DownstreamStatus } from '../../domain/index.js';
import type { CallbackEvent, CallbackParse, CallbackRequest, SyncCallbackVerifier } from '../provider.js';
import { REFERENCE_FIELD } from './build-request.js';
import { jsonObjectBody, malformed, refused } from '../callback-parse.js';

type Mapping = { status: DownstreamStatus; suppress: CallbackEvent['suppress'] } | null;

/**
 * Bounce `Type`s (postmark.js `BounceType`) and what each means for this message. Hard bounces
 * and invalid addresses suppress; soft and temporary ones do not; failures before sending are
 * `failed`; records about the recipient's replies and not about delivery are ignored. A type
 * not listed is a bounce Herald cannot read: `bounced`, without suppressing.
 */
const BOUNCE_TYPES: Readonly<Record<string, Mapping>> = {
  HardBounce: { status: 'bounced', suppress: 'bounced' },
  BadEmailAddress: { status: 'bounced', suppress: 'bounced' },
  SoftBounce: { status: 'bounced', suppress: null },
  Transient: { status: 'bounced', suppress: null },
  DnsError: { status: 'bounced', suppress: null },
  Unknown: { status: 'bounced', suppress: null },
  Blocked: { status: 'bounced', suppress: null },
  DMARCPolicy: { status: 'bounced', suppress: null },
  ManuallyDeactivated: { status: 'bounced', suppress: null },
  Unconfirmed: { status: 'bounced', suppress: null },
  SpamNotification: { status: 'bounced', suppress: null },
  SMTPApiError: { status: 'failed', suppress: null },
  TemplateRenderingFailed: { status: 'failed', suppress: null },
  AutoResponder: null,
  AddressChange: null,
  Subscribe: null,
  Unsubscribe: null,
  OpenRelayTest: null,
  VirusNotification: null,
  ChallengeVerification: null,
  InboundError: null,
};

/**
 * Record types answered 200 with nothing recorded. Open and Click: a pixel fetched by a
 * privacy proxy (Apple Mail Privacy Protection loads every image on receipt) or a link
 * followed by a security scanner is not a person reading, so `read` would be a guess.
 * SubscriptionChange is about the address, not this message: its HardBounce and SpamComplaint
 * reasons arrive as their own records, and a manual suppression (Postmark's unsubscribe link)
 * has no event in Herald's lattice. Inbound is mail to the server, not from it.
 */
const IGNORED_RECORDS: ReadonlySet<string> = new Set(['Open', 'Click', 'SubscriptionChange', 'Inbound']);

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** The stable event id for the identifying fields of one record. */
export function derivePostmarkEventId(fields: readonly string[]): string {
  return `pm_${digest(JSON.stringify(fields)).toString('base64url')}`;
}

function field(record: Record<string, unknown>, name: string): string | null {
  const value = record[name];
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function time(value: string | null): number | null {
  if (value === null) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

/** Parses one authenticated body into its event (none for records Herald ignores). */
export function parsePostmarkEvent(rawBody: Buffer): CallbackParse {
  const parsed = jsonObjectBody(rawBody);
  if (!parsed.ok) return parsed.refusal;
  const record = parsed.body;
  const type = field(record, 'RecordType');
  if (type === null) return malformed('RecordType is missing');
  if (IGNORED_RECORDS.has(type)) return { ok: true, events: [] };
  if (type !== 'Delivery' && type !== 'Bounce' && type !== 'SpamComplaint') {
    // A record type Postmark adds later: a 4xx would only make it retry what Herald cannot use.
    return { ok: true, events: [] };
  }
  const messageId = field(record, 'MessageID');
  if (messageId === null) return malformed('MessageID is missing');

  let mapping: Mapping;
  let identity: string[];
  let at: string | null;
  if (type === 'Delivery') {
    const recipient = field(record, 'Recipient');
    at = field(record, 'DeliveredAt');
    if (recipient === null || at === null) return malformed('Recipient or DeliveredAt is missing');
    mapping = { status: 'delivered', suppress: null };
    identity = [type, messageId, recipient, at];
  } else {
    const id = field(record, 'ID');
    at = field(record, 'BouncedAt');
    if (id === null) return malformed('ID is missing');
    identity = [type, messageId, id, field(record, 'Type') ?? '', at ?? ''];
    if (type === 'SpamComplaint') mapping = { status: 'complained', suppress: 'complained' };
    else {
      const bounceType = field(record, 'Type');
      if (bounceType === null) return malformed('Type is missing');
      const known = BOUNCE_TYPES[bounceType];
      mapping = known === undefined ? { status: 'bounced', suppress: null } : known;
    }
  }
  if (mapping === null) return { ok: true, events: [] };
  const metadata = record.Metadata;
  const reference = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>)[REFERENCE_FIELD] : undefined;
  const event: CallbackEvent = {
    eventId: derivePostmarkEventId(identity),
    status: mapping.status,
    providerMessageId: messageId,
    reference: typeof reference === 'string' && reference !== '' ? reference : null,
    occurredAt: time(at),
    suppress: mapping.suppress,
  };
  return { ok: true, events: [event] };
}

function authorization(headers: CallbackRequest['headers']): string | null {
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'authorization') continue;
    return typeof value === 'string' ? value : null; // a repeated header is not trusted
  }
  return null;
}

/** One user and password a webhook URL may carry. */
export interface BasicCredentials {
  username: string;
  password: string;
}

/**
 * The verifier for the account's webhook credentials: the current pair first, and the
 * previous one while the webhook URL in Postmark is being changed (rotation). Each pair is
 * hashed before the compare, and every pair is compared, so the time taken says nothing about
 * where or whether they differ.
 */
export function createPostmarkCallbackVerifier(pairs: readonly BasicCredentials[]): SyncCallbackVerifier {
  if (pairs.length === 0) throw new Error('a callback verifier needs at least one pair of credentials');
  if (pairs.some((p) => p.username === '' || p.password === '')) throw new Error('webhook credentials must not be empty');
  const expected = pairs.map((p) => digest(`${p.username}:${p.password}`));
  return {
    verify(request: CallbackRequest): CallbackParse {
      const header = authorization(request.headers);
      const match = header === null ? null : /^Basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(header);
      if (match === null) return refused(header === null ? 'missing_credentials' : 'not_basic_credentials');
      const given = digest(Buffer.from(match[1] ?? '', 'base64').toString('utf8'));
      let matched = false;
      for (const want of expected) matched = timingSafeEqual(given, want) || matched;
      if (!matched) return refused('bad_credentials');
      return parsePostmarkEvent(request.rawBody);
    },
  };
}
