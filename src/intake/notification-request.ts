/**
 * The body of POST /v1/notifications: its JSON schema (Fastify validates shape and rejects
 * unknown fields) and the checks a schema cannot express (E.164, e-mail domains, clocks,
 * one address per requested channel). Every failure names its field.
 */
import {
  otpSmsFormatError,
  parseMailbox,
  scheduleOf,
  isTimeZone,
  DEFAULT_SEND_AT_HORIZON_MS,
  CHANNELS,
  FALLBACK_EVIDENCE,
  LADDER_NAMES,
  PURPOSES,
  type Channel,
  type FallbackEvidence,
  type LadderName,
  type Purpose,
} from '../domain/index.js';
import { fieldError, HeraldError } from '../errors.js';
import type { RecipientInput } from '../store/store.js';
import type { MessageContent } from '../domain/index.js';
import { INVALID_PHONE_MESSAGE, readPhoneNumber, type PhoneNumberFacts } from './phone-number.js';

export interface NotificationRequest {
  recipient: RecipientInput;
  purpose: Purpose;
  channels: Channel[];
  content?: MessageContent;
  template?: { id: string; version?: number; locale?: string; data?: Record<string, unknown> };
  expires_at?: string;
  ttl_seconds?: number;
  /** When it becomes due (RFC 3339); absent or past: now (docs/scheduling.md, "Send later"). */
  send_at?: string;
  group?: { key: string; generation: number };
  metadata?: Record<string, unknown>;
  fallback_after_seconds?: number;
  fallback_evidence?: FallbackEvidence;
  retry?: { ladder: LadderName };
  /** Per channel, the provider account to send through instead of the channel's first one. */
  provider_accounts?: Partial<Record<Channel, string>>;
}

/** How long a message stays useful when the producer does not say: a code for minutes, a newsletter for days. */
export const DEFAULT_TTL_SECONDS: Record<Purpose, number> = {
  otp: 10 * 60,
  alert: 60 * 60,
  conversational: 24 * 3600,
  transactional: 24 * 3600,
  marketing: 3 * 24 * 3600,
};
export const MAX_TTL_SECONDS = 30 * 24 * 3600;

