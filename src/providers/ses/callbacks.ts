/**
 * The SNS verifier of an SES account: every message POSTed to /v1/callbacks/<account> is
 * checked before anything is believed, in this order, and refused with 401 at the first check
 * that fails (nothing is fetched for a message that fails a check before the fetch):
 *
 *  1. the body is an SNS envelope of a known Type with every field its Type signs;
 *  2. TopicArn is one of the account's `settings.sns_topic_arns`;
 *  3. Timestamp is at most 75 min old and 15 min ahead (SNS gives up retrying an HTTP endpoint
 *     after at most 3,600 s, a hard limit; 15 min covers clock skew), so a captured message
 *     cannot be replayed once its event id has left the dedupe window;
 *  4. SigningCertURL is exactly https://sns.<the topic's region>.amazonaws.com/SimpleNotificationService-<digest>.pem;
 *  5. the certificate there (fetched once, cached until it expires) is valid now, and its key
 *     verifies Signature over the Type's signed fields (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA).
 *
 * Then: a SubscriptionConfirmation is confirmed by one GET of its SubscribeURL (which must be
 * https://sns.<region>.amazonaws.com/?Action=ConfirmSubscription for the same topic), at most
 * once per message however often SNS repeats it; an UnsubscribeConfirmation is acknowledged
 * and nothing more (Herald does not resubscribe itself); a Notification's Message is read as
 * an SES event (ses-events.ts) whose event id is the SNS MessageId.
 *
 * A certificate or confirmation that cannot be fetched right now is 503, so SNS retries.
 */
import type { CallbackParse, CallbackRequest } from '../provider.js';
import { CertificateCache, fetchFromSns, type SnsFetch } from './sns-certificates.js';
import { certificateUrl, parseSnsEnvelope, parseTopicArn, signatureMatches, subscribeUrl, type SnsEnvelope, type TopicArn } from './sns-message.js';
import { parseSesEvent } from './ses-events.js';
import { refused } from '../callback-parse.js';

/** SNS's hard limit on an HTTP/S delivery policy's total retry time (SNS Developer Guide, message delivery retries). */
const SNS_MAX_RETRY_MS = 3_600_000;
const CLOCK_SKEW_MS = 15 * 60_000;
/** How old a message's Timestamp may be: SNS's longest retry, plus skew. */
export const SNS_MAX_AGE_MS = SNS_MAX_RETRY_MS + CLOCK_SKEW_MS;
/** Confirmed subscription messages remembered, so a repeated confirmation is not GET again. */
const CONFIRMED_MEMORY = 1_000;

export interface SesCallbackVerifierOptions {
  /** The topics whose notifications this account accepts. */
  topicArns: readonly string[];
  /** The way out to SNS (certificates, confirmations). Default: HTTPS with the platform's fetch. */
  fetch?: SnsFetch;
  /** Per GET. Default 5 s. */
  timeoutMs?: number;
}

function unavailable(detail: string): CallbackParse {
  return { ok: false, status: 503, code: 'service_unavailable', detail };
}

/** Builds the verifier for one account's SNS topics. Throws for a topic ARN that is not one (config validation refuses those first). */
export function createSesCallbackVerifier(options: SesCallbackVerifierOptions): { verify(request: CallbackRequest, nowMs: number): Promise<CallbackParse> } {
  const topics = new Map<string, TopicArn>();
  for (const arn of options.topicArns) {
    const topic = parseTopicArn(arn);
    if (topic === null) throw new Error('sns_topic_arns holds a value that is not an SNS topic ARN');
    topics.set(arn, topic);
  }
  if (topics.size === 0) throw new Error('an SNS verifier needs at least one topic ARN');
  const fetch = options.fetch ?? fetchFromSns;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const certificates = new CertificateCache({ fetch, timeoutMs });
  const confirmed = new Set<string>();
  const confirming = new Map<string, Promise<CallbackParse>>();

  const confirm = async (envelope: SnsEnvelope, url: URL): Promise<CallbackParse> => {
    let status: number;
    try {
      status = (await fetch(url, AbortSignal.timeout(timeoutMs))).status;
    } catch (error) {
      return unavailable(`the subscription could not be confirmed (${(error as Error).name}); SNS will retry`);
    }
    if (status !== 200) return unavailable(`SNS answered HTTP ${status} to the subscription confirmation`);
    if (confirmed.size >= CONFIRMED_MEMORY) confirmed.clear();
    confirmed.add(envelope.MessageId);
    return { ok: true, events: [] };
  };

  const verify = async (request: CallbackRequest, nowMs: number): Promise<CallbackParse> => {
    const parsed = parseSnsEnvelope(request.rawBody);
    if (!parsed.ok) return refused(parsed.detail);
    const { envelope, timestampMs } = parsed;
    const topic = topics.get(envelope.TopicArn);
    if (topic === undefined) return refused("TopicArn is not one of this account's sns_topic_arns");
    if (timestampMs < nowMs - SNS_MAX_AGE_MS) return refused('Timestamp is older than SNS retries a message');
    if (timestampMs > nowMs + CLOCK_SKEW_MS) return refused('Timestamp is in the future');
    const certUrl = certificateUrl(envelope.SigningCertURL, topic);
    if (certUrl === null) return refused("SigningCertURL is not an SNS certificate URL of the topic's region");
    const certificate = await certificates.publicKey(certUrl, nowMs);
    if (!certificate.ok) return certificate.reason === 'unavailable' ? unavailable(certificate.detail) : refused(certificate.detail);
    if (!signatureMatches(envelope, certificate.key)) return refused('Signature does not verify');

    switch (envelope.Type) {
      case 'Notification':
        return parseSesEvent(envelope.Message, envelope.MessageId, timestampMs);
      case 'UnsubscribeConfirmation':
        return { ok: true, events: [] };
      case 'SubscriptionConfirmation': {
        const url = subscribeUrl(envelope.SubscribeURL ?? '', envelope.TopicArn, topic);
        // Signed by SNS, yet not an SNS confirmation URL: never follow it (an SSRF lever otherwise).
        if (url === null)
          return { ok: false, status: 400, code: 'callback_malformed', detail: "SubscribeURL is not an SNS confirmation URL of the topic's region" };
        if (confirmed.has(envelope.MessageId)) return { ok: true, events: [] };
        let pending = confirming.get(envelope.MessageId);
        if (!pending) {
          pending = confirm(envelope, url).finally(() => confirming.delete(envelope.MessageId));
          confirming.set(envelope.MessageId, pending);
        }
        return pending;
      }
    }
  };

  return { verify };
}
