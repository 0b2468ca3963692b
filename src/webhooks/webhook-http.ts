/**
 * The one HTTP client customer webhooks go out through: node:http/https with keep-alive agents
 * whose DNS lookup is the address policy's (connect-time SSRF check), no redirects (node:http
 * never follows them), one deadline for the whole exchange, and a cap on how much of a response
 * is read: Herald only needs the status, and an endpoint that streams forever must not hold a
 * socket or memory.
 */
import http from 'node:http';
import https from 'node:https';
import { ADDRESS_REFUSED, type AddressPolicy } from './address-policy.js';

export type PostResult =
  | { kind: 'response'; status: number; retryAfter: string | null }
  /** No response: refused by policy, connection failed or reset, or the deadline passed. */
  | { kind: 'error'; error: string };

export interface WebhookHttpOptions {
  policy: AddressPolicy;
  /** Deadline for connect + request + response headers + reading the capped body. Default 15 s (the spec suggests 15-30 s). */
  timeoutMs?: number;
  /** Response bytes read before the socket is dropped. Default 64 KiB. */
  maxResponseBytes?: number;
  userAgent?: string;
}

/** Posts webhook bodies through policy-checked keep-alive agents; one instance per sender. */
export class WebhookHttpClient {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly userAgent: string;

  constructor(private readonly opts: WebhookHttpOptions) {
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.maxResponseBytes = opts.maxResponseBytes ?? 64 * 1024;
    this.userAgent = opts.userAgent ?? 'Herald-Webhooks/1';
    // The agents' own lookup: every new connection is checked, reused ones were checked when opened.
    const agentOptions = { keepAlive: true, maxSockets: 64, lookup: opts.policy.lookup };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(agentOptions);
  }

  /** POSTs a JSON body; resolves (never rejects) with the status or why there was none. */
  post(rawUrl: string, headers: Record<string, string>, body: string): Promise<PostResult> {
    // Checked again at send time: the allow list may have narrowed since registration, and an IP
    // literal never reaches the lookup (node:net skips DNS for it).
    const parsed = this.opts.policy.parseUrl(rawUrl);
    if (!parsed.ok) return Promise.resolve({ kind: 'error', error: `refused: the URL ${parsed.reason}` });
    const url = parsed.url;
    const secure = url.protocol === 'https:';
    return new Promise<PostResult>((resolve) => {
      let settled = false;
      const settle = (r: PostResult) => {
        if (!settled) {
          settled = true;
          resolve(r);
        }
      };
      const req = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': this.userAgent,
        },
      });
      const timer = setTimeout(
        () => req.destroy(Object.assign(new Error(`no complete response within ${this.timeoutMs} ms`), { code: 'ETIMEDOUT' })),
        this.timeoutMs,
      );
      const done = () => clearTimeout(timer);
      req.on('response', (res) => {
        const retryAfter = res.headers['retry-after'];
        settle({ kind: 'response', status: res.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : null });
        // Drained so a keep-alive socket can be reused, up to the cap; beyond it the socket goes.
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > this.maxResponseBytes) res.destroy();
        });
        res.on('error', done);
        res.on('end', done);
        res.on('close', done);
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        done();
        settle({ kind: 'error', error: describe(err) });
      });
      req.end(body);
    });
  }

  /** Closes idle keep-alive sockets. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

function describe(err: NodeJS.ErrnoException): string {
  if (err.code === ADDRESS_REFUSED) return `refused: ${err.message}`;
  return err.code ? `${err.code}: ${err.message}` : err.message;
}