export const notificationRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['recipient', 'purpose', 'channels'],
  properties: {
    recipient: {
      type: 'object',
      additionalProperties: false,
      required: ['id'],
      properties: {
        id: { type: 'string', minLength: 1, maxLength: 200 },
        email: { type: 'string', minLength: 3, maxLength: 254 },
        phone: { type: 'string', minLength: 2, maxLength: 20, description: 'E.164, e.g. +14155550123' },
        push_token: { type: 'string', minLength: 1, maxLength: 4096 },
        locale: { type: 'string', pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$' },
        time_zone: {
          type: 'string',
          minLength: 1,
          maxLength: 64,
          description:
            "The recipient's IANA time zone (e.g. Europe/Berlin), for quiet hours (docs/scheduling.md); an offset such as +01:00 is refused. Default: the stored profile's, else the tenant's.",
        },
      },
    },
    purpose: { type: 'string', enum: [...PURPOSES] },
    channels: { type: 'array', minItems: 1, maxItems: CHANNELS.length, uniqueItems: true, items: { type: 'string', enum: [...CHANNELS] } },
    content: {
      type: 'object',
      additionalProperties: false,
      required: ['text'],
      properties: {
        subject: { type: 'string', minLength: 1, maxLength: 998 },
        text: { type: 'string', minLength: 1, maxLength: 65536 },
        html: { type: 'string', minLength: 1, maxLength: 196608 },
        from: {
          type: 'string',
          minLength: 3,
          maxLength: 320,
          description:
            "E-mail only: the sender, `Name <address>` or an address, instead of the account's from (its domain must be one the provider lets the account send from).",
        },
        reply_to: {
          type: 'string',
          minLength: 3,
          maxLength: 320,
          description: "E-mail only: where replies go, `Name <address>` or an address, instead of the account's reply_to.",
        },
        otp: {
          type: 'object',
          additionalProperties: false,
          required: ['code'],
          description:
            "SMS, purpose otp: the code in the text, to mark up for WebOTP and Android's SMS Retriever (the SMS account's otp_sms_format gives the defaults).",
          properties: {
            code: { type: 'string', minLength: 4, maxLength: 10 },
            webotp_domain: { type: 'string', minLength: 1, maxLength: 253 },
            app_hash: { type: 'string', minLength: 11, maxLength: 11 },
          },
        },
      },
    },
    template: {
      type: 'object',
      additionalProperties: false,
      required: ['id'],
      properties: {
        id: { type: 'string', minLength: 1, maxLength: 64 },
        version: { type: 'integer', minimum: 1, description: 'Pinned now; the published version when absent.' },
        locale: {
          type: 'string',
          pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
          description: "Instead of recipient.locale; falls back pt-BR → pt → the template's default.",
        },
        data: { type: 'object', description: 'The Liquid variables; an undefined one is an error (422 template_render_failed).' },
      },
    },
    expires_at: { type: 'string', format: 'date-time' },
    send_at: {
      type: 'string',
      format: 'date-time',
      description:
        'When the message becomes due (up to scheduling.send_at_horizon_days ahead, 30 by default); until then its deliveries are ready and cancellable. ttl_seconds counts from it; an expires_at must be after it.',
    },
    ttl_seconds: { type: 'integer', minimum: 1, maximum: MAX_TTL_SECONDS },
    group: {
      type: 'object',
      additionalProperties: false,
      required: ['key', 'generation'],
      properties: {
        // `ntf:`, `cmp:` and `inb:` are reserved: a notification without a group is its own group `ntf:<id>`,
        // campaign fan-out names its groups `cmp:<campaign id>:<recipient id>`, and the automatic reply to
        // an incoming HELP or STOP is `inb:<incoming message id>` (the send-time check lets a STOP's own
        // confirmation through its suppression by that group, so a producer must not be able to name it).
        key: { type: 'string', minLength: 1, maxLength: 200, pattern: '^(?!ntf:|cmp:|inb:)' },
        generation: { type: 'integer', minimum: 1, maximum: 2147483647 },
      },
    },
    metadata: { type: 'object', maxProperties: 50 },
    fallback_after_seconds: {
      type: 'integer',
      minimum: 1,
      maximum: 86400,
      description:
        'Send the channels one after another: the next channel starts only if the previous one has not reached fallback_evidence this long after it started.',
    },
    fallback_evidence: { type: 'string', enum: [...FALLBACK_EVIDENCE], description: 'What counts as "got through" for fallback. Default accepted.' },
    provider_accounts: {
      type: 'object',
      additionalProperties: false,
      description:
        "Per channel, the id of the provider account to send through (GET /v1/provider-accounts); without it, the channel's first configured account.",
      properties: Object.fromEntries(CHANNELS.map((c) => [c, { type: 'string', minLength: 1, maxLength: 63 }])),
    },
    retry: {
      type: 'object',
      additionalProperties: false,
      required: ['ladder'],
      properties: { ladder: { type: 'string', enum: [...LADDER_NAMES], description: "Retry this notification on another purpose's ladder." } },
    },
  },
} as const;

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** The address a channel sends to, or null when the recipient has none. */
export function destinationFor(channel: Channel, recipient: RecipientInput): string | null {
  switch (channel) {
    case 'email':
      return recipient.email ?? null;
    case 'sms':
      return recipient.phone ?? null;
    case 'push':
      return recipient.push_token ?? null;
  }
}

const ADDRESS_FIELD: Record<Channel, string> = { email: 'recipient.email', sms: 'recipient.phone', push: 'recipient.push_token' };

/**
 * Checks what the schema cannot and returns the notification's expiry (epoch ms).
 * Throws a HeraldError naming the first bad field.
 */
