/**
 * A fake of the Amazon SNS side of SES event publishing, for the verifier's tests: signing
 * certificates made by the test (node:crypto keys, certificates by `selfsigned`), served by a
 * real HTTP server on 127.0.0.1, SNS messages signed as SNS signs them (SignatureVersion 1 or 2
 * over the documented fields), and a subscription endpoint that records confirmations.
 *
 * The verifier only ever fetches URLs it accepted as `https://sns.<region>.amazonaws.com/…`;
 * `fetch` is the injected way out that maps exactly those URLs onto the local server (and
 * refuses any other, so a test notices a URL the production rule should have refused). The
 * production rule is never loosened for a test host.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createSign, generateKeyPairSync, randomUUID } from 'node:crypto';
import { generate } from 'selfsigned';
import type { SnsFetch } from '../../../src/providers/ses/sns-certificates.js';

export interface TestCertificate {
  /** PEM certificate, as SNS serves it. */
  pem: string;
  privateKey: string;
  /** The AWS URL it is served at. */
  url: string;
}

export type SnsType = 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';

export interface SnsMessageInput {
  type?: SnsType;
  topicArn: string;
  message: string;
  messageId?: string;
  subject?: string;
  timestampMs: number;
  version?: '1' | '2';
  certificate: TestCertificate;
  /** The URL put in SigningCertURL (default: the certificate's own). */
  signingCertUrl?: string;
  subscribeUrl?: string;
  token?: string;
}

export interface SnsFake {
  /** A new certificate for `region`, valid from `validFrom` to `validTo` (epoch ms), served at its own AWS URL. */
  certificate(region: string, options?: { validFrom?: number; validTo?: number; serve?: boolean }): Promise<TestCertificate>;
  /** A signed SNS message body. */
  message(input: SnsMessageInput): Buffer;
  /** The injected way out (certificates and confirmations). */
  fetch: SnsFetch;
  /** Every URL the verifier fetched, in order. */
  fetched: string[];
  /** The confirmation URLs GET so far. */
  confirmations: string[];
  /** Answers the next confirmation with this status (default 200). */
  nextConfirmationStatus(status: number): void;
  /** From now on every fetch fails as a network fault would. */
  goOffline(): void;
  close(): Promise<void>;
}

const SIGNED_NOTIFICATION = ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'];
const SIGNED_CONFIRMATION = ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];

/** A new RSA key and a certificate for it, valid from `validFrom` to `validTo` (epoch ms), named for its own AWS URL. */
export async function makeTestCertificate(region: string, options: { validFrom?: number; validTo?: number } = {}): Promise<TestCertificate> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPair = {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
  const pems = await generate([{ name: 'commonName', value: 'sns.amazonaws.com' }], {
    keyPair,
    algorithm: 'sha256',
    notBeforeDate: new Date(options.validFrom ?? Date.UTC(2024, 0, 1)),
    notAfterDate: new Date(options.validTo ?? Date.UTC(2030, 0, 1)),
  });
  const path = `/SimpleNotificationService-${randomUUID().replace(/-/g, '')}.pem`;
  return { pem: pems.cert, privateKey: keyPair.privateKey, url: `https://sns.${region}.amazonaws.com${path}` };
}

/** An SNS message body signed as SNS signs it (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA, over the Type's fields). */
export function signSnsMessage(input: SnsMessageInput): Buffer {
  const type = input.type ?? 'Notification';
  const region = input.topicArn.split(':')[3];
  const fields: Record<string, string> = {
    Type: type,
    MessageId: input.messageId ?? randomUUID(),
    TopicArn: input.topicArn,
    Message: input.message,
    Timestamp: new Date(input.timestampMs).toISOString(),
  };
  if (input.subject !== undefined) fields.Subject = input.subject;
  if (type !== 'Notification') {
    fields.Token = input.token ?? `token-${randomUUID()}`;
    fields.SubscribeURL =
      input.subscribeUrl ??
      `https://sns.${region}.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${encodeURIComponent(input.topicArn)}&Token=${fields.Token}`;
  }
  let toSign = '';
  for (const name of type === 'Notification' ? SIGNED_NOTIFICATION : SIGNED_CONFIRMATION) {
    if (fields[name] !== undefined) toSign += `${name}\n${fields[name]}\n`;
  }
  const version = input.version ?? '2';
  const signature = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256')
    .update(toSign, 'utf8')
    .sign(input.certificate.privateKey, 'base64');
  return Buffer.from(
    JSON.stringify({
      ...fields,
      SignatureVersion: version,
      Signature: signature,
      SigningCertURL: input.signingCertUrl ?? input.certificate.url,
      ...(type === 'Notification' ? { UnsubscribeURL: `https://sns.${region}.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${input.topicArn}:sub` } : {}),
    }),
  );
}

