/**
 * The message Herald hands an SMTP server for one delivery: its envelope and its MIME bytes
 * (built with nodemailer's MailComposer, which encodes display names and non-ASCII text and
 * folds lines). Content that cannot be sent as asked is refused here, before any connection:
 * an HTML part over the account's limit, a sender or reply address override that is not one
 * mailbox.
 */
import { createHash } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { mailboxDomain, parseMailbox, type Mailbox, type SubmitOutcome } from '../../domain/index.js';
import type { SubmitRequest } from '../provider.js';
import type { SmtpSettings } from './settings.js';

/** The header carrying Herald's reference (the delivery's idempotency key) on every message. */
export const REFERENCE_HEADER = 'X-Herald-Reference';

/**
 * The Message-ID of a delivery: a hash of its idempotency key at `domain`, so every attempt of
 * one delivery carries the same Message-ID (RFC 5322 §3.6.4) and two deliveries never share
 * one. 128 bits of SHA-256 in hex: unique among any number of messages Herald will send.
 */
export function messageIdFor(idempotencyKey: string, domain: string): string {
  const hash = createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 32);
  return `<${hash}@${domain}>`;
}

/** Header fields Herald writes itself: `content.headers` may not set them. */
const OWN_HEADERS: ReadonlySet<string> = new Set(
  [
    'from',
    'sender',
    'to',
    'cc',
    'bcc',
    'reply-to',
    'subject',
    'message-id',
    'date',
    'mime-version',
    'content-type',
    'content-transfer-encoding',
    'return-path',
    REFERENCE_HEADER,
  ].map((h) => h.toLowerCase()),
);
// RFC 5322 §3.6.8: a field name is printable ASCII without ':' and space.
const FIELD_NAME = /^[!-9;-~]+$/;
// eslint-disable-next-line no-control-regex -- a header value with a line break could start another header
const HEADER_BREAK = /[\r\n\u0000]/;

export interface BuiltMessage {
  envelope: { from: string; to: string[]; size: number };
  raw: Buffer;
  messageId: string;
}

export type BuildResult = { ok: true; message: BuiltMessage } | { ok: false; outcome: SubmitOutcome };

function refuse(reason: 'content_rejected' | 'other', code: string, message: string): BuildResult {
  return { ok: false, outcome: { kind: 'permanent', reason, code, message } };
}

/** A producer's override of an account address: null when not given, 'invalid' when it is not one mailbox. */
function override(value: string | null | undefined): Mailbox | null | 'invalid' {
  if (value === undefined || value === null) return null;
  return parseMailbox(value) ?? 'invalid';
}

/**
 * Builds one delivery's message: From (the notification's `content.from`, else the account's
 * `from`, with its display name), Reply-To (likewise), To, Subject, a text part and an HTML
 * part, `content.headers` (List-Unsubscribe and List-Unsubscribe-Post for marketing), the
 * derived Message-ID and X-Herald-Reference. `maxHtmlBytes` is the account's limit.
 */
export async function buildMessage(request: SubmitRequest, settings: SmtpSettings, maxHtmlBytes: number | undefined): Promise<BuildResult> {
  const { content } = request;
  if (content.html != null && maxHtmlBytes !== undefined) {
    const bytes = Buffer.byteLength(content.html, 'utf8');
    if (bytes > maxHtmlBytes)
      return refuse(
        'content_rejected',
        'smtp_html_too_large',
        `the HTML part is ${bytes} bytes, over this account's max_html_bytes (${maxHtmlBytes}); nothing was sent`,
      );
  }
  const fromOverride = override(content.from);
  const replyOverride = override(content.reply_to);
  // Intake validates both; a value that does not parse here was stored some other way.
  if (fromOverride === 'invalid') return refuse('other', 'smtp_invalid_from', 'content.from is not a mailbox; nothing was sent');
  if (replyOverride === 'invalid') return refuse('other', 'smtp_invalid_reply_to', 'content.reply_to is not a mailbox; nothing was sent');
  const from = fromOverride ?? settings.from;
  const replyTo = replyOverride ?? settings.replyTo;

  const headers: Array<{ key: string; value: { prepared: true; value: string } }> = [];
  for (const [name, value] of Object.entries(content.headers ?? {})) {
    if (!FIELD_NAME.test(name) || OWN_HEADERS.has(name.toLowerCase())) continue;
    if (HEADER_BREAK.test(value)) return refuse('other', 'smtp_invalid_header', `header ${name} contains a line break; nothing was sent`);
    // Prepared: written as given (a List-Unsubscribe URL must reach the recipient byte for byte).
    headers.push({ key: name, value: { prepared: true, value } });
  }
  headers.push({ key: REFERENCE_HEADER, value: { prepared: true, value: request.idempotencyKey } });

  const messageId = messageIdFor(request.idempotencyKey, settings.messageIdDomain ?? mailboxDomain(from));
  const composer = new MailComposer({
    from: { name: from.name ?? '', address: from.address },
    to: request.destination,
    ...(replyTo === null ? {} : { replyTo: { name: replyTo.name ?? '', address: replyTo.address } }),
    subject: content.subject ?? '',
    text: content.text,
    ...(content.html == null ? {} : { html: content.html }),
    headers,
    messageId,
    // Content is text Herald holds, never a path or a URL for nodemailer to read.
    disableFileAccess: true,
    disableUrlAccess: true,
    newline: 'windows',
  });
  let raw: Buffer;
  try {
    raw = await composer.compile().build();
  } catch (err) {
    // MailComposer refuses what it cannot encode; the same content would be refused again.
    const code = (err as { code?: unknown }).code;
    return refuse('other', 'smtp_message_build_failed', `the message could not be built${typeof code === 'string' ? ` (${code})` : ''}; nothing was sent`);
  }
  return { ok: true, message: { envelope: { from: from.address, to: [request.destination], size: raw.length }, raw, messageId } };
}