export interface CheckedRequest {
  expiresAt: number;
  /** When its deliveries become due: `send_at` if it is ahead, else now. */
  dueAt: number;
  /** Sequential channels, or null when every channel is sent at once. */
  fallback: { afterMs: number; evidence: FallbackEvidence } | null;
  /** `recipient.phone` as its one parse read it (null without a phone): the SMS limits take it from here. */
  phone: PhoneNumberFacts | null;
}

/**
 * The first address of a recipient that is present but malformed (`field` is `email` or
 * `phone`), or null: the checks intake makes, shared with audience uploads and stored profiles.
 */
export function recipientAddressError(r: RecipientInput): { field: 'email' | 'phone'; message: string } | null {
  const checked = checkRecipientAddresses(r);
  return 'field' in checked ? checked : null;
}

/** `recipientAddressError`'s check, keeping what the phone number's parse read for the SMS limits. */
function checkRecipientAddresses(r: RecipientInput): { field: 'email' | 'phone'; message: string } | { phone: PhoneNumberFacts | null } {
  if (r.email != null && !EMAIL.test(r.email)) return { field: 'email', message: 'must be an e-mail address with a domain, e.g. ada@example.com' };
  if (r.phone == null) return { phone: null };
  const phone = readPhoneNumber(r.phone);
  return phone === null ? { field: 'phone', message: INVALID_PHONE_MESSAGE } : { phone };
}

/** What is wrong with a time zone that is not an IANA name (intake's refusal, an audience row's problem). */
export const TIME_ZONE_MESSAGE = 'must be an IANA time zone name, e.g. Europe/Berlin (an offset such as +01:00 has no daylight-saving rules)';

/**
 * Refuses a recipient time zone that is not an IANA name this Node knows (`invalid_time_zone`,
 * naming `field`): quiet hours in a misspelt or offset zone would hold messages at the wrong hours.
 */
export function checkTimeZone(zone: string | null | undefined, field: string): void {
  if (zone == null || isTimeZone(zone)) return;
  throw new HeraldError('invalid_time_zone', `${field} ${TIME_ZONE_MESSAGE}`, [{ field, message: TIME_ZONE_MESSAGE }]);
}

