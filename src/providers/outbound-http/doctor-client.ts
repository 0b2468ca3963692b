/**
 * The GETs `herald doctor` makes to one account's API (twilio, telnyx): under the account's
 * `base_url` (else the kind's public API), with the caller's headers and the account's timeout,
 * over one agent of their own that `close()` ends. Nothing is sent but reads.
 */
import http from 'node:http';
import https from 'node:https';
import type { ProviderAccountConfig } from '../provider.js';
import { endpointUrl } from './endpoint.js';
import { exchangeOnce, type ExchangeResult } from './exchange.js';

/** A doctor's reader of one account's API; `base` is the URL it reads under. */
export function doctorClient(account: ProviderAccountConfig, publicApiUrl: string, headers: Readonly<Record<string, string>>, signal: AbortSignal) {
  const base = new URL(account.base_url ?? publicApiUrl);
  const agent = base.protocol === 'https:' ? new https.Agent() : new http.Agent();
  return {
    base,
    get: (path: string, query: Record<string, string> = {}): Promise<ExchangeResult> =>
      exchangeOnce({
        method: 'GET',
        url: endpointUrl(base, path, new URLSearchParams(query)),
        headers: { ...headers },
        body: Buffer.alloc(0),
        timeoutMs: account.timeout_ms,
        signal,
        agent,
      }),
    close: (): void => agent.destroy(),
  };
}
