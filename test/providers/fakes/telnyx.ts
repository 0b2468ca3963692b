/**
 * A fake of Telnyx's `POST /v2/messages`, behind the fault proxy. It refuses what Telnyx
 * refuses, in Telnyx's error format (`{"errors": [{"code", "title", "detail"}]}`): a missing or
 * wrong Bearer key (401 10009), a body that is not JSON (400 10015), `to` missing (10004) or not
 * E.164 (400 40310, quoting the number as Telnyx's detail does), `text` missing (10004),
 * neither `from` nor `messaging_profile_id` (10004), a `from` the account does not own (400
 * 40305), an Idempotency-Key outside `^[A-Za-z0-9_:-]{1,255}$` (400 10015). Idempotency as
 * Telnyx documents it: a key seen with a successful answer replays that answer (no second
 * message) for 24 h; the same key with a body that is not byte-for-byte the same is 422 while
 * the record exists; failures are not recorded; a repeat while the first request with the key
 * is still being worked on (scripted `accept_held`, finished by `release()`) is 409 "a request
 * with this key is already in progress" (Telnyx publishes no error code for it, so the fake
 * sends none the adapter could lean on). It answers `GET /v2/phone_numbers` and
 * `/v2/messaging_profiles` for `herald doctor`, and posts webhooks signed as Telnyx signs them
 * (Ed25519 over `${timestamp}|${body}`) with a key pair of its own.
 */
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReceivedSubmission, ScriptedAnswer } from '../conformance/adapter-subject.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { jsonObject } from './http-fake.js';
import { httpRequestLength, parseHttpRequestHead } from './http-framing.js';
import { isTransportFault, scriptTransportFault, type DefiniteAnswer } from './proxy-faults.js';

const E164 = /^\+[1-9]\d{1,14}$/;
const KEY_FORMAT = /^[A-Za-z0-9_:-]{1,255}$/;
const DAY_MS = 24 * 3_600_000;

/** A fresh Ed25519 key pair: the private key signs, `publicKey` is what the portal shows (base64, 32 bytes). */
export function telnyxKeyPair(): { privateKey: KeyObject; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  return { privateKey, publicKey: Buffer.from(x, 'base64url').toString('base64') };
}

/** Signs a webhook body as Telnyx does: base64 Ed25519 over `${timestamp}|${body}`. */
export function signTelnyxWebhook(privateKey: KeyObject, rawBody: Buffer, timestampSeconds: number): Record<string, string> {
  const signature = sign(null, Buffer.concat([Buffer.from(`${timestampSeconds}|`), rawBody]), privateKey).toString('base64');
  return { 'content-type': 'application/json', 'telnyx-signature-ed25519': signature, 'telnyx-timestamp': String(timestampSeconds) };
}

/** A messaging webhook body as Telnyx lays it out (`data.id` is the event's id, `data.payload.id` the message's). */
export function telnyxWebhookBody(event: {
  eventId: string;
  eventType: string;
  messageId: string;
  to: string;
  status: string;
  occurredAt: Date;
  errors?: Array<{ code: string; title: string }>;
}): Buffer {
  return Buffer.from(
    JSON.stringify({
      data: {
        event_type: event.eventType,
        id: event.eventId,
        occurred_at: event.occurredAt.toISOString(),
        payload: {
          id: event.messageId,
          record_type: 'message',
          direction: 'outbound',
          type: 'SMS',
          to: [{ phone_number: event.to, status: event.status, carrier: 'T-MOBILE USA, INC.', line_type: 'Wireless' }],
          errors: event.errors ?? [],
        },
        record_type: 'event',
      },
      meta: { attempt: 1, delivered_to: 'https://herald.example/v1/callbacks/telnyx' },
    }),
  );
}

export interface TelnyxFakeOptions {
  apiKey: string;
  numbers: readonly string[];
  messagingProfiles?: readonly string[];
}

export interface FakeTelnyxMessage {
  id: string;
  payload: Record<string, unknown>;
  idempotencyKey: string | null;
}

export interface TelnyxFake {
  url: string;
  proxy: FaultProxy;
  /** The public key Telnyx would show in the portal for this fake's webhooks. */
  publicKey: string;
  privateKey: KeyObject;
  /** Messages the fake created (a replayed key creates none). */
  messages: FakeTelnyxMessage[];
  /** Every send that reached the fake, with the Idempotency-Key it carried. */
  sends: Array<{ idempotencyKey: string | null; body: Buffer }>;
  /** Moves the fake's clock (the 24 h idempotency window) forward. */
  advance: (ms: number) => void;
  script: (answer: ScriptedAnswer) => Promise<void>;
  received: () => Promise<ReceivedSubmission[]>;
  acceptedIds: () => Promise<string[]>;
  /** Finishes every `accept_held` send: creates its message and records its key (its answer stays lost). */
  release: () => Promise<void>;
  /** A signed webhook for one message, as Telnyx would post it to its webhook_url. */
  webhook: (
    messageId: string,
    eventType: 'message.sent' | 'message.finalized',
    status: string,
    options?: { eventId?: string; atMs?: number },
  ) => { url: string; headers: Record<string, string>; rawBody: Buffer };
  /** Posts that webhook to the message's webhook_url (or to `deliverTo`); answers the status. */
  postWebhook: (
    messageId: string,
    eventType: 'message.sent' | 'message.finalized',
    status: string,
    options?: { eventId?: string; deliverTo?: string },
  ) => Promise<number>;
  close: () => Promise<void>;
}

