/**
 * What Herald sends Twilio for one SMS: `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`,
 * form-encoded (https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource).
 * Pure, so the shape is testable without a socket.
 */
import type { SubmitRequest } from '../provider.js';
import type { TwilioSettings } from './settings.js';

/** Twilio's largest ValidityPeriod: 36,000 s (error 21624: "integers between 1 and 36,000 seconds"). */
export const TWILIO_MAX_VALIDITY_S = 36_000;

/** The query parameter of the StatusCallback URL that carries Herald's idempotency key. */
export const REFERENCE_PARAM = 'ref';

/** The Messages resource of an account, relative to the API's origin. */
export function messagesPath(accountSid: string): string {
  return `/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`;
}

/**
 * The ValidityPeriod for a message that expires at `expiresAt`, sent at `nowMs` with a request
 * that may take up to `timeoutMs` to reach Twilio: whole seconds, rounded down, measured from
 * the latest moment Twilio can receive the request (Twilio counts from receipt), so Twilio's
 * own deadline is never after `expiresAt`. Capped at Twilio's 36,000 s. Null when less than
 * Twilio's minimum of 1 s would remain: then nothing may be sent, because any ValidityPeriod
 * Twilio accepts would let it deliver after expiry.
 */
export function validityPeriodSeconds(expiresAt: number, nowMs: number, timeoutMs: number): number | null {
  const seconds = Math.floor((expiresAt - nowMs - Math.max(0, timeoutMs)) / 1000);
  if (!Number.isFinite(seconds) || seconds < 1) return null;
  return Math.min(seconds, TWILIO_MAX_VALIDITY_S);
}

/**
 * The StatusCallback for one delivery: the account's callback URL with Herald's idempotency
 * key as `ref`. Twilio signs the whole URL, query included, so the reference comes back
 * authenticated on every status callback, and a callback can be matched to its delivery even
 * when the send's answer (with the message SID) was lost.
 */
export function statusCallbackUrl(callbackUrl: string, idempotencyKey: string): string {
  const url = new URL(callbackUrl);
  url.searchParams.set(REFERENCE_PARAM, idempotencyKey);
  return url.href;
}

export interface TwilioMessageOptions {
  settings: Pick<TwilioSettings, 'accountSid' | 'from' | 'messagingServiceSid'>;
  request: Pick<SubmitRequest, 'destination' | 'content'>;
  validityPeriod: number;
  /** The StatusCallback URL, or null to ask for none. */
  statusCallback: string | null;
}

/** The form body of one message. A Messaging Service, when configured, picks the sender; `From` is sent only without one. */
export function buildTwilioMessage(options: TwilioMessageOptions): { path: string; body: Buffer } {
  const { settings, request } = options;
  const form = new URLSearchParams();
  form.set('To', request.destination);
  form.set('Body', request.content.text);
  if (settings.messagingServiceSid !== null) form.set('MessagingServiceSid', settings.messagingServiceSid);
  else if (settings.from !== null) form.set('From', settings.from);
  form.set('ValidityPeriod', String(options.validityPeriod));
  if (options.statusCallback !== null) form.set('StatusCallback', options.statusCallback);
  return { path: messagesPath(settings.accountSid), body: Buffer.from(form.toString()) };
}
