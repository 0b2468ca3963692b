/**
 * A fake of APNs: a real HTTP/2 server over TLS (node:http2, a certificate from `selfsigned`)
 * that checks each request as APNs documents it, with a P-256 signing key the fake makes:
 *
 * - the provider token verifies (ES256, jose) against the key's public half, with `kid` the key
 *   id and `iss` the team id; older than an hour by the fake's clock → 403 ExpiredProviderToken;
 *   a new token less than 20 minutes after the last → 429 TooManyProviderTokenUpdates;
 * - every header: `apns-topic` (the app's), `apns-push-type`, `apns-priority` (10 not allowed
 *   for background), `apns-expiration` (epoch seconds), `apns-collapse-id` (≤ 64 bytes),
 *   `apns-id` (canonical lower-case UUID), `:path` /3/device/<hex token>, payload JSON with
 *   `aps`, at most 4096 bytes — each refused with APNs's reason when wrong.
 *
 * A TCP relay in front of the TLS server injects what HTTP/2 itself cannot: refused connections,
 * a reset of the connection, bytes that are not TLS. Stream-level faults (RST_STREAM before or
 * after the body, REFUSED_STREAM, GOAWAY, hang) come from the HTTP/2 server.
 */
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import net, { type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify, decodeProtectedHeader } from 'jose';
import { generate } from 'selfsigned';

const RESET_AFTER_BYTES = 64 * 1024;
const { NGHTTP2_CANCEL, NGHTTP2_INTERNAL_ERROR, NGHTTP2_REFUSED_STREAM, NGHTTP2_NO_ERROR } = http2.constants;

/** One answer APNs gives, with where it is documented. */
export interface ApnsAnswer {
  status: number;
  reason: string;
  headers?: Record<string, string>;
  source: string;
}

const DOC = 'developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns';

/** Real APNs answers, by reason. */
export const APNS_ANSWERS = {
  Unregistered: { status: 410, reason: 'Unregistered', source: `${DOC}: 410 "The device token is no longer active for the topic"` },
  ExpiredToken: { status: 410, reason: 'ExpiredToken', source: `${DOC}: 410 "The device token has expired"` },
  BadDeviceToken: { status: 400, reason: 'BadDeviceToken', source: `${DOC}; bloomberg/pushiko docs/apns_responses.md` },
  DeviceTokenNotForTopic: { status: 400, reason: 'DeviceTokenNotForTopic', source: `${DOC}; bloomberg/pushiko docs/apns_responses.md` },
  MissingDeviceToken: { status: 400, reason: 'MissingDeviceToken', source: `${DOC}; bloomberg/pushiko docs/apns_responses.md` },
  BadCollapseId: { status: 400, reason: 'BadCollapseId', source: DOC },
  BadExpirationDate: { status: 400, reason: 'BadExpirationDate', source: DOC },
  BadMessageId: { status: 400, reason: 'BadMessageId', source: DOC },
  BadPriority: { status: 400, reason: 'BadPriority', source: DOC },
  BadTopic: { status: 400, reason: 'BadTopic', source: DOC },
  InvalidPushType: { status: 400, reason: 'InvalidPushType', source: DOC },
  MissingTopic: { status: 400, reason: 'MissingTopic', source: DOC },
  PayloadEmpty: { status: 400, reason: 'PayloadEmpty', source: DOC },
  TopicDisallowed: { status: 400, reason: 'TopicDisallowed', source: DOC },
  IdleTimeout: { status: 400, reason: 'IdleTimeout', source: DOC },
  ExpiredProviderToken: { status: 403, reason: 'ExpiredProviderToken', source: `${DOC}: "The provider token is stale and a new token should be generated"` },
  InvalidProviderToken: { status: 403, reason: 'InvalidProviderToken', source: DOC },
  MissingProviderToken: { status: 403, reason: 'MissingProviderToken', source: DOC },
  Forbidden: { status: 403, reason: 'Forbidden', source: DOC },
  BadCertificateEnvironment: { status: 403, reason: 'BadCertificateEnvironment', source: DOC },
  UnrelatedKeyIdInToken: { status: 403, reason: 'UnrelatedKeyIdInToken', source: `${DOC}; docs.rs apns-h2 ErrorReason` },
  BadEnvironmentKeyInToken: { status: 403, reason: 'BadEnvironmentKeyInToken', source: 'swift-server-community/APNSwift#229' },
  BadPath: { status: 404, reason: 'BadPath', source: DOC },
  MethodNotAllowed: { status: 405, reason: 'MethodNotAllowed', source: DOC },
  PayloadTooLarge: { status: 413, reason: 'PayloadTooLarge', source: DOC },
  TooManyProviderTokenUpdates: {
    status: 429,
    reason: 'TooManyProviderTokenUpdates',
    source: `${DOC}: "The provider's authentication token is being updated too often"`,
  },
  TooManyRequests: { status: 429, reason: 'TooManyRequests', source: `${DOC}: "Too many requests were made consecutively to the same device token"` },
  InternalServerError: { status: 500, reason: 'InternalServerError', source: DOC },
  ServiceUnavailable: { status: 503, reason: 'ServiceUnavailable', source: DOC },
  Shutdown: { status: 503, reason: 'Shutdown', source: DOC },
} satisfies Record<string, ApnsAnswer>;

