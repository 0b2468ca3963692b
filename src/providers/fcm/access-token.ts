/**
 * OAuth 2 access tokens for FCM from a service-account key (Google's "service account" flow,
 * RFC 7523 JWT bearer grant): a JWT signed RS256 with the key (`iss` the account's e-mail, `scope`
 * firebase.messaging, `aud` the token endpoint, valid one hour), exchanged at the key's
 * `token_uri` for a bearer token that lives about an hour.
 *
 * One token serves every send of the account. It is kept until five minutes before it expires
 * (google-auth-library's default eager-refresh threshold, DEFAULT_EAGER_REFRESH_THRESHOLD_MILLIS),
 * so no send leaves with a token that could expire in flight; concurrent sends with no token wait
 * for one exchange, not one each; and a token FCM refuses (401) is dropped so the next send gets
 * a fresh one.
 */
import type http from 'node:http';
import { SignJWT } from 'jose';
import type { SubmitOutcome } from '../../domain/index.js';
import { exchangeOnce } from '../outbound-http/exchange.js';
import { classifyTokenResponse, type TokenAnswer } from './classify.js';
import { FCM_SCOPE, type ServiceAccount } from './settings.js';

/** Refresh this long before the token's expiry (google-auth-library: 5 minutes). */
export const EAGER_REFRESH_MS = 5 * 60_000;
/** The assertion's lifetime: Google accepts at most one hour. */
const ASSERTION_LIFETIME_S = 3600;

export type AccessTokenResult = { kind: 'token'; accessToken: string } | { kind: 'failed'; outcome: SubmitOutcome };

export interface AccessTokenSourceOptions {
  serviceAccount: ServiceAccount;
  agent: http.Agent;
  /** Budget of one exchange. */
  timeoutMs: number;
  /** Epoch ms: the clock tokens expire by. */
  now: () => number;
}

/** Signs the JWT bearer assertion for `serviceAccount` at `nowMs`. */
export async function signAssertion(serviceAccount: ServiceAccount, nowMs: number): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  return new SignJWT({ scope: FCM_SCOPE })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(serviceAccount.privateKeyId === null ? {} : { kid: serviceAccount.privateKeyId }) })
    .setIssuer(serviceAccount.clientEmail)
    .setAudience(serviceAccount.tokenUri)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ASSERTION_LIFETIME_S)
    .sign(serviceAccount.privateKey);
}

function raceDeadline(pending: Promise<TokenAnswer>, timeoutMs: number, signal: AbortSignal | undefined): Promise<AccessTokenResult> {
  return new Promise((resolve) => {
    const done = (r: AccessTokenResult): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    const onAbort = (): void =>
      done({
        kind: 'failed',
        outcome: { kind: 'retryable', code: 'aborted_before_send', message: 'aborted while obtaining an access token; nothing was sent' },
      });
    const timer = setTimeout(
      () =>
        done({ kind: 'failed', outcome: { kind: 'retryable', code: 'fcm_token_timeout', message: 'no access token before the timeout; nothing was sent' } }),
      Math.max(0, timeoutMs),
    );
    if (signal?.aborted === true) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (answer) => done(answer.kind === 'token' ? { kind: 'token', accessToken: answer.accessToken } : answer),
      () =>
        done({
          kind: 'failed',
          outcome: { kind: 'retryable', code: 'fcm_token_unavailable', message: 'the access token could not be obtained; nothing was sent' },
        }),
    );
  });
}

/** The account's access tokens: cached, shared by concurrent sends, refreshed early and after a refusal. */
export class AccessTokenSource {
  private cached: { accessToken: string; expiresAtMs: number } | null = null;
  private inflight: Promise<TokenAnswer> | null = null;
  /** Exchanges made, for tests and `herald doctor`. */
  exchanges = 0;

  constructor(private readonly opts: AccessTokenSourceOptions) {}

  /** A token valid for at least EAGER_REFRESH_MS, or why none could be had within `timeoutMs`. */
  get(timeoutMs: number, signal?: AbortSignal): Promise<AccessTokenResult> {
    const c = this.cached;
    if (c !== null && this.opts.now() < c.expiresAtMs - EAGER_REFRESH_MS) return Promise.resolve({ kind: 'token', accessToken: c.accessToken });
    this.inflight ??= this.exchange().finally(() => {
      this.inflight = null;
    });
    return raceDeadline(this.inflight, timeoutMs, signal);
  }

  /** Forgets `accessToken` (FCM refused it), so the next `get` exchanges again. */
  invalidate(accessToken: string): void {
    if (this.cached?.accessToken === accessToken) this.cached = null;
  }

  private async exchange(): Promise<TokenAnswer> {
    this.exchanges += 1;
    const sa = this.opts.serviceAccount;
    const assertion = await signAssertion(sa, this.opts.now());
    const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
    const result = await exchangeOnce({
      url: new URL(sa.tokenUri),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'user-agent': 'herald-fcm' },
      body: Buffer.from(form.toString()),
      timeoutMs: this.opts.timeoutMs,
      agent: this.opts.agent,
    });
    if (result.kind === 'failure') {
      const { cause, code } = result.failure;
      const detail = code === undefined ? cause : `${cause} ${code}`;
      return {
        kind: 'failed',
        outcome: { kind: 'retryable', code: 'fcm_token_unavailable', message: `the token endpoint could not be reached (${detail}); nothing was sent` },
      };
    }
    const answer = classifyTokenResponse(result, this.opts.now());
    if (answer.kind === 'token') this.cached = { accessToken: answer.accessToken, expiresAtMs: answer.expiresAtMs };
    return answer;
  }
}
