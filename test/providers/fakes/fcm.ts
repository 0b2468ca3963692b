/**
 * A fake of FCM HTTP v1 and of Google's OAuth 2 token endpoint that verifies what the real ones
 * verify, with a service-account key pair the fake makes for each test:
 *
 * - the token endpoint takes only a JWT bearer grant whose assertion verifies (RS256) against the
 *   key's public half, with `iss` the account's e-mail, `aud` the token URI, the firebase.messaging
 *   `scope`, `kid` the key's id and a lifetime of at most an hour; it issues access tokens that
 *   expire (by the fake's clock, which tests may move);
 * - `messages:send` takes only an access token it issued and that has not expired or been
 *   revoked (else 401 UNAUTHENTICATED), for the key's project (else 404), with a message whose
 *   fields have FCM's types (else 400 INVALID_ARGUMENT naming the field, as FCM does), at most
 *   4096 bytes of payload (else FCM's "message is too big").
 *
 * Definite answers are scripted by name from FCM_ANSWERS, real answers from FCM's documentation
 * and from SDK issue threads (each says where it comes from); transport faults through the fault
 * proxy in front of `messages:send`. The token endpoint is not behind the proxy: its own failures
 * are scripted with `scriptToken`.
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { httpRequestLength, parseHttpRequestHead } from './http-framing.js';

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** Every access token the fake issues starts with this: a leak canary for all of them. */
export const ACCESS_TOKEN_PREFIX = 'ya29.fake-canary-';

/** One answer FCM gives, with where it was seen. */
export interface FcmAnswer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
  source: string;
}

const fcmError = (code: number, status: string, message: string, details?: unknown[]) => ({
  error: { code, message, status, ...(details ? { details } : {}) },
});
const FCM_ERROR_TYPE = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';

/** Real FCM answers, by name. */
export const FCM_ANSWERS = {
  unregistered: {
    status: 404,
    body: fcmError(404, 'NOT_FOUND', 'Requested entity was not found.', [{ '@type': FCM_ERROR_TYPE, errorCode: 'UNREGISTERED' }]),
    source: 'bloomberg/pushiko docs/fcm_responses.md, "Unregistered token"',
  },
  invalid_token: {
    status: 400,
    body: fcmError(400, 'INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token', [
      { '@type': FCM_ERROR_TYPE, errorCode: 'INVALID_ARGUMENT' },
    ]),
    source: 'firebase.google.com/docs/cloud-messaging/error-codes, example 2; firebase/firebase-admin-java#1064',
  },
  invalid_token_field: {
    status: 400,
    body: fcmError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [
      { '@type': FCM_ERROR_TYPE, errorCode: 'INVALID_ARGUMENT' },
      { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'message.token', description: 'Invalid registration token' }] },
    ]),
    source: 'bloomberg/pushiko docs/fcm_responses.md, "Invalid registration token"',
  },
  invalid_data_value: {
    status: 400,
    body: fcmError(400, 'INVALID_ARGUMENT', "Invalid value at 'message.data[0].value' (TYPE_STRING), 12", [
      {
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [{ field: 'message.data[0].value', description: "Invalid value at 'message.data[0].value' (TYPE_STRING), 12" }],
      },
    ]),
    source: 'firebase.google.com/docs/cloud-messaging/error-codes, example 1',
  },
  message_too_big: {
    status: 400,
    body: fcmError(400, 'INVALID_ARGUMENT', 'Android message is too big', [
      { '@type': 'type.googleapis.com/google.rpc.BadRequest' },
      { '@type': FCM_ERROR_TYPE, errorCode: 'INVALID_ARGUMENT' },
    ]),
    source: 'reown-com/push-server#346 (an FCM answer quoted in full); firebase/firebase-admin-go#580',
  },
  payload_too_large_bare: {
    status: 400,
    body: fcmError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.'),
    source: 'bloomberg/pushiko docs/fcm_responses.md, "Payload too large"',
  },
  project_quota: {
    status: 429,
    body: fcmError(
      429,
      'RESOURCE_EXHAUSTED',
      "Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute' of service 'fcm.googleapis.com' for consumer 'project_number:123'.",
      [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'RATE_LIMIT_EXCEEDED',
          domain: 'googleapis.com',
          metadata: {
            quota_metric: 'fcm.googleapis.com/send_requests',
            quota_unit: '1/min/{project}',
            service: 'fcm.googleapis.com',
            quota_limit: 'SendsPerMinutePerProject',
          },
        },
      ],
    ),
    source: 'firebase/firebase-admin-go#719 (an FCM answer quoted in full)',
  },
  device_quota: {
    status: 429,
    body: fcmError(429, 'RESOURCE_EXHAUSTED', 'Device message rate exceeded.', [
      { '@type': FCM_ERROR_TYPE, errorCode: 'QUOTA_EXCEEDED' },
      { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ subject: 'device', description: 'Device message rate exceeded.' }] },
    ]),
    source:
      'ErrorCode reference, QUOTA_EXCEEDED: "An extension of type google.rpc.QuotaFailure is returned to specify which quota was exceeded", reason "Device message rate exceeded"; FCM publishes no sample body, so this one is built from those words',
  },
  unavailable: {
    status: 503,
    body: fcmError(503, 'UNAVAILABLE', 'The service is currently unavailable.', [{ '@type': FCM_ERROR_TYPE, errorCode: 'UNAVAILABLE' }]),
    source: 'bloomberg/pushiko docs/fcm_responses.md, "Unavailable"',
  },
  internal: {
    status: 500,
    body: fcmError(500, 'INTERNAL', 'Internal error encountered.', [{ '@type': FCM_ERROR_TYPE, errorCode: 'INTERNAL' }]),
    source: 'bloomberg/pushiko docs/fcm_responses.md, "Internal server error"',
  },
  sender_id_mismatch: {
    status: 403,
    body: fcmError(403, 'PERMISSION_DENIED', 'SenderId mismatch', [{ '@type': FCM_ERROR_TYPE, errorCode: 'SENDER_ID_MISMATCH' }]),
    source: 'ErrorCode reference, SENDER_ID_MISMATCH (HTTP 403)',
  },
  third_party_auth_error: {
    status: 401,
    body: fcmError(401, 'UNAUTHENTICATED', 'Auth error from APNS or Web Push Service', [{ '@type': FCM_ERROR_TYPE, errorCode: 'THIRD_PARTY_AUTH_ERROR' }]),
    source: 'ErrorCode reference, THIRD_PARTY_AUTH_ERROR (HTTP 401)',
  },
  unauthenticated: {
    status: 401,
    body: fcmError(
      401,
      'UNAUTHENTICATED',
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
    ),
    source: "Google APIs' answer to an expired or unknown bearer token",
  },
} satisfies Record<string, FcmAnswer>;

