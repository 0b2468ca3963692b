/**
 * HTTP/2 requests to APNs with the bookkeeping truthful classification needs, over one session
 * per origin kept open for the adapter's life: Apple asks providers to "keep your connections
 * with APNs open across multiple notifications" and treats rapid connect/disconnect as a
 * denial-of-service attack.
 *
 * How far a request got: `connecting` until its session is connected, `writing` while it is being
 * written, `written` once the stream's 'finish' fired (every DATA frame, END_STREAM included,
 * handed to the socket: flow control holds unsent data back, so 'finish' cannot fire early).
 * Before `written` APNs cannot hold a complete request. A stream APNs says it did not process is
 * marked `refused`, whatever the stage: RST_STREAM REFUSED_STREAM, or a stream above the last
 * stream id of a GOAWAY (RFC 9113 §6.8, §8.7). A GOAWAY also retires the session: the next request
 * opens a new one, while streams the GOAWAY covers finish on the old.
 *
 * It never throws for network trouble and never retries: both are decisions for the caller.
 */
import http2 from 'node:http2';
import tls from 'node:tls';
import { parseAnswerBody } from '../outbound-http/exchange.js';
import type { TransportFailure } from '../outbound-http/transport-failure.js';

// 64 KiB: an APNs answer is an empty body or a one-field JSON error; anything larger is cut.
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface Http2Request {
  /** e.g. https://api.push.apple.com */
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Budget for the whole exchange, from before connecting to the last byte of the answer. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Epoch ms (Date.now()): once connected, the request is not written at or after this time (provably not sent). */
  notAfter?: number | undefined;
}

export interface Http2Failure extends TransportFailure {
  /** APNs said it did not process the stream (REFUSED_STREAM, or above a GOAWAY's last stream id). */
  refused: boolean;
}

export type Http2Result =
  { kind: 'response'; status: number; headers: Readonly<Record<string, string>>; body: unknown } | { kind: 'failure'; failure: Http2Failure };

function errorCode(error: unknown): string | undefined {
  // A stream cancelled because its session could not connect carries the socket's code as cause.
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (typeof cause === 'string') return cause;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function singleValued(raw: http2.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === 'string') out[name] = value;
    else if (typeof value === 'number') out[name] = String(value);
    else if (Array.isArray(value)) out[name] = value.join(', ');
  }
  return out;
}

/** One HTTP/2 session per origin, reconnected after a GOAWAY or a failure. */
export class Http2Sessions {
  private readonly sessions = new Map<string, http2.ClientHttp2Session>();
  /** The last stream id of a GOAWAY each retired session received. */
  private readonly goaway = new WeakMap<http2.ClientHttp2Session, number>();
  /** Sessions opened, for tests (connection reuse). */
  opened = 0;

  /** `ca`: certificate authorities trusted besides the system's (PEM), or null. */
  constructor(private readonly ca: string | null) {}

  private session(origin: string): http2.ClientHttp2Session {
    const existing = this.sessions.get(origin);
    if (existing !== undefined && !existing.closed && !existing.destroyed) return existing;
    const session = http2.connect(origin, this.ca === null ? {} : { ca: [...tls.rootCertificates, this.ca] });
    this.opened += 1;
    const retire = (): void => {
      if (this.sessions.get(origin) === session) this.sessions.delete(origin);
    };
    session.on('goaway', (_code: number, lastStreamID: number) => {
      this.goaway.set(session, lastStreamID);
      retire();
    });
    // Errors reach each stream too; the session's own only retires it (and must be listened to).
    session.on('error', retire);
    session.on('close', retire);
    this.sessions.set(origin, session);
    return session;
  }

  /** Sends one request; resolves with the answer or the failure and how far the request got. */
  request(options: Http2Request): Promise<Http2Result> {
    return new Promise((resolve) => {
      let stage: TransportFailure['stage'] = 'connecting';
      let settled = false;
      let status: number | null = null;
      let headers: Record<string, string> = {};
      const chunks: Buffer[] = [];
      let received = 0;
      let stream: http2.ClientHttp2Stream | null = null;
      let session: http2.ClientHttp2Session | null = null;

      const settle = (result: Http2Result): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        if (stream !== null && !stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
        resolve(result);
      };
      const settleWithResponse = (): void => {
        if (status !== null) settle({ kind: 'response', status, headers, body: parseAnswerBody(Buffer.concat(chunks)) });
      };
      const refusedByServer = (): boolean => {
        if (stream === null || session === null) return false;
        if (stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM) return true;
        const last = this.goaway.get(session);
        return last !== undefined && (stream.id === undefined || stream.id > last);
      };
      const fail = (cause: TransportFailure['cause'], code?: string): void => {
        // Once a status arrived the answer is definite, even if its body was cut short.
        if (status !== null) settleWithResponse();
        else settle({ kind: 'failure', failure: { stage, cause, code, refused: cause === 'error' && refusedByServer() } });
      };
      const timer = setTimeout(() => fail('timeout'), options.timeoutMs);
      const onAbort = (): void => fail('aborted');
      if (options.signal?.aborted === true) {
        fail('aborted');
        return;
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });

      const open = (): void => {
        if (settled || session === null) return;
        if (options.notAfter !== undefined && Date.now() >= options.notAfter) {
          fail('aborted');
          return;
        }
        const s = session.request({ ':method': 'POST', ':path': options.path, ...options.headers }, { endStream: false });
        stream = s;
        // The session is connected: the request goes out now, and is incomplete until 'finish'.
        stage = 'writing';
        s.on('finish', () => {
          stage = 'written';
        });
        s.on('response', (h) => {
          status = Number(h[':status'] ?? 0);
          headers = singleValued(h);
        });
        s.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received <= MAX_RESPONSE_BYTES) chunks.push(chunk);
        });
        s.on('end', settleWithResponse);
        s.on('error', (error) => fail('error', errorCode(error)));
        // Closed without an error event (a CANCEL from a session torn down, a reset while writing).
        s.on('close', () => fail('error', `NGHTTP2_RST_${s.rstCode ?? 0}`));
        s.end(options.body);
      };

      try {
        session = this.session(options.origin);
      } catch (error) {
        fail('error', errorCode(error));
        return;
      }
      const current = session;
      // A session still handshaking: wait for it, then look at the clock (the wait may outlast sendBy).
      if (current.connecting) {
        const detach = (): void => {
          current.off('connect', onConnect);
          current.off('error', onError);
          current.off('close', onClose);
        };
        const onConnect = (): void => {
          detach();
          open();
        };
        const onError = (error: unknown): void => {
          detach();
          fail('error', errorCode(error));
        };
        const onClose = (): void => {
          detach();
          fail('error', 'ERR_HTTP2_SESSION_CLOSED');
        };
        current.once('connect', onConnect);
        current.once('error', onError);
        current.once('close', onClose);
      } else open();
    });
  }

  /** Closes every session. */
  close(): void {
    for (const session of this.sessions.values()) session.destroy();
    this.sessions.clear();
  }
}