export function checkNotificationRequest(body: NotificationRequest, now: number, horizonMs: number = DEFAULT_SEND_AT_HORIZON_MS): CheckedRequest {
  const r = body.recipient;
  const addresses = checkRecipientAddresses(r);
  if ('field' in addresses) throw fieldError(`recipient.${addresses.field}`, addresses.message);
  checkTimeZone(r.time_zone, 'recipient.time_zone');
  for (const channel of body.channels) {
    // A push channel without push_token goes to the recipient's registered subscriptions: intake looks them up.
    if (channel !== 'push' && destinationFor(channel, r) === null) {
      throw fieldError(ADDRESS_FIELD[channel], `is required for the ${channel} channel`);
    }
  }
  // A template reference was rendered into `content` before these checks (IntakeService.renderTemplate).
  if (body.template !== undefined) throw fieldError('template', 'and content are exclusive: give one');
  if (body.content === undefined) throw fieldError('content', 'is required (or a template)');
  for (const channel of Object.keys(body.provider_accounts ?? {})) {
    if (!body.channels.includes(channel as Channel)) throw fieldError(`provider_accounts.${channel}`, 'names an account for a channel not in channels');
  }
  if (body.channels.includes('email') && body.content.subject === undefined) {
    throw fieldError('content.subject', 'is required for the email channel');
  }
  const otp = body.content.otp as { code: string; webotp_domain?: string; app_hash?: string } | null | undefined;
  if (otp != null) {
    if (body.purpose !== 'otp' || !body.channels.includes('sms')) throw fieldError('content.otp', 'applies only to purpose otp on the sms channel');
    const problem = otpSmsFormatError({ webotpDomain: otp.webotp_domain ?? null, appHash: otp.app_hash ?? null }, otp.code);
    if (problem) throw fieldError(`content.otp.${problem.split(' ')[0]}`, problem.slice(problem.indexOf(' ') + 1));
    if (!body.content.text.includes(otp.code)) throw fieldError('content.otp.code', 'must appear in content.text');
  }
  for (const field of ['from', 'reply_to'] as const) {
    const value = body.content[field];
    if (value == null) continue;
    if (!body.channels.includes('email')) throw fieldError(`content.${field}`, 'applies only to the email channel');
    if (parseMailbox(value) === null) throw fieldError(`content.${field}`, 'must be an e-mail address or `Name <address>`, e.g. "Ada <ada@example.com>"');
  }
  if (body.expires_at !== undefined && body.ttl_seconds !== undefined) {
    throw fieldError('expires_at', 'and ttl_seconds are exclusive: give one');
  }
  const { dueAt, expiresAt } = scheduleOfRequest(body, now, horizonMs);
  if (body.metadata !== undefined && JSON.stringify(body.metadata).length > 16_384) {
    throw fieldError('metadata', 'must serialize to at most 16 KiB');
  }
  let fallback: CheckedRequest['fallback'] = null;
  if (body.fallback_after_seconds !== undefined) {
    if (body.channels.length < 2) throw fieldError('fallback_after_seconds', 'needs at least two channels to fall back between');
    const afterMs = body.fallback_after_seconds * 1000;
    // A fallback that could only start at or after expiry would never be created: say so now.
    if (dueAt + afterMs >= expiresAt) throw fieldError('fallback_after_seconds', 'must be shorter than the time until expires_at');
    fallback = { afterMs, evidence: body.fallback_evidence ?? 'accepted' };
  } else if (body.fallback_evidence !== undefined) {
    throw fieldError('fallback_evidence', 'applies only with fallback_after_seconds');
  }
  return { expiresAt, dueAt, fallback, phone: addresses.phone };
}

/**
 * When a request is due and when it expires (`scheduleOf`), or the refusal naming its field:
 * `send_at` beyond the horizon or at or after `expires_at` has a problem code of its own.
 */
function scheduleOfRequest(body: NotificationRequest, now: number, horizonMs: number): { dueAt: number; expiresAt: number } {
  const sendAt = body.send_at === undefined ? undefined : Date.parse(body.send_at);
  if (sendAt !== undefined && Number.isNaN(sendAt)) throw fieldError('send_at', 'must be an RFC 3339 date-time');
  const expiresAt = body.expires_at === undefined ? undefined : Date.parse(body.expires_at);
  if (expiresAt !== undefined && Number.isNaN(expiresAt)) throw fieldError('expires_at', 'must be an RFC 3339 date-time');
  const s = scheduleOf({
    now,
    ...(sendAt === undefined ? {} : { sendAt }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ttlMs: (body.ttl_seconds ?? DEFAULT_TTL_SECONDS[body.purpose]) * 1000,
    horizonMs,
    maxLifetimeMs: MAX_TTL_SECONDS * 1000,
  });
  if (s.ok) return { dueAt: s.dueAt, expiresAt: s.expiresAt };
  switch (s.problem) {
    case 'send_at_beyond_horizon': {
      const days = Math.floor(horizonMs / 86_400_000);
      throw new HeraldError('send_at_beyond_horizon', `send_at is more than ${days} days ahead`, [
        { field: 'send_at', message: `must be at most ${days} days ahead` },
      ]);
    }
    case 'send_at_after_expiry':
      throw new HeraldError('send_at_after_expiry', 'send_at is at or after expires_at: the message would expire before it may go', [
        { field: 'send_at', message: 'must be before expires_at' },
      ]);
    case 'expires_in_past':
      throw fieldError('expires_at', 'is in the past');
    case 'expires_beyond_lifetime':
      throw fieldError('expires_at', sendAt === undefined ? 'is more than 30 days ahead' : 'is more than 30 days after send_at');
  }
}