export type FcmAnswerName = keyof typeof FCM_ANSWERS;

/** The next send's answer: accepted, one of FCM's real answers (with extra headers), or any answer. */
export type FcmScript =
  { kind: 'accept' } | { kind: 'answer'; name: FcmAnswerName; headers?: Record<string, string> } | { kind: 'raw'; answer: Omit<FcmAnswer, 'source'> };

export type TokenScript = { kind: 'issue' } | { kind: 'answer'; status: number; body: unknown; headers?: Record<string, string> } | { kind: 'hang' };

/** A send FCM received whole and parsed, refused ones included. */
export interface FcmSend {
  authorization: string | null;
  body: any;
}

export interface FcmFake {
  /** messages:send's base URL (the fault proxy): an account's base_url. */
  url: string;
  tokenUri: string;
  projectId: string;
  clientEmail: string;
  /** The service-account key file's text, pointing at the fake's token endpoint. */
  serviceAccountJson: string;
  /** The RSA private key, for leak canaries. */
  privateKeyPem: string;
  proxy: FaultProxy;
  script(answer: FcmScript): void;
  scriptToken(answer: TokenScript): void;
  /** Every send received whole (what crossed the proxy), in order. */
  sends(): FcmSend[];
  /** Message ids the fake assigned. */
  accepted: string[];
  /** Token requests that reached the endpoint, and those it granted. */
  tokenRequests: number;
  tokensIssued: string[];
  /** Why the token endpoint refused each refused request. */
  tokenRefusals: string[];
  /** Makes every access token issued so far invalid (as a revoked key does). */
  revokeAccessTokens(): void;
  close(): Promise<void>;
}

let keyPair: { privateKeyPem: string; publicKey: KeyObject } | null = null;
/** The fake's service-account key pair: one per test process (2048-bit generation is slow, and no test depends on a fresh one). */
export function serviceAccountKeys(): { privateKeyPem: string; publicKey: KeyObject } {
  if (keyPair === null) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    keyPair = { privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey };
  }
  return keyPair;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  res.end(text);
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const badRequest = (field: string, description: string) =>
  fcmError(400, 'INVALID_ARGUMENT', description, [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field, description }] }]);