export type ApnsReason = keyof typeof APNS_ANSWERS;

export type ApnsScript =
  | { kind: 'accept' }
  | { kind: 'answer'; reason: ApnsReason; headers?: Record<string, string> }
  /** RST_STREAM (CANCEL) once 64 KiB of the body arrived: the request is never complete. */
  | { kind: 'rst_while_writing' }
  /** RST_STREAM (INTERNAL_ERROR) once the whole request arrived, with no answer. */
  | { kind: 'rst_after_body' }
  /** RST_STREAM (REFUSED_STREAM) once the whole request arrived: "not processed". */
  | { kind: 'refused_stream' }
  /** Reset the TCP connection once the whole request arrived. */
  | { kind: 'reset_connection' }
  /** Send GOAWAY (NO_ERROR) covering this stream, then accept it: the session is retired. */
  | { kind: 'goaway_then_accept' }
  /** Hold this stream; when the next one arrives on the session, GOAWAY covering only this one (the next is refused), then accept this one. */
  | { kind: 'hold_until_goaway' }
  | { kind: 'hang' }
  /** Once the whole request arrived, write bytes that are not TLS (quoting `canaries`) and close. */
  | { kind: 'garbage'; canaries: readonly string[] }
  | { kind: 'slow'; delayMs: number };

/** A request APNs received whole (END_STREAM), refused ones included. */
export interface ApnsRequestSeen {
  path: string;
  headers: Record<string, string>;
  payload: any;
  jwt: string | null;
  /** The TLS connection it came on (1, 2, ...). */
  connection: number;
}

export interface ApnsFake {
  /** The relay's https URL: an account's base_url. */
  url: string;
  /** PEM file of the fake's certificate: an account's settings.ca_file. */
  caFile: string;
  keyId: string;
  teamId: string;
  topic: string;
  signingKeyPem: string;
  script(answer: ApnsScript): void;
  requests: ApnsRequestSeen[];
  /** apns-unique-id values of accepted notifications. */
  accepted: string[];
  /** Distinct provider tokens, in the order APNs first accepted them. */
  tokensAccepted: string[];
  /** Why requests were refused before any script applied (the fake's own checks). */
  refusals: string[];
  /** TLS connections accepted so far. */
  connections(): number;
  /** From now on nothing listens. */
  refuse(): void;
  close(): Promise<void>;
}

let signing: { pem: string; publicKey: KeyObject } | null = null;
/** The fake's .p8 key pair: one per test process. */
export function apnsSigningKeys(): { pem: string; publicKey: KeyObject } {
  if (signing === null) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    signing = { pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey };
  }
  return signing;
}

let certificate: Promise<{ cert: string; key: string }> | null = null;
function tlsCertificate(): Promise<{ cert: string; key: string }> {
  certificate ??= generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  }).then((pems) => ({ cert: pems.cert, key: pems.private }));
  return certificate;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PUSH_TYPES = new Set([
  'alert',
  'background',
  'location',
  'voip',
  'complication',
  'fileprovider',
  'mdm',
  'liveactivity',
  'pushtotalk',
  'controls',
  'widgets',
]);

