/**
 * The account and the submission every push adapter test and conformance subject (apns, fcm,
 * webpush) starts from: the
 * defaults the push kinds ship with (resend_same_key, and dedupes_by_key because a resend carries
 * the same collapse identity), a rate no test waits on, and a one-time code that expires ten
 * minutes after the test's clock. Only the kind's settings and the destination differ.
 */
import type { ProviderAccountConfig, SubmitRequest } from '../../src/providers/provider.js';

/** A `kind` push account against `baseUrl` with the kind's `settings`; `over` replaces any field. */
export function pushTestAccount(
  kind: string,
  baseUrl: string,
  settings: Record<string, unknown>,
  over: Partial<ProviderAccountConfig> = {},
): ProviderAccountConfig {
  return {
    id: `${kind}-test`,
    kind,
    channel: 'push',
    base_url: baseUrl,
    settings,
    rate_per_second: 100,
    burst: 100,
    ambiguity_policy: 'resend_same_key',
    capabilities: { lookup: false, dedupes_by_key: true },
    timeout_ms: 5_000,
    ...over,
  };
}

let sequence = 0;

/** A new delivery (its own id and idempotency key) of a sign-in code to `destination`, expiring at `now` + 10 min. */
export function pushOtpRequest(kind: string, destination: string, now: number, over: Partial<SubmitRequest> = {}): SubmitRequest {
  sequence += 1;
  return {
    deliveryId: `dlv-${sequence}`,
    idempotencyKey: `hk_${kind}-test-${sequence}`,
    channel: 'push',
    purpose: 'otp',
    destination,
    content: { subject: 'Sign-in code', text: 'Your code is 73190482' },
    expiresAt: now + 600_000,
    ...over,
  };
}
