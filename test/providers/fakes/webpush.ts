/**
 * A fake Web Push service (RFC 8030) that checks what a real one checks, and decrypts what the
 * browser would. Subscriptions are made by the fake as a browser makes them: a P-256 ECDH key pair
 * and a 16-byte auth secret (RFC 8291 §2), bound to the site's VAPID public key. For each push
 * message request it verifies
 *
 * - the VAPID `Authorization: vapid t=<JWT>, k=<key>` (RFC 8292 §3): `k` is the key the
 *   subscription was made with (else 403), the JWT verifies ES256 against it with `aud` the
 *   endpoint's origin, `exp` in the future and at most 24 hours ahead, and a `sub` (else 401);
 * - `TTL` (required, a non-negative integer), `Urgency`, `Topic` (at most 32 base64url characters),
 *   `Content-Encoding: aes128gcm`, a body of at most 4096 bytes (else 413);
 *
 * answering with autopush's error bodies (mozilla-services/autopush-rs docs/src/errors.md), and it
 * decrypts each accepted payload with the subscription's private key (`http_ece`) so tests compare
 * it with what was sent. A real push service cannot read the payload: a payload that does not
 * decrypt is accepted and recorded as undecryptable, as a browser would then drop it.
 *
 * It listens behind the fault proxy: adapters reach it through `base_url`, while subscriptions
 * name the origin it stands for (https://push.example.test), which is the VAPID audience.
 */
import { createECDH, randomBytes, type ECDH } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decrypt } from 'http_ece';
import { importJWK, jwtVerify } from 'jose';
import type { PushTarget } from '../../../src/domain/index.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { httpRequestLength, parseHttpRequestHead } from './http-framing.js';

export const PUSH_ORIGIN = 'https://push.example.test';

export interface WebPushAnswer {
  status: number;
  headers?: Record<string, string>;
  body: string;
  source: string;
}

const AUTOPUSH = 'mozilla-services/autopush-rs docs/src/errors.md';
const autopushError = (code: number, errno: number, error: string, message: string): string =>
  JSON.stringify({ code, errno, error, message, more_info: 'http://autopush.readthedocs.io/en/latest/http.html#error-codes' });

/** Real push service answers, by name. */
export const WEBPUSH_ANSWERS = {
  not_found: {
    status: 404,
    body: autopushError(404, 102, 'Not Found', 'Request did not validate invalid token'),
    source: `${AUTOPUSH}: 404 errno 102 "Invalid URL endpoint"`,
  },
  gone: {
    status: 410,
    body: autopushError(410, 106, 'Gone', 'Request did not validate No such subscription'),
    source: `${AUTOPUSH}: 410 errno 106 "Invalid subscription"`,
  },
  expired: {
    status: 410,
    body: autopushError(410, 103, 'Gone', 'Request did not validate expired URL endpoint'),
    source: `${AUTOPUSH}: 410 errno 103 "Expired URL endpoint"`,
  },
  payload_too_large: {
    status: 413,
    body: autopushError(413, 104, 'Payload Too Large', 'Data payload must be smaller than 4096 bytes'),
    source: `${AUTOPUSH}: 413 errno 104`,
  },
  rate_limited: {
    status: 429,
    headers: { 'retry-after': '120' },
    body: autopushError(429, 201, 'Too Many Requests', 'Use exponential back-off for retries'),
    source: `${AUTOPUSH}: 429 errno 201 with Retry-After`,
  },
  rate_limited_no_hint: { status: 429, body: '', source: 'RFC 8030 §8.4: a push service MAY answer 429 and SHOULD (not MUST) include Retry-After' },
  wns_throttled: {
    status: 406,
    body: '',
    source:
      'learn.microsoft.com push-request-response-headers: 406 Not Acceptable "This cloud service exceeded its throttle limit" (MicrosoftDocs/windows-dev-docs#4166)',
  },
  bad_vapid: {
    status: 401,
    body: autopushError(401, 109, 'Unauthorized', 'Request did not validate Invalid Authorization Header'),
    source: `${AUTOPUSH}: 401 errno 109 "Invalid authentication"`,
  },
  key_mismatch: {
    status: 403,
    body: 'the key in the authorization header does not correspond to the sender ID used to subscribe this user. Please ensure you are using the correct sender ID and server Key from the Firebase console.',
    source: "FCM's Web Push endpoint (quoted in web-push-libs/web-push issues and pushpad.xyz's error guide)",
  },
  bad_ttl: { status: 400, body: autopushError(400, 112, 'Bad Request', 'Invalid TTL header value'), source: `${AUTOPUSH}: 400 errno 112` },
  server_error: {
    status: 500,
    body: autopushError(500, 999, 'Internal Server Error', 'An unexpected server error occurred.'),
    source: `${AUTOPUSH}: 500 errno 999`,
  },
  unavailable: {
    status: 503,
    headers: { 'retry-after': '30' },
    body: autopushError(503, 202, 'Service Unavailable', 'Immediate retry ok'),
    source: `${AUTOPUSH}: 503 errno 201/202`,
  },
} satisfies Record<string, WebPushAnswer>;