function telnyxError(res: ServerResponse, status: number, code: string, title: string, detail: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ errors: [{ code, title, detail, meta: { url: `https://developers.telnyx.com/docs/overview/errors/${code}` } }] }));
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startTelnyxFake(options: TelnyxFakeOptions): Promise<TelnyxFake> {
  const { privateKey, publicKey } = telnyxKeyPair();
  const messages: FakeTelnyxMessage[] = [];
  const sends: TelnyxFake['sends'] = [];
  const scripted: DefiniteAnswer[] = [];
  // Idempotency records: successful answers only, by key (one organisation, one path).
  const records = new Map<string, { body: Buffer; answer: string; at: number }>();
  const inProgress = new Set<string>();
  const held: Array<() => void> = [];
  let skew = 0;
  const now = (): number => Date.now() + skew;

  const answerScripted = (res: ServerResponse, answer: DefiniteAnswer, to: string): void => {
    switch (answer.kind) {
      case 'accept':
        return;
      case 'permanent':
        return telnyxError(res, 400, '40310', "Invalid 'to' address", `The 'to' address ${to} is invalid.`);
      case 'retryable':
        return telnyxError(res, 500, '10007', 'Unexpected error', 'An unexpected error occured.');
      case 'throttled': {
        const headers: Record<string, string> = {};
        if (answer.hint === 'retry_after_seconds') headers['retry-after'] = String(answer.seconds);
        if (answer.hint === 'retry_after_date') headers['retry-after'] = new Date(Date.now() + answer.seconds * 1000).toUTCString();
        if (answer.hint === 'provider_header')
          Object.assign(headers, { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(answer.seconds) });
        return telnyxError(res, 429, '10011', 'Too many requests', 'You have exceeded the maximum number of allowed requests.', headers);
      }
    }
  };

  const send = (req: IncomingMessage, res: ServerResponse, raw: Buffer): void => {
    const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
    sends.push({ idempotencyKey: key, body: raw });
    const payload = jsonObject(raw.toString('utf8'));
    if (payload === null) return telnyxError(res, 400, '10015', 'Bad Request', 'The request failed because it was not well-formed.');
    const to = typeof payload.to === 'string' ? payload.to : '';
    const next = scripted.shift();
    if (next !== undefined && next.kind !== 'accept' && next.kind !== 'accept_held') return answerScripted(res, next, to);
    if (key !== null && !KEY_FORMAT.test(key)) return telnyxError(res, 400, '10015', 'Bad Request', 'Idempotency-Key has an invalid format.');
    if (key !== null && inProgress.has(key)) {
      res.writeHead(409, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors: [{ title: 'Conflict', detail: 'A request with this key is already in progress.' }] }));
      return;
    }
    if (key !== null) {
      const record = records.get(key);
      if (record !== undefined && now() - record.at < DAY_MS) {
        if (!record.body.equals(raw))
          return telnyxError(res, 422, '10015', 'Idempotency key reuse', 'The request does not match the original request for this Idempotency-Key.');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(record.answer);
        return;
      }
    }
    if (req.headers['content-type']?.startsWith('application/json') !== true)
      return telnyxError(res, 400, '10014', 'Unsupported Media Type', 'Content-Type must be application/json.');
    if (to === '') return telnyxError(res, 400, '10004', 'Missing required parameter', "The 'to' parameter is required.");
    if (!E164.test(to)) return telnyxError(res, 400, '40310', "Invalid 'to' address", `The 'to' address ${to} is invalid.`);
    if (typeof payload.text !== 'string' || payload.text === '')
      return telnyxError(res, 400, '10004', 'Missing required parameter', "The 'text' parameter is required for SMS.");
    const from = typeof payload.from === 'string' ? payload.from : null;
    const profile = typeof payload.messaging_profile_id === 'string' ? payload.messaging_profile_id : null;
    if (from === null && profile === null)
      return telnyxError(res, 400, '10004', 'Missing required parameter', "Either 'from' or 'messaging_profile_id' is required.");
    if (from !== null && !options.numbers.includes(from))
      return telnyxError(res, 400, '40305', "Invalid 'from' address", `The 'from' address ${from} is not a number of this account.`);
    if (profile !== null && !(options.messagingProfiles ?? []).includes(profile))
      return telnyxError(res, 400, '10017', 'Associated resource does not exist', 'The messaging profile does not exist.');
    if (payload.webhook_url !== undefined) {
      let ok = false;
      try {
        ok = typeof payload.webhook_url === 'string' && /^https?:$/.test(new URL(payload.webhook_url).protocol);
      } catch {
        ok = false;
      }
      if (!ok) return telnyxError(res, 400, '10003', 'Invalid URL', 'The URL provided was invalid, malformed, or too long.');
    }
    const id = randomUUID();
    const answer = JSON.stringify({
      data: {
        record_type: 'message',
        direction: 'outbound',
        id,
        type: 'SMS',
        messaging_profile_id: profile ?? '4000017c-0000-4000-8000-000000000000',
        from: { phone_number: from, carrier: 'Telnyx', line_type: 'Wireless' },
        to: [{ phone_number: to, status: 'queued', carrier: 'T-MOBILE USA, INC.', line_type: 'Wireless' }],
        text: payload.text,
        webhook_url: payload.webhook_url ?? null,
        encoding: 'GSM-7',
        parts: 1,
        errors: [],
        valid_until: new Date(now() + 3_600_000).toISOString(),
      },
    });
    const create = (): void => {
      messages.push({ id, payload, idempotencyKey: key });
      if (key !== null) records.set(key, { body: raw, answer, at: now() });
    };
    if (next?.kind === 'accept_held') {
      // Telnyx is still working on it: the key is in progress and the answer never comes.
      if (key !== null) inProgress.add(key);
      held.push(() => {
        if (key !== null) inProgress.delete(key);
        create();
      });
      return;
    }
    create();
    res.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '49', 'x-ratelimit-reset': '1' });
    res.end(answer);
  };

  const server = http.createServer((req, res) => {
    void readBody(req).then((raw) => {
      if (req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return telnyxError(
          res,
          401,
          '10009',
          'Authentication failed',
          'The required authentication headers were either invalid or not included in the request.',
        );
      }
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.pathname === '/v2/messages' && req.method === 'POST') return send(req, res, raw);
      if (url.pathname === '/v2/phone_numbers' && req.method === 'GET') {
        const wanted = url.searchParams.get('filter[phone_number]');
        const data = options.numbers
          .filter((n) => wanted === null || n === wanted)
          .map((n) => ({ phone_number: n, record_type: 'phone_number', status: 'active' }));
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ data, meta: { total_results: data.length } }));
      }
      const profile = /^\/v2\/messaging_profiles(?:\/([^/]+))?$/.exec(url.pathname);
      if (profile && req.method === 'GET') {
        const list = options.messagingProfiles ?? [];
        if (profile[1] !== undefined && !list.includes(decodeURIComponent(profile[1])))
          return telnyxError(res, 404, '10005', 'Resource not found', 'The requested resource or URL could not be found.');
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify(profile[1] !== undefined ? { data: { id: profile[1], record_type: 'messaging_profile' } } : { data: list.map((id) => ({ id })) }),
        );
      }
      return telnyxError(res, 404, '10005', 'Resource not found', 'The requested resource or URL could not be found.');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const proxy = await startFaultProxy({ upstream: { host: '127.0.0.1', port }, frame: httpRequestLength });

  const webhook: TelnyxFake['webhook'] = (messageId, eventType, status, o = {}) => {
    const message = messages.find((m) => m.id === messageId);
    if (!message) throw new Error(`the fake has no message ${messageId}`);
    const url = message.payload.webhook_url;
    if (typeof url !== 'string') throw new Error(`message ${messageId} asked for no webhook_url`);
    const atMs = o.atMs ?? Date.now();
    const rawBody = telnyxWebhookBody({
      eventId: o.eventId ?? randomUUID(),
      eventType,
      messageId,
      to: String(message.payload.to),
      status,
      occurredAt: new Date(atMs),
    });
    return { url, headers: signTelnyxWebhook(privateKey, rawBody, Math.floor(atMs / 1000)), rawBody };
  };

  return {
    url: proxy.url,
    proxy,
    publicKey,
    privateKey,
    messages,
    sends,
    advance(ms) {
      skew += ms;
    },
    async script(answer) {
      // Definite answers wait for the next send; transport faults arm the proxy.
      if (isTransportFault(answer)) scriptTransportFault(proxy, answer);
      else scripted.push(answer);
    },
    received: async () =>
      proxy.forwarded
        .map(parseHttpRequestHead)
        .filter((head) => head.method === 'POST' && head.path === '/v2/messages')
        .map((head) => ({ carriedKey: head.headers['idempotency-key'] ?? null })),
    acceptedIds: async () => messages.map((m) => m.id),
    release: async () => {
      for (const finish of held.splice(0)) finish();
    },
    webhook,
    async postWebhook(messageId, eventType, status, o = {}) {
      const signed = webhook(messageId, eventType, status, o);
      const target = o.deliverTo === undefined ? new URL(signed.url) : new URL(new URL(signed.url).pathname, o.deliverTo);
      const res = await fetch(target, { method: 'POST', headers: signed.headers, body: signed.rawBody });
      await res.body?.cancel();
      return res.status;
    },
    async close() {
      try {
        await proxy.close();
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
