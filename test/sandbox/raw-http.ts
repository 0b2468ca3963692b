/**
 * A deliberately plain HTTP client for the sandbox tests: one fresh connection per request
 * (no pooling, so tests cannot disturb each other), and an answer, a transport error or a
 * client-side timeout as distinct results, so a test can tell "no response" from "error".
 */
import http, { type IncomingHttpHeaders } from 'node:http';

export type RawResult =
  { kind: 'answer'; status: number; headers: IncomingHttpHeaders; body: any } | { kind: 'error'; code: string | undefined } | { kind: 'timeout' };

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | object;
  timeoutMs?: number;
}

/** Sends one request and resolves with its answer, error or timeout; never rejects. */
export function rawRequest(baseUrl: string, request: RawRequest): Promise<RawResult> {
  const body = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  const headers: Record<string, string> = { ...request.headers };
  if (typeof request.body === 'object' && headers['content-type'] === undefined) {
    headers['content-type'] = 'application/json';
  }
  return new Promise((resolve) => {
    let done = false;
    const finish = (result: RawResult): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = http.request(new URL(request.path, baseUrl), {
      method: request.method ?? 'GET',
      headers,
      agent: false,
    });
    const timer = setTimeout(() => {
      finish({ kind: 'timeout' });
      req.destroy();
    }, request.timeoutMs ?? 5_000);
    req.on('error', (error: NodeJS.ErrnoException) => finish({ kind: 'error', code: error.code }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text === '' ? null : JSON.parse(text);
        } catch {
          // keep the raw text: a test asserting on JSON fields will then fail visibly
        }
        finish({ kind: 'answer', status: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
    });
    req.end(body);
  });
}

/** Asserts the result is an HTTP answer and returns it, for terse tests. */
export function answered(result: RawResult): Extract<RawResult, { kind: 'answer' }> {
  if (result.kind !== 'answer') {
    throw new Error(`expected an HTTP answer, got ${JSON.stringify(result)}`);
  }
  return result;
}

let keySequence = 0;

/** Returns an idempotency key unique within the test run. */
export function freshKey(prefix = 'key'): string {
  keySequence += 1;
  return `${prefix}-${process.pid}-${keySequence}`;
}

/** Sends a valid e-mail through the sandbox's Resend-shaped endpoint. */
export function sendEmail(
  baseUrl: string,
  key: string,
  options: { to?: string | string[]; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<RawResult> {
  return rawRequest(baseUrl, {
    method: 'POST',
    path: '/emails',
    headers: { 'idempotency-key': key, ...options.headers },
    body: { to: options.to ?? 'ada@example.test', subject: 'Hello', text: 'Your code is 123456' },
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}

/** Sends a valid SMS through the sandbox's Twilio-shaped endpoint. */
export function sendSms(baseUrl: string, key: string, options: { to?: string; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<RawResult> {
  return rawRequest(baseUrl, {
    method: 'POST',
    path: '/2010-04-01/Accounts/sandbox/Messages.json',
    headers: { 'idempotency-key': key, 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    body: new URLSearchParams({ To: options.to ?? '+15551234567', Body: 'Code 123456' }).toString(),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}
