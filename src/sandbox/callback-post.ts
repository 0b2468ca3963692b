/**
 * One delivery attempt of one callback: a POST to the registered URL that resolves with the
 * receiver's status or with "no answer" (network error, timeout, sandbox closing). It never
 * throws, never follows redirects and never reads more of the answer than it must: the
 * status is all a provider acts on.
 */
import http from 'node:http';
import https from 'node:https';

export type PostResult = { kind: 'answered'; status: number } | { kind: 'no_answer' };

export interface CallbackPost {
  url: URL;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Pools sockets per sandbox so that closing the sandbox can destroy them all. */
export class CallbackTransport {
  // 64 sockets: a receiver under a burst of callbacks, and still a bound on what one sandbox opens.
  readonly #http = new http.Agent({ keepAlive: true, maxSockets: 64 });
  readonly #https = new https.Agent({ keepAlive: true, maxSockets: 64 });

  /** POSTs once and resolves with the status, or no_answer on any failure before a status arrived. */
  post(options: CallbackPost): Promise<PostResult> {
    const { url, signal } = options;
    return new Promise((resolve) => {
      if (signal.aborted) {
        resolve({ kind: 'no_answer' });
        return;
      }
      let settled = false;
      const settle = (result: PostResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const secure = url.protocol === 'https:';
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.#https : this.#http,
        headers: { ...options.headers, 'content-length': String(options.body.length) },
      });
      const timer = setTimeout(() => {
        settle({ kind: 'no_answer' });
        request.destroy();
      }, options.timeoutMs);
      const onAbort = (): void => {
        settle({ kind: 'no_answer' });
        request.destroy();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      request.on('error', () => settle({ kind: 'no_answer' }));
      request.on('response', (response) => {
        // Drain so the keep-alive socket can be reused; the body is not needed.
        response.resume();
        settle({ kind: 'answered', status: response.statusCode ?? 0 });
      });
      request.end(options.body);
    });
  }

  /** Destroys every pooled socket. */
  destroy(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}
