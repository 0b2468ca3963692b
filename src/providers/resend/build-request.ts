/**
 * The body of Resend's `POST /emails` (https://resend.com/docs/api-reference/emails/send-email,
 * resend/resend-openapi `SendEmailRequest`) for one submission. Pure and deterministic: Resend
 * replays an Idempotency-Key's original answer only for the same payload (a different one is
 * 409 `invalid_idempotent_request`), so every attempt of a delivery must build the same bytes.
 */
import type { SubmitRequest } from '../provider.js';

/** The tag that carries Herald's reference (the delivery's idempotency key) back in webhooks. */
export const REFERENCE_TAG = 'herald_reference';
/** The tag that carries the purpose, for Resend's own dashboards. */
export const PURPOSE_TAG = 'herald_purpose';

// Resend's tag names and values: ASCII letters, digits, underscores and dashes, at most 256
// characters (resend-openapi `Tag`). Herald's keys (`hk_` + base64url) always fit.
const TAG_TEXT = /^[A-Za-z0-9_-]{1,256}$/;

/** True when `value` may be a Resend tag name or value. */
export function isTagText(value: string): boolean {
  return TAG_TEXT.test(value);
}

export interface ResendSender {
  from: string;
  replyTo: string | null;
}

/**
 * Builds the JSON body: the message's own from/reply-to over the account's, the text and HTML
 * parts, header fields the worker added (List-Unsubscribe for marketing mail) and the reference
 * and purpose tags. A key outside the tag charset travels only as the Idempotency-Key.
 */
export function buildResendEmail(request: SubmitRequest, sender: ResendSender): Buffer {
  const { content } = request;
  const body: Record<string, unknown> = {
    from: content.from ?? sender.from,
    to: [request.destination],
    subject: content.subject ?? '',
    text: content.text,
  };
  if (content.html !== undefined && content.html !== null) body.html = content.html;
  const replyTo = content.reply_to ?? sender.replyTo;
  if (replyTo !== null) body.reply_to = replyTo;
  if (content.headers && Object.keys(content.headers).length > 0) body.headers = { ...content.headers };
  const tags: Array<{ name: string; value: string }> = [{ name: PURPOSE_TAG, value: request.purpose }];
  if (isTagText(request.idempotencyKey)) tags.unshift({ name: REFERENCE_TAG, value: request.idempotencyKey });
  body.tags = tags;
  return Buffer.from(JSON.stringify(body));
}
