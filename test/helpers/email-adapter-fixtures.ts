/**
 * The submission the HTTP e-mail adapter tests (postmark, resend) start from, and the check
 * that an outcome quotes none of it: a sign-in code whose subject, code and destination are
 * canaries, so a classifier that copies the request or the provider's echo of it into an
 * outcome is caught.
 */
import { expect } from 'vitest';
import type { SubmitOutcome } from '../../src/domain/index.js';
import type { SubmitRequest } from '../../src/providers/provider.js';

/** What the content carries that no outcome may: the code and the name in the subject. */
const CONTENT_CANARIES = ['73190482', 'canary-heron'];

let sequence = 0;

/** A new delivery (its own id and idempotency key) of a sign-in code to `destination`, due within 10 min. */
export function emailOtpRequest(name: string, destination: string, over: Partial<SubmitRequest> = {}): SubmitRequest {
  sequence += 1;
  return {
    deliveryId: `dlv-${sequence}`,
    idempotencyKey: `hk_${name}AdapterTest${sequence}_${process.pid}`,
    channel: 'email',
    purpose: 'otp',
    destination,
    content: { subject: 'Sign-in code for canary-heron', text: 'Use 73190482 to sign in.', html: '<p>Use <b>73190482</b></p>' },
    expiresAt: Date.now() + 600_000,
    sendBy: Date.now() + 600_000,
    ...over,
  };
}

/** Fails unless the outcome quotes none of `secrets` (destination, credentials) and none of the content. */
export function expectPrivate(outcome: SubmitOutcome, secrets: readonly string[]): void {
  const text = JSON.stringify(outcome);
  for (const canary of [...secrets, ...CONTENT_CANARIES]) expect(text).not.toContain(canary);
}