export type WebPushAnswerName = keyof typeof WEBPUSH_ANSWERS;

export type WebPushScript = { kind: 'accept' } | { kind: 'answer'; name: WebPushAnswerName; headers?: Record<string, string> };

/** A subscriber as the fake's browser made it. */
interface Subscriber {
  id: string;
  ecdh: ECDH;
  auth: Buffer;
  active: boolean;
}

/** A push message the fake accepted, as the browser would read it. */
export interface DeliveredPush {
  subscriptionId: string;
  headers: Record<string, string>;
  /** The decrypted payload, or null when it would not decrypt (the browser would drop it). */
  plaintext: string | null;
  vapid: { aud: unknown; exp: unknown; sub: unknown };
  location: string;
}

export interface WebPushFake {
  /** The fault proxy's URL: an account's base_url. */
  url: string;
  proxy: FaultProxy;
  /** A new subscription, as PushSubscription.toJSON() gives it. */
  subscribe(): Extract<PushTarget, { type: 'webpush' }>;
  /** The user revoked it: from now on 410. */
  unsubscribe(target: Extract<PushTarget, { type: 'webpush' }>): void;
  script(answer: WebPushScript): void;
  /** Every push message request that crossed the proxy whole, in order. */
  received(): Array<{ path: string; headers: Record<string, string> }>;
  delivered: DeliveredPush[];
  /** Why the fake refused requests (its own checks, not scripts). */
  refusals: string[];
  close(): Promise<void>;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const URGENCIES = new Set(['very-low', 'low', 'normal', 'high']);

/** A subscription made outside the fake (a fixed one, for tests that need it before the fake starts), with its private half. */
export interface PresetSubscriber {
  id: string;
  ecdh: ECDH;
  auth: Buffer;
}

/** A browser's subscription to `origin`'s push service: the public target and the private half the browser keeps. */
export function browserSubscription(): { target: Extract<PushTarget, { type: 'webpush' }>; subscriber: PresetSubscriber } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  const id = randomBytes(24).toString('base64url');
  return {
    target: {
      type: 'webpush',
      endpoint: `${PUSH_ORIGIN}/wpush/v2/${id}`,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
    },
    subscriber: { id, ecdh, auth },
  };
}

