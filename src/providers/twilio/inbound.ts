/**
 * Twilio's incoming-message webhook, the number's "A message comes in" URL: a form-encoded POST
 * with `MessageSid`, `AccountSid`, `From`, `To`, `Body`, `NumMedia`...
 * (https://www.twilio.com/docs/messaging/guides/webhook-request), signed with
 * X-Twilio-Signature exactly as status callbacks are (signature.ts), and checked over the raw
 * bytes before anything is read. Twilio expects TwiML back: an empty `<Response/>` sends
 * nothing, one `<Message>` is one reply to the sender from the same number. A 200 with TwiML
 * is also what stops Twilio logging error 12300 / 11200 for the request.
 */
import type { InboundParse, InboundReceiver } from '../provider.js';
import { header, malformed, refused } from '../callback-parse.js';
import { parseFormParams, verifyTwilioSignature } from './signature.js';

// Twilio's SIDs (SM…, MM…) and anything of their alphabet: the dedupe key Herald stores.
const IDENTIFIER = /^[A-Za-z0-9_-]{1,64}$/;

function single(params: Map<string, string[]>, name: string): string | null | undefined {
  const values = params.get(name);
  if (values === undefined || values.length === 0) return null;
  return values.length === 1 ? values[0] : undefined;
}

/** Reads a verified incoming-message request: MessageSid and From are required, To and Body kept when present. */
export function parseTwilioInbound(params: Map<string, string[]>): InboundParse {
  // Older numbers' webhooks also carry SmsMessageSid (the same value); MessageSid is the documented one.
  const sid = single(params, 'MessageSid') ?? single(params, 'SmsMessageSid');
  if (sid === undefined || sid === null || !IDENTIFIER.test(sid)) return malformed('MessageSid is missing or not an identifier');
  const from = single(params, 'From');
  if (from === undefined || from === null || from === '') return malformed('From is missing');
  const to = single(params, 'To');
  if (to === undefined) return malformed('To is repeated');
  const body = single(params, 'Body');
  if (body === undefined) return malformed('Body is repeated');
  return { ok: true, message: { externalId: sid, from, to: to === '' ? null : to, text: body, receivedAt: null } };
}

const XML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** The TwiML Twilio expects: nothing to send, or one `<Message>` with `reply` as its text. */
export function twiml(reply: string | null): string {
  const head = '<?xml version="1.0" encoding="UTF-8"?>';
  if (reply === null) return `${head}<Response/>`;
  return `${head}<Response><Message>${reply.replace(/[&<>"']/g, (c) => XML_ESCAPES[c] ?? c)}</Message></Response>`;
}

/** The inbound receiver of an account whose requests are signed with one of `authTokens` (as its status callbacks). */
export function createTwilioInboundReceiver(authTokens: readonly string[]): InboundReceiver {
  const tokens = authTokens.filter((t) => t !== '');
  if (tokens.length === 0) throw new Error('a Twilio inbound receiver needs an Auth Token');
  return {
    source: 'twilio',
    verify(request): InboundParse {
      const signature = header(request.headers, 'x-twilio-signature');
      if (signature === undefined || signature === '') return refused('X-Twilio-Signature is missing');
      const params = parseFormParams(request.rawBody);
      if (!verifyTwilioSignature(tokens, signature, request.url, params)) {
        return refused('X-Twilio-Signature does not match the URL and parameters for any configured Auth Token');
      }
      return parseTwilioInbound(params);
    },
    answer: (reply) => ({ contentType: 'text/xml; charset=utf-8', body: twiml(reply) }),
  };
}