/** Starts the certificate and confirmation server. */
export async function startSnsFake(): Promise<SnsFake> {
  const served = new Map<string, string>();
  const fetched: string[] = [];
  const confirmations: string[] = [];
  const statuses: number[] = [];
  const sockets = new Set<Socket>();
  let offline = false;

  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    const [, region = '', rest = ''] = /^\/([^/]+)(\/.*)$/.exec(path) ?? [];
    if (rest.startsWith('/?Action=ConfirmSubscription')) {
      confirmations.push(`https://sns.${region}.amazonaws.com${rest}`);
      const status = statuses.shift() ?? 200;
      res
        .writeHead(status, { 'content-type': 'text/xml' })
        .end(
          '<ConfirmSubscriptionResponse><ConfirmSubscriptionResult><SubscriptionArn>arn</SubscriptionArn></ConfirmSubscriptionResult></ConfirmSubscriptionResponse>',
        );
      return;
    }
    const pem = served.get(`${region}${rest}`);
    if (pem === undefined) res.writeHead(404).end('<Error><Code>NoSuchKey</Code></Error>');
    else res.writeHead(200, { 'content-type': 'application/x-x509-ca-cert' }).end(pem);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fetch: SnsFetch = async (url, signal) => {
    fetched.push(url.href);
    const host = /^sns\.([a-z0-9-]+)\.amazonaws\.com$/.exec(url.hostname);
    if (url.protocol !== 'https:' || host === null) throw new Error(`the verifier fetched a URL that is not SNS's: ${url.href}`);
    if (offline) throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    const local = `http://127.0.0.1:${port}/${host[1]}${url.pathname}${url.search}`;
    const response = await globalThis.fetch(local, { signal });
    return { status: response.status, body: await response.text() };
  };

  return {
    async certificate(region, options = {}) {
      const made = await makeTestCertificate(region, options);
      if (options.serve !== false) served.set(`${region}${new URL(made.url).pathname}`, made.pem);
      return made;
    },
    message: signSnsMessage,
    fetch,
    fetched,
    confirmations,
    nextConfirmationStatus(status) {
      statuses.push(status);
    },
    goOffline() {
      offline = true;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An SES event-publishing record (the `Message` of an SNS notification), shaped as SES sends it. */
export function sesEvent(
  eventType: string,
  mail: { messageId: string; reference?: string | null; destination?: string; timestamp?: string },
  detail: Record<string, unknown> = {},
): string {
  const tags: Record<string, string[]> = { 'ses:configuration-set': ['herald'], 'ses:from-domain': ['example.com'] };
  if (mail.reference) tags.herald_reference = [mail.reference];
  const field =
    {
      Send: 'send',
      Delivery: 'delivery',
      Bounce: 'bounce',
      Complaint: 'complaint',
      Reject: 'reject',
      'Rendering Failure': 'failure',
      DeliveryDelay: 'deliveryDelay',
      Open: 'open',
      Click: 'click',
      Subscription: 'subscription',
    }[eventType] ?? 'unknown';
  return JSON.stringify({
    eventType,
    mail: {
      timestamp: mail.timestamp ?? '2025-01-15T11:59:00.000Z',
      source: 'Herald <no-reply@example.com>',
      sendingAccountId: '123456789012',
      messageId: mail.messageId,
      destination: [mail.destination ?? 'ada@example.com'],
      headersTruncated: false,
      tags,
    },
    [field]: detail,
  });
}
