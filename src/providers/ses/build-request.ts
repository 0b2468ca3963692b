/**
 * The SES API v2 SendEmail request (`POST /v2/email/outbound-emails`) for one submission.
 * Pure, so the wire shape is testable without a socket.
 *
 * Content goes as `Simple` (SES builds the MIME message; `Headers` carries List-Unsubscribe
 * and List-Unsubscribe-Post), unless a header cannot be written that way — more than 15
 * headers, or a name or value outside what SES accepts there — when the whole message is built
 * by nodemailer's MailComposer and sent as `Raw`. Herald's idempotency key travels as the
 * message tag `herald_reference`: SES has no idempotency key, but tags come back in every
 * published event, which is how evidence finds a delivery whose send answer was lost.
 */
import MailComposer from 'nodemailer/lib/mail-composer';
import { encodeWords } from 'nodemailer/lib/mime-funcs';
import type { SubmitRequest } from '../provider.js';
import { parseMailbox } from '../../domain/index.js';

export const SEND_EMAIL_PATH = '/v2/email/outbound-emails';
/** The message tag that carries Herald's reference (the delivery's idempotency key). */
export const REFERENCE_TAG = 'herald_reference';

/** SES API v2 MessageTag names and values: ASCII letters, digits, `_` and `-`, at most 256 characters. */
const TAG_VALUE = /^[A-Za-z0-9_-]{1,256}$/;
/** SES API v2 `Message.Headers`: at most 15 (API reference, Message). */
const MAX_SIMPLE_HEADERS = 15;
/** MessageHeader.Name: printable ASCII except `:`, at most 126 characters. */
const HEADER_NAME = /^[\x21-\x39\x3b-\x7e]{1,126}$/;
/** MessageHeader.Value: printable ASCII, at most 870 characters. */
const HEADER_VALUE = /^[\x20-\x7e]{0,870}$/;

export interface SesMessageDefaults {
  from: string;
  replyTo: string | null;
  configurationSet: string | null;
}

/** Whether `value` may be an SES message tag value verbatim. Herald's keys (`hk_` + base64url) always are. */
export function isTagValue(value: string): boolean {
  return TAG_VALUE.test(value);
}

/** An address header for SES's FromEmailAddress / ReplyToAddresses: non-ASCII display names as RFC 2047 words, as SES requires. */
function encodeAddress(value: string): string {
  const parsed = parseMailbox(value);
  if (parsed === null || parsed.name === null) return value.trim();
  const name = /^[\x20-\x7e]*$/.test(parsed.name) ? `"${parsed.name.replace(/(["\\])/g, '\\$1')}"` : encodeWords(parsed.name);
  return `${name} <${parsed.address}>`;
}

function simpleHeadersFit(headers: Record<string, string>): boolean {
  const entries = Object.entries(headers);
  return entries.length <= MAX_SIMPLE_HEADERS && entries.every(([name, value]) => HEADER_NAME.test(name) && HEADER_VALUE.test(value));
}

function rawMessage(request: SubmitRequest, from: string, replyTo: string | null): Promise<Buffer> {
  const { content } = request;
  const composer = new MailComposer({
    from,
    to: request.destination,
    ...(replyTo === null ? {} : { replyTo }),
    subject: content.subject ?? '',
    text: content.text,
    ...(content.html ? { html: content.html } : {}),
    headers: { ...(content.headers ?? {}) },
  });
  return new Promise((resolve, reject) => {
    composer.compile().build((err, message) => (err ? reject(err) : resolve(message)));
  });
}

/**
 * Builds the SendEmail JSON body for one submission with the account's defaults (the
 * producer's from / reply-to win). Resolves with the exact bytes to sign and send.
 */
export async function buildSendEmailBody(request: SubmitRequest, defaults: SesMessageDefaults): Promise<Buffer> {
  const { content } = request;
  const from = content.from ?? defaults.from;
  const replyTo = content.reply_to ?? defaults.replyTo;
  const headers = content.headers ?? {};
  const body: Record<string, unknown> = {
    FromEmailAddress: encodeAddress(from),
    Destination: { ToAddresses: [request.destination] },
  };
  if (replyTo !== null) body.ReplyToAddresses = [encodeAddress(replyTo)];
  if (simpleHeadersFit(headers)) {
    const simple: Record<string, unknown> = {
      // UTF-8 throughout: SES encodes the subject and bodies (Content.Charset).
      Subject: { Data: content.subject ?? '', Charset: 'UTF-8' },
      Body: {
        Text: { Data: content.text, Charset: 'UTF-8' },
        ...(content.html ? { Html: { Data: content.html, Charset: 'UTF-8' } } : {}),
      },
    };
    const list = Object.entries(headers).map(([Name, Value]) => ({ Name, Value }));
    if (list.length > 0) simple.Headers = list;
    body.Content = { Simple: simple };
  } else {
    body.Content = { Raw: { Data: (await rawMessage(request, from, replyTo)).toString('base64') } };
  }
  if (defaults.configurationSet !== null) body.ConfigurationSetName = defaults.configurationSet;
  // A key SES would refuse as a tag is left off rather than failing the send: the MessageId of
  // the answer still matches events; only a lost answer loses its evidence.
  if (isTagValue(request.idempotencyKey)) body.EmailTags = [{ Name: REFERENCE_TAG, Value: request.idempotencyKey }];
  return Buffer.from(JSON.stringify(body));
}