/** What FCM would refuse in a message: the field and why, or null. */
function messageProblem(m: unknown): [string, string] | null {
  if (typeof m !== 'object' || m === null) return ['message', 'Recipient of the message is not set.'];
  const msg = m as Record<string, any>;
  const known = new Set(['token', 'notification', 'data', 'android', 'apns', 'webpush', 'fcm_options', 'name', 'topic', 'condition']);
  for (const k of Object.keys(msg))
    if (!known.has(k)) return [`message.${k}`, `Invalid JSON payload received. Unknown name "${k}" at 'message': Cannot find field.`];
  if (typeof msg.token !== 'string' || msg.token === '') return ['message', 'Recipient of the message is not set.'];
  const strings = (o: unknown, path: string): [string, string] | null => {
    if (o === undefined) return null;
    if (typeof o !== 'object' || o === null) return [path, `Invalid value at '${path}'`];
    for (const [k, v] of Object.entries(o)) if (typeof v !== 'string') return [`${path}.${k}`, `Invalid value at '${path}[${k}].value' (TYPE_STRING)`];
    return null;
  };
  const n = msg.notification;
  if (n !== undefined) {
    const p = strings(n, 'message.notification');
    if (p) return p;
    for (const k of Object.keys(n)) if (!['title', 'body', 'image'].includes(k)) return [`message.notification.${k}`, `Unknown name "${k}"`];
  }
  const d = strings(msg.data, 'message.data');
  if (d) return d;
  const a = msg.android;
  if (a !== undefined) {
    if (a.ttl !== undefined && (typeof a.ttl !== 'string' || !/^\d+(\.\d{1,9})?s$/.test(a.ttl) || Number.parseFloat(a.ttl) > 2_419_200))
      return ['message.android.ttl', 'Invalid value at message.android.ttl (Duration)'];
    if (a.priority !== undefined && !['NORMAL', 'HIGH'].includes(a.priority))
      return ['message.android.priority', 'Invalid value at message.android.priority (TYPE_ENUM)'];
    if (a.collapse_key !== undefined && typeof a.collapse_key !== 'string')
      return ['message.android.collapse_key', 'Invalid value at message.android.collapse_key (TYPE_STRING)'];
    if (a.notification !== undefined && (typeof a.notification !== 'object' || (a.notification.tag !== undefined && typeof a.notification.tag !== 'string')))
      return ['message.android.notification', 'Invalid value'];
  }
  const apnsHeaders = strings(msg.apns?.headers, 'message.apns.headers');
  if (apnsHeaders) return apnsHeaders;
  const webpushHeaders = strings(msg.webpush?.headers, 'message.webpush.headers');
  if (webpushHeaders) return webpushHeaders;
  return null;
}

