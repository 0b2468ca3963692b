/**
 * The provider adapter conformance suite (Litestream-style: one suite, every adapter, each
 * against a fake of its provider). It drives an adapter through every class of answer and
 * fault and holds it to the closed outcome union the design states:
 *
 * - a definite answer is classified: accepted with the provider's id, permanent, retryable,
 *   throttled with `retryAfterMs` read from whichever hint the provider gives;
 * - a failure before the request was completely written is `retryable` (provably not sent);
 * - a failure after it was written (reset, timeout, malformed or late answer, abort) is
 *   `unknown`, never `retryable`: the provider may have accepted it;
 * - every attempt of a delivery carries its idempotency key, exactly as the provider expects;
 * - a repeat while the provider still works on the first request is `retryable`, never a
 *   refusal: the delivery ends accepted with the first message's id, and one message exists;
 * - no outcome quotes the destination, the body, the one-time code or a credential.
 *
 * Usage, one line per adapter: `describeAdapterConformance(sandboxSubject)`.
 * docs/providers/conformance.md describes the subject interface.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OUTCOME_KINDS, type Channel, type OutcomeKind, type PermanentReason, type SubmitOutcome } from '../../../src/domain/index.js';
import type { ProviderAdapter, SubmitRequest } from '../../../src/providers/provider.js';
import { THROTTLE_HINTS, type AdapterSubject, type ConformanceFake, type ScriptedAnswer, type ThrottleHint } from './adapter-subject.js';
import { CANARY_SUBJECT, CANARY_TEXT, expectNoLeak, leakCanaries } from './canaries.js';

// Generous, so a loaded machine never turns an answer into a timeout; the timeout scenarios use their own.
const TIMEOUT_MS = 10_000;
// Small, so a test that waits for the timeout stays quick, and long enough that a loaded machine
// still opens the connection within it (at 200 ms an APNs connection, TLS and HTTP/2, once took
// longer under load 16: "timed out before the request was sent", retryable, not the case tested).
const SHORT_TIMEOUT_MS = 600;
// Three times the short timeout: late by any measure, and still a short test.
const LATE_ANSWER_MS = 1_800;
// Well inside TIMEOUT_MS: slow, but an answer the adapter must wait for.
const SLOW_ANSWER_MS = 50;
// 16 MiB: the request must still be in the adapter's hands when the connection is reset. On
// Linux loopback the kernel buffers at most tcp_wmem's 4 MiB plus the receive window a paused
// reader advertises (~128 KiB), so 'finish' cannot have fired.
const UNWRITABLE_BODY_BYTES = 16 * 1024 * 1024;
// 120 s: far from any default an adapter might invent, and from the HTTP-date's 1 s rounding.
const THROTTLE_SECONDS = 120;
// The HTTP-date is whole seconds and is read a moment after it was written.
const DATE_SLACK_MS = 5_000;

const PERMANENT_REASONS: readonly PermanentReason[] = ['invalid_destination', 'unsubscribed_at_provider', 'content_rejected', 'unauthorized', 'other'];

const HINT_TESTS: Record<ThrottleHint, string> = {
  none: 'throttled without a hint: throttled, no retryAfterMs invented',
  retry_after_seconds: 'throttled with Retry-After in delta-seconds: throttled, retryAfterMs is the hint',
  retry_after_date: 'throttled with Retry-After as an HTTP-date: throttled, retryAfterMs no earlier than the date',
  provider_header: "throttled with the provider's own rate-limit header: throttled, retryAfterMs no earlier than it says",
};

/** Asserts the outcome is of `kind` and returns it narrowed. */
function expectKind<K extends OutcomeKind>(outcome: SubmitOutcome, kind: K): Extract<SubmitOutcome, { kind: K }> {
  expect(outcome.kind, JSON.stringify(outcome)).toBe(kind);
  if (outcome.kind !== 'accepted') {
    const described = outcome as { code: unknown; message: unknown };
    expect(described.code).toEqual(expect.stringMatching(/\S/));
    expect(described.message).toEqual(expect.stringMatching(/\S/));
  }
  return outcome as Extract<SubmitOutcome, { kind: K }>;
}

function expectRetryAfter(outcome: Extract<SubmitOutcome, { kind: 'throttled' }>, hint: ThrottleHint): void {
  const retryAfterMs = outcome.retryAfterMs ?? null;
  const hinted = THROTTLE_SECONDS * 1000;
  switch (hint) {
    case 'none':
      // No hint, no invented one: backing off without a hint is the retry ladder's business.
      expect(retryAfterMs).toBeNull();
      return;
    case 'retry_after_seconds':
      expect(retryAfterMs).toBe(hinted);
      return;
    case 'retry_after_date':
    case 'provider_header':
      // A lower bound honoured: no earlier than the hint allows (less the date's rounding), never far later.
      expect(retryAfterMs).toBeGreaterThanOrEqual(hinted - DATE_SLACK_MS);
      expect(retryAfterMs).toBeLessThanOrEqual(hinted);
      return;
  }
}

