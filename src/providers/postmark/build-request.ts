/**
 * The body of Postmark's `POST /email` (https://postmarkapp.com/developer/api/email-api,
 * ActiveCampaign/postmark.js `Message`) for one submission. Pure. Herald's reference (the
 * delivery's idempotency key) travels as custom `Metadata`, which Postmark stores with the
 * message, returns in every webhook and lets the Messages API search by
 * (https://postmarkapp.com/support/article/1125-custom-metadata-faq): that is the look-up.
 */
import type { SubmitRequest } from '../provider.js';
import { streamFor, type PostmarkSettings } from './settings.js';

/** The metadata field holding Herald's reference; searched as `metadata_herald_reference`. */
export const REFERENCE_FIELD = 'herald_reference';

/** Builds the JSON body: sender, recipient, parts, worker-added headers, reference, stream by purpose, purpose as Tag. */
export function buildPostmarkEmail(
  request: SubmitRequest,
  settings: Pick<PostmarkSettings, 'from' | 'replyTo' | 'transactionalStream' | 'broadcastStream'>,
): Buffer {
  const { content } = request;
  const body: Record<string, unknown> = {
    From: content.from ?? settings.from,
    To: request.destination,
    Subject: content.subject ?? '',
    TextBody: content.text,
  };
  if (content.html !== undefined && content.html !== null) body.HtmlBody = content.html;
  const replyTo = content.reply_to ?? settings.replyTo;
  if (replyTo !== null) body.ReplyTo = replyTo;
  if (content.headers && Object.keys(content.headers).length > 0) {
    body.Headers = Object.entries(content.headers).map(([Name, Value]) => ({ Name, Value }));
  }
  // One tag per message in Postmark: the purpose, for its dashboards and stats.
  body.Tag = request.purpose;
  body.Metadata = { [REFERENCE_FIELD]: request.idempotencyKey };
  body.MessageStream = streamFor(request.purpose, settings);
  return Buffer.from(JSON.stringify(body));
}