/** Starts the token endpoint and FCM (behind a fault proxy). `now` is the fake's clock (default Date.now). */
export async function startFcmFake(options: { now?: () => number; projectId?: string; tokenLifetimeSeconds?: number } = {}): Promise<FcmFake> {
  const now = options.now ?? Date.now;
  const projectId = options.projectId ?? 'herald-fake-project';
  const clientEmail = `herald-sender@${projectId}.iam.gserviceaccount.com`;
  const privateKeyId = randomBytes(20).toString('hex');
  const { privateKeyPem, publicKey } = serviceAccountKeys();
  const tokenLifetime = options.tokenLifetimeSeconds ?? 3599;

  const issued = new Map<string, number>(); // token -> expiry (ms, fake clock)
  const tokenScripts: TokenScript[] = [];
  const fcmScripts: FcmScript[] = [];
  const accepted: string[] = [];
  const tokensIssued: string[] = [];
  const tokenRefusals: string[] = [];
  const hanging = new Set<http.ServerResponse>();
  let tokenRequests = 0;
  let tokenUri = '';

  const tokenServer = http.createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      tokenRequests += 1;
      const scripted = tokenScripts.shift() ?? { kind: 'issue' };
      if (scripted.kind === 'hang') {
        hanging.add(res);
        return;
      }
      if (scripted.kind === 'answer') {
        send(res, scripted.status, scripted.body, scripted.headers);
        return;
      }
      const refuse = (why: string, description: string): void => {
        tokenRefusals.push(why);
        send(res, 400, { error: 'invalid_grant', error_description: description });
      };
      if (req.method !== 'POST' || !(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        tokenRefusals.push('not a form POST');
        send(res, 400, { error: 'invalid_request', error_description: 'Bad Request' });
        return;
      }
      const form = new URLSearchParams(raw.toString('utf8'));
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
        tokenRefusals.push('grant_type');
        send(res, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' });
        return;
      }
      const assertion = form.get('assertion') ?? '';
      try {
        const { payload, protectedHeader } = await jwtVerify(assertion, publicKey, {
          algorithms: ['RS256'],
          issuer: clientEmail,
          audience: tokenUri,
          currentDate: new Date(now()),
          requiredClaims: ['iat', 'exp'],
        });
        if (protectedHeader.kid !== privateKeyId) return refuse('kid', 'Invalid JWT Signature.');
        if (typeof payload.scope !== 'string' || !payload.scope.split(' ').includes(FCM_SCOPE))
          return refuse('scope', 'Invalid OAuth scope or ID token audience provided.');
        if (payload.exp! - payload.iat! > 3600)
          return refuse(
            'lifetime',
            'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
          );
      } catch (error) {
        return refuse(`assertion: ${(error as { code?: string }).code ?? 'invalid'}`, 'Invalid JWT Signature.');
      }
      const token = `${ACCESS_TOKEN_PREFIX}${randomBytes(16).toString('base64url')}`;
      issued.set(token, now() + tokenLifetime * 1000);
      tokensIssued.push(token);
      send(res, 200, { access_token: token, expires_in: tokenLifetime, token_type: 'Bearer' });
    })();
  });

  const fcmServer = http.createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      if (req.method !== 'POST') return send(res, 405, fcmError(405, 'METHOD_NOT_ALLOWED', 'Method not allowed'));
      const match = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(req.url ?? '');
      if (!match || decodeURIComponent(match[1]!) !== projectId) return send(res, 404, fcmError(404, 'NOT_FOUND', 'Requested entity was not found.'));
      const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const expiry = auth === undefined ? undefined : issued.get(auth);
      if (expiry === undefined || now() >= expiry) return send(res, FCM_ANSWERS.unauthenticated.status, FCM_ANSWERS.unauthenticated.body);
      if (!(req.headers['content-type'] ?? '').startsWith('application/json'))
        return send(res, 400, fcmError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.'));
      let body: any;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return send(res, 400, fcmError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.'));
      }
      const problem = messageProblem(body?.message);
      if (problem) return send(res, 400, badRequest(problem[0], problem[1]));
      const payloadBytes = Buffer.byteLength(JSON.stringify({ notification: body.message.notification ?? {}, data: body.message.data ?? {} }));
      if (payloadBytes > 4096) return send(res, FCM_ANSWERS.message_too_big.status, FCM_ANSWERS.message_too_big.body);
      if (body.validate_only === true && String(body.message.token).startsWith('herald-doctor-probe'))
        return send(res, FCM_ANSWERS.invalid_token.status, FCM_ANSWERS.invalid_token.body);
      // A scripted answer is FCM's decision about a request it authenticated and could read.
      const scripted = fcmScripts.shift() ?? { kind: 'accept' };
      if (scripted.kind === 'answer') {
        const a: FcmAnswer = FCM_ANSWERS[scripted.name];
        return send(res, a.status, a.body, { ...a.headers, ...scripted.headers });
      }
      if (scripted.kind === 'raw') return send(res, scripted.answer.status, scripted.answer.body, scripted.answer.headers);
      const name = `projects/${projectId}/messages/0:${Date.now()}%${randomBytes(8).toString('hex')}`;
      if (body.validate_only !== true) accepted.push(name);
      send(res, 200, { name });
    })();
  });

  tokenUri = `${await listen(tokenServer)}/token`;
  const fcmUrl = await listen(fcmServer);
  const upstream = new URL(fcmUrl);
  const proxy = await startFaultProxy({ upstream: { host: upstream.hostname, port: Number(upstream.port) }, frame: httpRequestLength });

  const serviceAccountJson = JSON.stringify({
    type: 'service_account',
    project_id: projectId,
    private_key_id: privateKeyId,
    private_key: privateKeyPem,
    client_email: clientEmail,
    client_id: '100000000000000000000',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: tokenUri,
  });

  return {
    url: proxy.url,
    tokenUri,
    projectId,
    clientEmail,
    serviceAccountJson,
    privateKeyPem,
    proxy,
    script: (answer) => {
      fcmScripts.push(answer);
    },
    scriptToken: (answer) => {
      tokenScripts.push(answer);
    },
    sends: () =>
      proxy.forwarded.map((request) => {
        const head = parseHttpRequestHead(request);
        const text = request.subarray(request.indexOf('\r\n\r\n') + 4).toString('utf8');
        let body: unknown = null;
        try {
          body = JSON.parse(text);
        } catch {
          body = null;
        }
        return { authorization: head.headers.authorization ?? null, body };
      }),
    accepted,
    get tokenRequests() {
      return tokenRequests;
    },
    tokensIssued,
    tokenRefusals,
    revokeAccessTokens: () => issued.clear(),
    close: async () => {
      for (const res of hanging) res.destroy();
      try {
        await proxy.close();
      } finally {
        tokenServer.closeAllConnections();
        fcmServer.closeAllConnections();
        await Promise.all([new Promise((r) => tokenServer.close(r)), new Promise((r) => fcmServer.close(r))]);
      }
    },
  };
}
