/**
 * Amazon SNS HTTP(S) messages: the JSON envelope, the string each message type signs, and the
 * rules a message's URLs must follow before Herald fetches them. Pure: no I/O (the certificate
 * is fetched by sns-certificates.ts), so every rule is testable on its own.
 *
 * Sources: "Verifying the signatures of Amazon SNS messages" and the HTTP/HTTPS
 * notification, subscription and unsubscribe confirmation JSON formats (SNS Developer Guide).
 * Signed fields, each as `Name\nValue\n`, in this order:
 *   Notification: Message, MessageId, Subject (only if present), Timestamp, TopicArn, Type
 *   SubscriptionConfirmation, UnsubscribeConfirmation: Message, MessageId, SubscribeURL,
 *     Timestamp, Token, TopicArn, Type
 * SignatureVersion 1 signs SHA1withRSA, 2 SHA256withRSA; there is no other.
 */
import { verify as verifySignature, type KeyObject } from 'node:crypto';
import { TOPIC_ARN_PATTERN } from './settings.js';

export type SnsMessageType = 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';

export interface SnsEnvelope {
  Type: SnsMessageType;
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: '1' | '2';
  Signature: string;
  SigningCertURL: string;
  Subject?: string;
  /** Confirmations only. */
  SubscribeURL?: string;
  Token?: string;
}

export type EnvelopeParse = { ok: true; envelope: SnsEnvelope; timestampMs: number } | { ok: false; detail: string };

const TYPES: ReadonlySet<string> = new Set<SnsMessageType>(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation']);
const NOTIFICATION_FIELDS = ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'] as const;
const CONFIRMATION_FIELDS = ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'] as const;
/** SNS writes ISO 8601 UTC with milliseconds (`2012-04-25T21:49:25.719Z`). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
/** The certificate path SNS uses: `/SimpleNotificationService-<hex digest>.pem`. */
const CERTIFICATE_PATH = /^\/SimpleNotificationService-[A-Za-z0-9]{1,128}\.pem$/;

function text(fields: Record<string, unknown>, name: string): string | undefined {
  const value = fields[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Reads the envelope from the raw body. Every failure here is before any signature could be
 * checked, so details name the field, never a value.
 */
export function parseSnsEnvelope(rawBody: Buffer): EnvelopeParse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return { ok: false, detail: 'body is not an SNS message (not JSON)' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, detail: 'body is not an SNS message (not an object)' };
  const fields = parsed as Record<string, unknown>;
  const type = text(fields, 'Type');
  if (type === undefined || !TYPES.has(type)) return { ok: false, detail: 'Type is not an SNS message type' };
  const required =
    type === 'Notification'
      ? ['MessageId', 'TopicArn', 'Message', 'Timestamp', 'Signature', 'SigningCertURL']
      : ['MessageId', 'TopicArn', 'Message', 'Timestamp', 'Signature', 'SigningCertURL', 'SubscribeURL', 'Token'];
  for (const name of required) {
    if (text(fields, name) === undefined || text(fields, name) === '') return { ok: false, detail: `${name} is missing` };
  }
  const version = text(fields, 'SignatureVersion');
  if (version !== '1' && version !== '2') return { ok: false, detail: 'SignatureVersion is neither 1 nor 2' };
  if (fields.Subject !== undefined && fields.Subject !== null && typeof fields.Subject !== 'string') return { ok: false, detail: 'Subject is not a string' };
  const timestamp = text(fields, 'Timestamp') ?? '';
  const timestampMs = TIMESTAMP.test(timestamp) ? Date.parse(timestamp) : Number.NaN;
  if (Number.isNaN(timestampMs)) return { ok: false, detail: 'Timestamp is not an ISO 8601 UTC time' };
  return { ok: true, envelope: fields as unknown as SnsEnvelope, timestampMs };
}

/** The exact string SNS signed for this message. */
export function stringToSign(envelope: SnsEnvelope): string {
  const fields = envelope.Type === 'Notification' ? NOTIFICATION_FIELDS : CONFIRMATION_FIELDS;
  let out = '';
  for (const name of fields) {
    const value = envelope[name];
    if (typeof value === 'string') out += `${name}\n${value}\n`;
  }
  return out;
}

/** True when `signature` (base64) is SNS's signature of the envelope under `publicKey`. */
export function signatureMatches(envelope: SnsEnvelope, publicKey: KeyObject): boolean {
  const signature = Buffer.from(envelope.Signature, 'base64');
  if (signature.length === 0) return false;
  const algorithm = envelope.SignatureVersion === '1' ? 'sha1' : 'sha256';
  try {
    return verifySignature(algorithm, Buffer.from(stringToSign(envelope), 'utf8'), publicKey, signature);
  } catch {
    return false;
  }
}

export interface TopicArn {
  partition: 'aws' | 'aws-cn' | 'aws-us-gov';
  region: string;
  accountId: string;
  name: string;
}

/** Reads an SNS topic ARN; null when it is not one. */
export function parseTopicArn(arn: string): TopicArn | null {
  if (!new RegExp(TOPIC_ARN_PATTERN).test(arn)) return null;
  const [, partition, , region, accountId, name] = arn.split(':');
  return { partition: partition as TopicArn['partition'], region: region!, accountId: accountId!, name: name! };
}

/** The one host SNS serves a topic's certificates and confirmations from: `sns.<region>.amazonaws.com` (`.com.cn` in China). */
export function snsHost(topic: TopicArn): string {
  return `sns.${topic.region}.amazonaws.com${topic.partition === 'aws-cn' ? '.cn' : ''}`;
}

function strictHttpsUrl(value: string, host: string): URL | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  // No userinfo, no port (not even :443 spelled out), the topic's own regional SNS host: a
  // look-alike (`sns.us-east-1.amazonaws.com.evil.test`, `evil.test/sns.us-east-1.amazonaws.com`)
  // fails the host comparison, http fails the scheme.
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.port !== '' || url.hostname !== host) return null;
  // What the WHATWG parser normalised away (`https://sns…:443/`, a trailing dot, `\`) is refused too.
  if (!value.startsWith(`https://${host}/`)) return null;
  return url;
}

/** The certificate URL, when it is `https://<topic's SNS host>/SimpleNotificationService-<digest>.pem` exactly; else null. */
export function certificateUrl(value: string, topic: TopicArn): URL | null {
  const url = strictHttpsUrl(value, snsHost(topic));
  if (url === null || url.search !== '' || url.hash !== '' || !CERTIFICATE_PATH.test(url.pathname)) return null;
  return url;
}

/** The SubscribeURL, when it confirms this topic at the topic's SNS host (`/?Action=ConfirmSubscription&TopicArn=…&Token=…`); else null. */
export function subscribeUrl(value: string, topicArn: string, topic: TopicArn): URL | null {
  const url = strictHttpsUrl(value, snsHost(topic));
  if (url === null || url.pathname !== '/' || url.hash !== '') return null;
  const q = url.searchParams;
  if (q.get('Action') !== 'ConfirmSubscription' || q.get('TopicArn') !== topicArn || (q.get('Token') ?? '') === '') return null;
  return url;
}
