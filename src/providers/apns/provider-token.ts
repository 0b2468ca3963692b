/**
 * APNs provider authentication tokens: an ES256 JWT signed with the account's `.p8` key, header
 * `{alg: ES256, kid: <key id>}`, claims `{iss: <team id>, iat: <epoch seconds>}`
 * (https://developer.apple.com/documentation/usernotifications/establishing-a-token-based-connection-to-apns).
 *
 * Apple's two rules bound its lifetime from both sides: APNs refuses a token older than one hour
 * (403 ExpiredProviderToken), and one replaced more often than every 20 minutes
 * (429 TooManyProviderTokenUpdates). So one token serves every send for 50 minutes (ten minutes
 * before APNs would refuse it, whatever the clocks' skew), and is regenerated early only when
 * APNs says it expired and it is at least 20 minutes old; a token younger than that which APNs
 * calls expired means a clock is wrong, and a new one would only earn the 429.
 */
import type { KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';

/** Regenerate after 50 minutes: APNs refuses tokens older than 60. */
export const TOKEN_REFRESH_AFTER_MS = 50 * 60_000;
/** Never regenerate a token younger than 20 minutes (TooManyProviderTokenUpdates). */
export const TOKEN_MIN_LIFETIME_MS = 20 * 60_000;

export interface ProviderToken {
  jwt: string;
  /** Epoch ms it was issued at (its `iat`, before rounding to seconds). */
  issuedAtMs: number;
}

export interface ProviderTokenOptions {
  keyId: string;
  teamId: string;
  signingKey: KeyObject;
  now: () => number;
}

/** The account's one provider token, shared by every concurrent send. */
export class ProviderTokens {
  private token: Promise<ProviderToken> | null = null;
  /** When the token in `token` was (or is being) issued: set before signing, so concurrent sends never make two. */
  private issuedAtMs = 0;
  /** Tokens generated, for tests and `herald doctor`. */
  generated = 0;

  constructor(private readonly opts: ProviderTokenOptions) {}

  /** The current token, regenerated once it is TOKEN_REFRESH_AFTER_MS old. */
  current(): Promise<ProviderToken> {
    if (this.token === null || this.opts.now() - this.issuedAtMs >= TOKEN_REFRESH_AFTER_MS) this.token = this.generate();
    return this.token;
  }

  /**
   * After APNs answered ExpiredProviderToken to `refused`: the token to try once more with (a
   * newer one another send already made, or a new one if `refused` is at least
   * TOKEN_MIN_LIFETIME_MS old), or null when no other token may be used yet.
   */
  async replacementFor(refused: ProviderToken): Promise<ProviderToken | null> {
    const current = await this.current();
    if (current.jwt !== refused.jwt) return current;
    if (this.opts.now() - refused.issuedAtMs < TOKEN_MIN_LIFETIME_MS) return null;
    this.token = this.generate();
    return this.token;
  }

  private generate(): Promise<ProviderToken> {
    this.generated += 1;
    const issuedAtMs = this.opts.now();
    this.issuedAtMs = issuedAtMs;
    const signing = new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: this.opts.keyId })
      .setIssuer(this.opts.teamId)
      .setIssuedAt(Math.floor(issuedAtMs / 1000))
      .sign(this.opts.signingKey)
      .then((jwt) => ({ jwt, issuedAtMs }));
    // A failed signature is not kept: the next send tries again.
    signing.catch(() => {
      if (this.token === signing) this.token = null;
    });
    return signing;
  }
}
