/**
 * One HTTP request (a send's POST, a look-up's GET) with the bookkeeping that truthful
 * classification needs: how far the request got (connecting, writing, written: the request's
 * 'finish' event, i.e. the whole request was handed to the kernel) when something went wrong,
 * and the status whenever one arrived. It never throws for network trouble and never retries:
 * both are decisions for the caller. Shared by every HTTP adapter (moved here from
 * providers/sandbox/ unchanged, but for the response's header fields, which Resend's
 * rate-limit answer needs).
 */
import http from 'node:http';
import https from 'node:https';
import type { ExchangeStage, TransportFailure } from './transport-failure.js';

// 64 KiB: a provider's answer is an id or an error object; anything larger is cut, not buffered.
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface ExchangeRequest {
  /** Default POST. */
  method?: 'POST' | 'GET';
  url: URL;
  headers: Record<string, string>;
  body: Buffer;
  /** Budget for the whole exchange, from before connecting to the last body byte. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  agent: http.Agent;
  /**
   * Epoch ms (Date.now()): the request is written only once its socket is ready, and not at all
   * at or after this time; it then fails as `aborted` before writing (provably not sent).
   */
  notAfter?: number | undefined;
}

export type ExchangeResult =
  | {
      kind: 'response';
      status: number;
      retryAfter: string | null;
      /** The answer's header fields, names lower-cased; a repeated field is joined with ", " (Node's rule). */
      headers: Readonly<Record<string, string>>;
      body: unknown;
    }
  | { kind: 'failure'; failure: TransportFailure };

/** A provider's answer body as JSON; null when it is empty or not JSON (the classifiers read the status then). */
export function parseAnswerBody(raw: Buffer): unknown {
  if (raw.length === 0) return null;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

function singleValued(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === 'string') out[name] = value;
    else if (Array.isArray(value)) out[name] = value.join(', ');
  }
  return out;
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A keep-alive agent for `base`'s protocol, holding at most `maxSockets` connections (the adapter's concurrency to one provider). */
export function keepAliveAgent(base: URL, maxSockets: number): http.Agent {
  const options = { keepAlive: true, maxSockets };
  return base.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}

/**
 * POSTs once and resolves with the answer, or with the failure and the stage it happened in.
 * Once a status line has arrived the answer is definite: a body cut short by an error, a
 * timeout or an abort still resolves as that response, with whatever body arrived.
 */
export function postOnce(options: ExchangeRequest): Promise<ExchangeResult> {
  return exchangeOnce({ ...options, method: 'POST' });
}

/** Sends one request with `options.method` (default POST); otherwise exactly as postOnce. */
export function exchangeOnce(options: ExchangeRequest): Promise<ExchangeResult> {
  const { url, signal } = options;
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve({ kind: 'failure', failure: { stage: 'connecting', cause: 'aborted' } });
      return;
    }
    let stage: ExchangeStage = 'connecting';
    let settled = false;
    let status: number | null = null;
    let retryAfter: string | null = null;
    let headers: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let received = 0;

    const settle = (result: ExchangeResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const settleWithResponse = (): void => {
      if (status === null) return;
      // A cut-off body is unparseable JSON, so a partial answer carries body null.
      settle({ kind: 'response', status, retryAfter, headers, body: parseAnswerBody(Buffer.concat(chunks)) });
    };
    const fail = (cause: TransportFailure['cause'], code?: string): void => {
      if (status !== null) settleWithResponse();
      else settle({ kind: 'failure', failure: { stage, cause, code } });
    };

    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(url, {
      method: options.method ?? 'POST',
      agent: options.agent,
      headers: { ...options.headers, 'content-length': String(options.body.length) },
    });
    const timer = setTimeout(() => {
      fail('timeout');
      request.destroy();
    }, options.timeoutMs);
    const onAbort = (): void => {
      fail('aborted');
      request.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });

    request.on('socket', (socket) => {
      // A pooled keep-alive socket is already connected; a new one is not yet.
      if (!socket.connecting) {
        if (stage === 'connecting') stage = 'writing';
        return;
      }
      socket.once('connect', () => {
        if (stage === 'connecting') stage = 'writing';
      });
    });
    request.on('finish', () => {
      stage = 'written';
    });
    request.on('error', (error) => fail('error', errorCode(error)));
    request.on('response', (response) => {
      status = response.statusCode ?? 0;
      const header = response.headers['retry-after'];
      retryAfter = typeof header === 'string' ? header : null;
      headers = singleValued(response.headers);
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received <= MAX_RESPONSE_BYTES) chunks.push(chunk);
      });
      response.on('end', settleWithResponse);
      response.on('error', settleWithResponse);
      response.on('close', settleWithResponse);
    });
    if (options.notAfter === undefined) {
      request.end(options.body);
      return;
    }
    // Hold the request until its socket is connected (or a pooled one is assigned), then look at
    // the clock: the wait for a socket can outlast the time the caller had left.
    const notAfter = options.notAfter;
    const writeIfInTime = (): void => {
      if (settled) return;
      if (Date.now() >= notAfter) {
        fail('aborted');
        request.destroy();
        return;
      }
      request.end(options.body);
    };
    request.on('socket', (socket) => {
      if (!socket.connecting) writeIfInTime();
      else socket.once('connect', writeIfInTime);
    });
  });
}