/** Defines the conformance suite for one adapter: per channel it serves, one test per class of answer and fault. */
export function describeAdapterConformance(subject: AdapterSubject): void {
  describe(`adapter conformance: ${subject.name}`, () => {
    for (const channel of subject.channels) describeChannel(subject, channel);
  });
}

function describeChannel(subject: AdapterSubject, channel: Channel): void {
  const given = subject.destinations[channel];
  if (given === undefined) throw new Error(`subject ${subject.name} serves ${channel} but gives no destination for it`);
  const destination: string = given;
  const canaries = leakCanaries(destination, subject.credentials);

  describe(channel, () => {
    let fake: ConformanceFake;
    const adapters: ProviderAdapter[] = [];
    let sequence = 0;

    beforeEach(async () => {
      fake = await subject.start(channel);
    });

    afterEach(async () => {
      await Promise.all(adapters.splice(0).map((adapter) => adapter.close()));
      await fake.close();
    });

    function build(timeoutMs = TIMEOUT_MS): ProviderAdapter {
      const adapter = fake.adapter({ timeoutMs });
      adapters.push(adapter);
      return adapter;
    }

    function request(overrides: Partial<SubmitRequest> = {}): SubmitRequest {
      sequence += 1;
      const expiresAt = Date.now() + 10 * 60_000;
      return {
        deliveryId: `dlv-conformance-${sequence}`,
        idempotencyKey: `herald-conformance-${process.pid}-${channel}-${sequence}`,
        channel,
        purpose: 'otp',
        destination,
        content: { subject: CANARY_SUBJECT, text: CANARY_TEXT },
        expiresAt,
        // As the worker calls it: the challenge clock translated for the transport.
        sendBy: expiresAt,
        ...overrides,
      };
    }

    /** Submits and checks what holds for every outcome: a member of the union, quoting no canary. */
    async function submit(adapter: ProviderAdapter, req: SubmitRequest, signal?: AbortSignal): Promise<SubmitOutcome> {
      const outcome = await adapter.submit(req, signal);
      expect(OUTCOME_KINDS).toContain(outcome.kind);
      expectNoLeak(outcome, canaries);
      return outcome;
    }

    describe('the seam', () => {
      it('offers lookup exactly when its capabilities say so', () => {
        const adapter = build();
        expect(typeof adapter.lookup === 'function').toBe(adapter.capabilities.lookup);
      });
    });

    describe('definite answers are classified', () => {
      it('accepted: with the id the provider assigned', async () => {
        await fake.script({ kind: 'accept' });
        const outcome = await submit(build(), request());
        const ids = await fake.acceptedIds();
        expect(ids).toHaveLength(1);
        expect(outcome).toEqual({ kind: 'accepted', providerMessageId: ids[0] });
      });

      it('permanent: a definite refusal for good, with a permanent reason', async () => {
        await fake.script({ kind: 'permanent' });
        const outcome = expectKind(await submit(build(), request()), 'permanent');
        expect(PERMANENT_REASONS).toContain(outcome.reason);
        expect(await fake.acceptedIds()).toEqual([]);
      });

      it('retryable: a definite refusal that permits another call', async () => {
        await fake.script({ kind: 'retryable' });
        expectKind(await submit(build(), request()), 'retryable');
        expect(await fake.acceptedIds()).toEqual([]);
      });

      for (const hint of THROTTLE_HINTS) {
        const support = subject.throttleHints[hint];
        const name = HINT_TESTS[hint];
        if (support !== true) {
          it.skip(`${name} (skipped: ${support.skip})`, () => {});
          continue;
        }
        it(name, async () => {
          await fake.script({ kind: 'throttled', hint, seconds: THROTTLE_SECONDS });
          const outcome = expectKind(await submit(build(), request()), 'throttled');
          expectRetryAfter(outcome, hint);
          expect(await fake.acceptedIds()).toEqual([]);
        });
      }
    });

    describe('nothing sent: retryable, not unknown', () => {
      it('the connection is refused', async () => {
        await fake.script({ kind: 'refuse_connection' });
        expectKind(await submit(build(), request()), 'retryable');
        expect(await fake.received()).toEqual([]);
      });

      const large = subject.largeRequests ?? true;
      const resetWhileWriting = 'the connection is reset while the request is still being written';
      if (large !== true) {
        it.skip(`${resetWhileWriting} (skipped: ${large.skip})`, () => {});
      } else {
        it(resetWhileWriting, async () => {
          await fake.script({ kind: 'reset_while_writing' });
          const big = request({ content: { subject: CANARY_SUBJECT, text: `${CANARY_TEXT} ${'x'.repeat(UNWRITABLE_BODY_BYTES)}` } });
          expectKind(await submit(build(), big), 'retryable');
          expect(await fake.received()).toEqual([]);
        });
      }

      it('sendBy has passed before the request could be written', async () => {
        expectKind(await submit(build(), request({ sendBy: Date.now() - 1 })), 'retryable');
        expect(await fake.received()).toEqual([]);
      });

      it('the signal was aborted before the call', async () => {
        const controller = new AbortController();
        controller.abort();
        expectKind(await submit(build(), request(), controller.signal), 'retryable');
        expect(await fake.received()).toEqual([]);
      });
    });

    describe('may have been sent: unknown, never retryable', () => {
      it('the connection is reset after the request was written, before the answer', async () => {
        await fake.script({ kind: 'reset_after_write' });
        expectKind(await submit(build(), request()), 'unknown');
        expect(await fake.received()).toHaveLength(1);
      });

      it('no answer within timeout_ms', async () => {
        await fake.script({ kind: 'hang' });
        expectKind(await submit(build(SHORT_TIMEOUT_MS), request()), 'unknown');
        expect(await fake.received()).toHaveLength(1);
      });

      it('an answer that is not the protocol (malformed), quoting private data', async () => {
        await fake.script({ kind: 'malformed_answer', canaries });
        expectKind(await submit(build(), request()), 'unknown');
        expect(await fake.received()).toHaveLength(1);
      });

      it('an answer that comes after timeout_ms', async () => {
        await fake.script({ kind: 'slow_answer', delayMs: LATE_ANSWER_MS });
        expectKind(await submit(build(SHORT_TIMEOUT_MS), request()), 'unknown');
        expect(await fake.received()).toHaveLength(1);
      });

      it('the signal is aborted after the request was written', async () => {
        await fake.script({ kind: 'hang' });
        const controller = new AbortController();
        const pending = submit(build(), request(), controller.signal);
        await vi.waitFor(async () => expect(await fake.received()).toHaveLength(1), { timeout: 5_000, interval: 5 });
        controller.abort();
        expectKind(await pending, 'unknown');
      });

      it('control: a slow answer within timeout_ms is still accepted', async () => {
        await fake.script({ kind: 'slow_answer', delayMs: SLOW_ANSWER_MS });
        const outcome = expectKind(await submit(build(), request()), 'accepted');
        expect(await fake.acceptedIds()).toEqual([outcome.providerMessageId]);
      });
    });

    describe('idempotency', () => {
      const idempotency = subject.idempotency;
      const name = 'every attempt of a delivery carries its idempotency key, as the provider expects it';
      if ('skip' in idempotency) {
        it.skip(`${name} (skipped: ${idempotency.skip})`, () => {});
        return;
      }
      it(name, async () => {
        const adapter = build();
        const req = request();
        const hint = THROTTLE_HINTS.find((h) => subject.throttleHints[h] === true);
        const attempts: Array<[ScriptedAnswer, OutcomeKind]> = [[{ kind: 'retryable' }, 'retryable']];
        if (hint !== undefined) attempts.push([{ kind: 'throttled', hint, seconds: 1 }, 'throttled']);
        attempts.push([{ kind: 'reset_after_write' }, 'unknown'], [{ kind: 'accept' }, 'accepted']);
        for (const [answer, kind] of attempts) {
          await fake.script(answer);
          expectKind(await submit(adapter, req), kind);
        }
        const expected = idempotency.carried(req.idempotencyKey);
        expect((await fake.received()).map((r) => r.carriedKey)).toEqual(attempts.map(() => expected));
        // A second delivery is a second logical message: its own key.
        const other = request();
        await fake.script({ kind: 'accept' });
        expectKind(await submit(adapter, other), 'accepted');
        expect((await fake.received()).at(-1)?.carriedKey).toBe(idempotency.carried(other.idempotencyKey));
        expect(idempotency.carried(other.idempotencyKey)).not.toBe(expected);
      });

      const inProgress = subject.keyInProgress;
      const held = 'a repeat while the first request is still in progress is retryable; the delivery ends accepted with the first id, one message';
      if (inProgress !== true) {
        it.skip(`${held} (skipped: ${inProgress.skip})`, () => {});
        return;
      }
      it(held, async () => {
        const req = request();
        // The first call outlives the timeout while the provider works on it: unknown.
        await fake.script({ kind: 'accept_held' });
        expectKind(await submit(build(SHORT_TIMEOUT_MS), req), 'unknown');
        // The policy's resend with the same key, while the first is still in progress.
        const adapter = build();
        expectKind(await submit(adapter, req), 'retryable');
        expect(await fake.acceptedIds()).toEqual([]);
        await fake.release!();
        // Asked again later: the first request's answer.
        const ids = await fake.acceptedIds();
        expect(ids).toHaveLength(1);
        expect(await submit(adapter, req)).toEqual({ kind: 'accepted', providerMessageId: ids[0] });
        expect(await fake.acceptedIds()).toEqual(ids);
      });
    });
  });
}
