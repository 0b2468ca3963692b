/**
 * SNS signing certificates, fetched from the URL a message names (only after sns-message.ts
 * accepted that URL) and cached by URL until they expire. The trust anchor is the URL rule plus
 * TLS: the bytes come over HTTPS from the topic's own `sns.<region>.amazonaws.com`, as AWS's
 * own validators (aws-js-sns-message-validator, aws-php-sns-message-validator) take them.
 *
 * `SnsFetch` is the one way out to the network, for certificates and subscription
 * confirmations alike. Production uses `fetchFromSns` (HTTPS, no redirects, bounded time and
 * size); tests inject one that serves their own certificates for the same AWS URLs, so the URL
 * rule is never loosened to let a test host through.
 */
import { X509Certificate, type KeyObject } from 'node:crypto';

/** What a GET to an SNS URL answered. */
export interface SnsHttpAnswer {
  status: number;
  body: string;
}

/** Performs one GET of an already-vetted SNS URL; rejects on a transport failure. */
export type SnsFetch = (url: URL, signal: AbortSignal) => Promise<SnsHttpAnswer>;

// A PEM certificate is ~2 KiB and a ConfirmSubscriptionResponse well under 1 KiB.
const MAX_ANSWER_BYTES = 64 * 1024;

/** GETs over HTTPS with the platform's fetch: certificate checks on, redirects refused, the body capped. */
export const fetchFromSns: SnsFetch = async (url, signal) => {
  if (url.protocol !== 'https:') throw new Error('SNS URLs are fetched over https only');
  const response = await fetch(url, { redirect: 'error', signal, headers: { accept: '*/*', 'user-agent': 'herald-sns-verifier' } });
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Node's web ReadableStream is async-iterable; leaving the loop early cancels it.
  for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) throw new Error('SNS answer too large');
    chunks.push(chunk);
  }
  return { status: response.status, body: Buffer.concat(chunks).toString('utf8') };
};

export type CertificateResult =
  | { ok: true; key: KeyObject }
  /** `unavailable`: the fetch failed or SNS answered 5xx (the sender should retry); `invalid`: not a usable certificate. */
  | { ok: false; reason: 'unavailable' | 'invalid'; detail: string };

interface Cached {
  key: KeyObject;
  validToMs: number;
}

export interface CertificateCacheOptions {
  fetch: SnsFetch;
  /** Per fetch. Default 5 s: SNS waits 15 s for the whole answer by default. */
  timeoutMs?: number;
  /** Certificates kept. Default 64: SNS signs with one certificate per region at a time. */
  maxEntries?: number;
}

/** Fetches, checks and caches SNS signing certificates by URL; concurrent requests for one URL share one fetch. */
export class CertificateCache {
  private readonly cached = new Map<string, Cached>();
  private readonly inFlight = new Map<string, Promise<CertificateResult>>();
  private readonly timeoutMs: number;
  private readonly maxEntries: number;

  constructor(private readonly opts: CertificateCacheOptions) {
    this.timeoutMs = opts.timeoutMs ?? 5_000;
    this.maxEntries = opts.maxEntries ?? 64;
  }

  /** The public key of the certificate at `url`, valid at `nowMs`. */
  async publicKey(url: URL, nowMs: number): Promise<CertificateResult> {
    const href = url.href;
    const hit = this.cached.get(href);
    if (hit && nowMs <= hit.validToMs) return { ok: true, key: hit.key };
    if (hit) this.cached.delete(href);
    let pending = this.inFlight.get(href);
    if (!pending) {
      pending = this.load(url, nowMs).finally(() => this.inFlight.delete(href));
      this.inFlight.set(href, pending);
    }
    return pending;
  }

  private async load(url: URL, nowMs: number): Promise<CertificateResult> {
    let answer: SnsHttpAnswer;
    try {
      answer = await this.opts.fetch(url, AbortSignal.timeout(this.timeoutMs));
    } catch (error) {
      return { ok: false, reason: 'unavailable', detail: `the signing certificate could not be fetched (${(error as Error).name})` };
    }
    if (answer.status >= 500 || answer.status === 429)
      return { ok: false, reason: 'unavailable', detail: `the signing certificate URL answered HTTP ${answer.status}` };
    if (answer.status !== 200) return { ok: false, reason: 'invalid', detail: `the signing certificate URL answered HTTP ${answer.status}` };
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(answer.body);
    } catch {
      return { ok: false, reason: 'invalid', detail: 'the signing certificate URL did not serve a certificate' };
    }
    const validFrom = Date.parse(certificate.validFrom);
    const validTo = Date.parse(certificate.validTo);
    if (!(validFrom <= nowMs && nowMs <= validTo)) return { ok: false, reason: 'invalid', detail: 'the signing certificate is not valid now' };
    if (certificate.publicKey.asymmetricKeyType !== 'rsa') return { ok: false, reason: 'invalid', detail: 'the signing certificate has no RSA key' };
    if (this.cached.size >= this.maxEntries) {
      const oldest = this.cached.keys().next().value;
      if (oldest !== undefined) this.cached.delete(oldest);
    }
    this.cached.set(url.href, { key: certificate.publicKey, validToMs: validTo });
    return { ok: true, key: certificate.publicKey };
  }
}