/** Starts the fake. `now` is its clock for token ages (default Date.now). */
export async function startApnsFake(options: { now?: () => number; topic?: string } = {}): Promise<ApnsFake> {
  const now = options.now ?? Date.now;
  const keyId = 'ABC123DEFG';
  const teamId = 'DEF123GHIJ';
  const topic = options.topic ?? 'dev.herald.example';
  const keys = apnsSigningKeys();
  const tls = await tlsCertificate();
  const dir = mkdtempSync(join(tmpdir(), 'herald-apns-fake-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, tls.cert);

  const scripts: ApnsScript[] = [];
  const requests: ApnsRequestSeen[] = [];
  const accepted: string[] = [];
  const tokensAccepted: string[] = [];
  const refusals: string[] = [];
  let currentToken: { jwt: string; since: number } | null = null;
  let held: http2.ServerHttp2Stream | null = null;
  const timers = new Set<NodeJS.Timeout>();
  const ids = new WeakMap<http2.ServerHttp2Stream, string>();
  /** Relay client socket by the port its upstream connection uses, to reach a stream's raw connection. */
  const relayClientByUpstreamPort = new Map<number, Socket>();
  const connectionNumber = new Map<number, number>();
  let connections = 0;

  const answer = (stream: http2.ServerHttp2Stream, status: number, reason: string | null, headers: Record<string, string> = {}): void => {
    if (stream.closed) return;
    // APNs echoes the request's apns-id, or makes one.
    const requested = ids.get(stream);
    stream.respond({ ':status': status, 'apns-id': requested ?? randomUUID(), ...headers });
    stream.end(
      reason === null ? undefined : JSON.stringify(reason === 'Unregistered' || reason === 'ExpiredToken' ? { reason, timestamp: now() } : { reason }),
    );
  };

  /** What APNs itself would refuse in the request: [status, reason], or null. */
  const check = async (h: http2.IncomingHttpHeaders, payloadRaw: Buffer): Promise<[number, string] | null> => {
    if (h[':method'] !== 'POST') return [405, 'MethodNotAllowed'];
    const path = /^\/3\/device\/([^/]*)$/.exec(String(h[':path']));
    if (!path) return [404, 'BadPath'];
    if (path[1] === '') return [400, 'MissingDeviceToken'];
    // Apple does not document the order of its checks; this fake checks the provider token before the device token.
    const auth = /^bearer (.+)$/.exec(String(h.authorization ?? ''))?.[1];
    if (auth === undefined) return [403, 'MissingProviderToken'];
    try {
      if (decodeProtectedHeader(auth).kid !== keyId) return [403, 'InvalidProviderToken'];
      await jwtVerify(auth, keys.publicKey, {
        algorithms: ['ES256'],
        issuer: teamId,
        maxTokenAge: '1h',
        currentDate: new Date(now()),
        requiredClaims: ['iat'],
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      refusals.push(`provider token: ${code ?? 'invalid'}`);
      return code === 'ERR_JWT_EXPIRED' ? [403, 'ExpiredProviderToken'] : [403, 'InvalidProviderToken'];
    }
    if (currentToken === null || currentToken.jwt !== auth) {
      if (currentToken !== null && now() - currentToken.since < 20 * 60_000) {
        refusals.push('provider token replaced within 20 minutes');
        return [429, 'TooManyProviderTokenUpdates'];
      }
      currentToken = { jwt: auth, since: now() };
      tokensAccepted.push(auth);
    }
    if (!/^[0-9a-fA-F]{64,200}$/.test(path[1]!) || /^0+$/.test(path[1]!)) return [400, 'BadDeviceToken'];
    if (h['apns-topic'] === undefined) return [400, 'MissingTopic'];
    if (h['apns-topic'] !== topic) return [400, 'DeviceTokenNotForTopic'];
    const pushType = String(h['apns-push-type'] ?? '');
    if (!PUSH_TYPES.has(pushType)) return [400, 'InvalidPushType'];
    const priority = h['apns-priority'];
    if (priority !== undefined && !['10', '5', '1'].includes(String(priority))) return [400, 'BadPriority'];
    if (pushType === 'background' && priority === '10') return [400, 'BadPriority'];
    if (h['apns-expiration'] !== undefined && !/^\d+$/.test(String(h['apns-expiration']))) return [400, 'BadExpirationDate'];
    if (h['apns-collapse-id'] !== undefined && Buffer.byteLength(String(h['apns-collapse-id'])) > 64) return [400, 'BadCollapseId'];
    if (h['apns-id'] !== undefined && !UUID.test(String(h['apns-id']))) return [400, 'BadMessageId'];
    if (payloadRaw.length === 0) return [400, 'PayloadEmpty'];
    if (payloadRaw.length > 4096) return [413, 'PayloadTooLarge'];
    let payload: any;
    try {
      payload = JSON.parse(payloadRaw.toString('utf8'));
    } catch {
      return [400, 'PayloadEmpty'];
    }
    if (typeof payload?.aps !== 'object' || payload.aps === null) return [400, 'PayloadEmpty'];
    if (pushType === 'background' && (payload.aps['content-available'] !== 1 || payload.aps.alert !== undefined)) return [400, 'InvalidPushType'];
    return null;
  };

  const server = http2.createSecureServer({ cert: tls.cert, key: tls.key });
  server.on('sessionError', () => {});
  const serverSessions = new Set<http2.ServerHttp2Session>();
  // Every TCP connection of the TLS server, sessions or not (a handshake cut short by a fault), so close() ends them all.
  const serverSockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    serverSockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => serverSockets.delete(socket));
  });
  server.on('session', (session) => {
    serverSessions.add(session);
    session.once('close', () => serverSessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    if (typeof headers['apns-id'] === 'string') ids.set(stream, headers['apns-id']);
    const upstreamPort = stream.session?.socket.remotePort ?? 0;
    const connection = connectionNumber.get(upstreamPort) ?? 0;
    // A stream arriving while one is held for a GOAWAY: GOAWAY covering only the held one.
    if (held !== null && held.session === stream.session) {
      const first = held;
      held = null;
      stream.session?.goaway(NGHTTP2_NO_ERROR, first.id);
      const timer = setTimeout(() => answer(first, 200, null, { 'apns-unique-id': acceptOne() }), 20);
      timers.add(timer);
      return;
    }
    const writingFault = scripts[0]?.kind === 'rst_while_writing' ? scripts.shift() : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let reset = false;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (writingFault !== undefined && size >= RESET_AFTER_BYTES) {
        reset = true;
        stream.close(NGHTTP2_CANCEL);
      } else chunks.push(chunk);
    });
    stream.on('end', () => {
      void (async () => {
        if (writingFault !== undefined) {
          if (!reset) refusals.push('rst_while_writing: the whole request arrived before the reset');
          return;
        }
        const raw = Buffer.concat(chunks);
        const flat: Record<string, string> = {};
        for (const [k, v] of Object.entries(headers)) if (typeof v === 'string') flat[k] = v;
        let payload: unknown = null;
        try {
          payload = JSON.parse(raw.toString('utf8'));
        } catch {
          payload = null;
        }
        const jwt = /^bearer (.+)$/.exec(flat.authorization ?? '')?.[1] ?? null;
        requests.push({ path: flat[':path'] ?? '', headers: flat, payload, jwt, connection });
        const refused = await check(headers, raw);
        if (refused !== null) return answer(stream, refused[0], refused[1]);
        // A scripted answer is APNs's decision about a request it authenticated and could read.
        const scripted = scripts.shift() ?? { kind: 'accept' };
        switch (scripted.kind) {
          case 'accept':
            return answer(stream, 200, null, { 'apns-unique-id': acceptOne() });
          case 'answer': {
            const a: ApnsAnswer = APNS_ANSWERS[scripted.reason];
            return answer(stream, a.status, a.reason, { ...a.headers, ...scripted.headers });
          }
          case 'rst_while_writing':
            return;
          case 'rst_after_body':
            stream.close(NGHTTP2_INTERNAL_ERROR);
            return;
          case 'refused_stream':
            stream.close(NGHTTP2_REFUSED_STREAM);
            return;
          case 'reset_connection':
            relayClientByUpstreamPort.get(upstreamPort)?.resetAndDestroy();
            return;
          case 'goaway_then_accept':
            stream.session?.goaway(NGHTTP2_NO_ERROR, stream.id);
            return answer(stream, 200, null, { 'apns-unique-id': acceptOne() });
          case 'hold_until_goaway':
            held = stream;
            return;
          case 'hang':
            return;
          case 'garbage':
            relayClientByUpstreamPort.get(upstreamPort)?.end(Buffer.from(`HTTP/1.1 2OO garbled ${scripted.canaries.join(' ')}\r\n\r\n{"reason":`));
            return;
          case 'slow': {
            const timer = setTimeout(() => answer(stream, 200, null, { 'apns-unique-id': acceptOne() }), scripted.delayMs);
            timers.add(timer);
            return;
          }
        }
      })();
    });
  });
  const acceptOne = (): string => {
    const id = randomUUID();
    accepted.push(id);
    return id;
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const tlsPort = (server.address() as AddressInfo).port;

  const sockets = new Set<Socket>();
  const track = (s: Socket): Socket => {
    sockets.add(s);
    s.on('error', () => s.destroy());
    s.once('close', () => sockets.delete(s));
    return s;
  };
  const relay = net.createServer((client) => {
    track(client);
    connections += 1;
    const number = connections;
    const upstream = track(net.connect(tlsPort, '127.0.0.1'));
    upstream.once('connect', () => {
      relayClientByUpstreamPort.set(upstream.localPort!, client);
      connectionNumber.set(upstream.localPort!, number);
    });
    client.pipe(upstream);
    upstream.pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  let listening = true;
  const stopRelay = (): Promise<void> =>
    new Promise((resolve) => {
      if (!listening) return resolve();
      listening = false;
      relay.close(() => resolve());
    });

  return {
    url: `https://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    caFile,
    keyId,
    teamId,
    topic,
    signingKeyPem: keys.pem,
    script: (a) => {
      scripts.push(a);
    },
    requests,
    accepted,
    tokensAccepted,
    refusals,
    connections: () => connections,
    refuse: () => {
      void stopRelay();
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      const stopped = stopRelay();
      for (const s of sockets) s.destroy();
      for (const session of serverSessions) session.destroy();
      for (const socket of serverSockets) socket.destroy();
      await stopped;
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
      const misapplied = refusals.find((r) => r.startsWith('rst_while_writing'));
      if (misapplied) throw new Error(misapplied);
    },
  };
}