/** Starts the fake for a site whose pages subscribe with `vapidPublicKey`; `now` is its clock. */
export async function startWebPushFake(options: { vapidPublicKey: string; now?: () => number; subscribers?: PresetSubscriber[] }): Promise<WebPushFake> {
  const now = options.now ?? Date.now;
  const subscribers = new Map<string, Subscriber>((options.subscribers ?? []).map((s) => [s.id, { ...s, active: true }] as const));
  const scripts: WebPushScript[] = [];
  const delivered: DeliveredPush[] = [];
  const refusals: string[] = [];
  const applicationServerKey = Buffer.from(options.vapidPublicKey, 'base64url');
  const vapidJwk = {
    kty: 'EC',
    crv: 'P-256',
    x: applicationServerKey.subarray(1, 33).toString('base64url'),
    y: applicationServerKey.subarray(33, 65).toString('base64url'),
  };
  const vapidKey = await importJWK(vapidJwk, 'ES256');

  const server = http.createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const answer = (a: { status: number; headers?: Record<string, string>; body: string }, why?: string): void => {
        if (why !== undefined) refusals.push(why);
        res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
        res.end(a.body);
      };
      const id = /^\/wpush\/v2\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '')?.[1];
      const sub = id === undefined ? undefined : subscribers.get(id);
      if (req.method !== 'POST' || sub === undefined) return answer(WEBPUSH_ANSWERS.not_found, 'unknown subscription');
      if (!sub.active) return answer(WEBPUSH_ANSWERS.gone, 'unsubscribed');
      // VAPID (RFC 8292 §3): "vapid t=<JWT>, k=<key>".
      const authorization = req.headers.authorization ?? '';
      const t = /(?:^vapid |, *)t=([^,\s]+)/.exec(authorization)?.[1];
      const k = /(?:^vapid |, *)k=([^,\s]+)/.exec(authorization)?.[1];
      if (!authorization.startsWith('vapid ') || t === undefined || k === undefined) return answer(WEBPUSH_ANSWERS.bad_vapid, 'no vapid authorization');
      if (!Buffer.from(k, 'base64url').equals(applicationServerKey)) return answer(WEBPUSH_ANSWERS.key_mismatch, 'vapid key is not the subscription’s');
      let claims: { aud: unknown; exp: unknown; sub: unknown };
      try {
        const { payload } = await jwtVerify(t, vapidKey, {
          algorithms: ['ES256'],
          audience: PUSH_ORIGIN,
          currentDate: new Date(now()),
          requiredClaims: ['exp'],
        });
        claims = { aud: payload.aud, exp: payload.exp, sub: payload.sub };
        if ((payload.exp ?? 0) * 1000 > now() + 24 * 3_600_000) return answer(WEBPUSH_ANSWERS.bad_vapid, 'vapid exp more than 24 hours ahead');
        if (typeof payload.sub !== 'string' || !/^(mailto:|https:)/.test(payload.sub))
          return answer(WEBPUSH_ANSWERS.bad_vapid, 'vapid sub is not mailto: or https:');
      } catch (error) {
        return answer(WEBPUSH_ANSWERS.bad_vapid, `vapid jwt: ${(error as { code?: string }).code ?? 'invalid'}`);
      }
      const h = req.headers;
      if (typeof h.ttl !== 'string' || !/^\d+$/.test(h.ttl)) return answer(WEBPUSH_ANSWERS.bad_ttl, 'TTL missing or not a number');
      if (h.urgency !== undefined && !URGENCIES.has(String(h.urgency)))
        return answer({ status: 400, body: autopushError(400, 111, 'Bad Request', 'Invalid Urgency') }, 'urgency');
      if (h.topic !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(String(h.topic)))
        return answer({ status: 400, body: autopushError(400, 113, 'Bad Request', 'Topic must be no greater than 32 characters') }, 'topic');
      if (body.length > 0 && h['content-encoding'] !== 'aes128gcm')
        return answer({ status: 400, body: autopushError(400, 110, 'Bad Request', 'Invalid crypto keys specified') }, 'content-encoding');
      if (body.length > 4096) return answer(WEBPUSH_ANSWERS.payload_too_large, 'payload over 4096 bytes');
      // A scripted answer is the push service's decision about a request it authenticated.
      const scripted = scripts.shift() ?? { kind: 'accept' };
      if (scripted.kind === 'answer') {
        const a: WebPushAnswer = WEBPUSH_ANSWERS[scripted.name];
        return answer({ status: a.status, headers: { ...a.headers, ...scripted.headers }, body: a.body });
      }
      let plaintext: string | null;
      try {
        plaintext = decrypt(body, { version: 'aes128gcm', privateKey: sub.ecdh, authSecret: sub.auth }).toString('utf8');
      } catch {
        plaintext = null;
        refusals.push('payload does not decrypt');
      }
      const location = `${PUSH_ORIGIN}/m/${randomBytes(12).toString('base64url')}`;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(h)) if (typeof value === 'string') headers[name] = value;
      delivered.push({ subscriptionId: sub.id, headers, plaintext, vapid: claims, location });
      res.writeHead(201, { location, ttl: h.ttl });
      res.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const proxy = await startFaultProxy({ upstream: { host: '127.0.0.1', port }, frame: httpRequestLength });

  return {
    url: proxy.url,
    proxy,
    subscribe: () => {
      const { target, subscriber } = browserSubscription();
      subscribers.set(subscriber.id, { ...subscriber, active: true });
      return target;
    },
    unsubscribe: (target) => {
      const id = target.endpoint.split('/').pop() ?? '';
      const sub = subscribers.get(id);
      if (sub) sub.active = false;
    },
    script: (a) => {
      scripts.push(a);
    },
    received: () =>
      proxy.forwarded.map((request) => {
        const head = parseHttpRequestHead(request);
        return { path: head.path, headers: head.headers };
      }),
    delivered,
    refusals,
    close: async () => {
      try {
        await proxy.close();
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}
