/**
 * The Resend adapter against its fake (test/providers/fakes/resend.ts) over real HTTP: what
 * goes on the wire, what the fake refuses, and how every answer and fault is classified.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../../src/domain/index.js';
import type { ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../../../src/providers/provider.js';
import { createResendAdapter } from '../../../src/providers/resend/adapter.js';
import { emailOtpRequest, expectPrivate } from '../../helpers/email-adapter-fixtures.js';
import { startResendFake, type ResendFake } from '../fakes/resend.js';

const API_KEY = 're_canary_9c1d5e7a2b';
const DESTINATION = 'canary.wren+7f3a@example.test';

let fake: ResendFake;
const adapters: ProviderAdapter[] = [];

beforeEach(async () => {
  fake = await startResendFake({ apiKey: API_KEY });
});

afterEach(async () => {
  await Promise.all(adapters.splice(0).map((a) => a.close()));
  await fake.close();
});

function account(over: Partial<ProviderAccountConfig> = {}, settings: Record<string, unknown> = {}): ProviderAccountConfig {
  return {
    id: 'resend-email',
    kind: 'resend',
    channel: 'email',
    base_url: fake.url,
    settings: { api_key: API_KEY, from: 'Herald <noreply@herald.test>', reply_to: 'support@herald.test', ...settings },
    rate_per_second: 2,
    burst: 2,
    ambiguity_policy: 'resend_same_key',
    timeout_ms: 5_000,
    ...over,
  };
}

function build(over: Partial<ProviderAccountConfig> = {}, settings: Record<string, unknown> = {}): ProviderAdapter {
  const adapter = createResendAdapter(account(over, settings));
  adapters.push(adapter);
  return adapter;
}

function request(over: Partial<SubmitRequest> = {}): SubmitRequest {
  return emailOtpRequest('resend', DESTINATION, over);
}

describe('resend adapter: the wire', () => {
  it("posts the e-mail with the key, the reference and purpose tags, and the worker's headers", async () => {
    const req = request({
      purpose: 'marketing',
      content: {
        subject: 'News',
        text: 'Hello',
        html: '<p>Hello</p>',
        headers: { 'List-Unsubscribe': '<https://herald.test/u/abc>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
      },
    });
    const outcome = await build().submit(req);
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: fake.emails[0]?.id });
    const [sent] = fake.received;
    expect(sent?.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent?.idempotencyKey).toBe(req.idempotencyKey);
    expect(sent?.contentType).toMatch(/^application\/json/);
    expect(sent?.json).toEqual({
      from: 'Herald <noreply@herald.test>',
      to: [DESTINATION],
      subject: 'News',
      text: 'Hello',
      html: '<p>Hello</p>',
      reply_to: 'support@herald.test',
      headers: { 'List-Unsubscribe': '<https://herald.test/u/abc>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
      tags: [
        { name: 'herald_reference', value: req.idempotencyKey },
        { name: 'herald_purpose', value: 'marketing' },
      ],
    });
  });

  it("uses the message's own sender and reply-to over the account's", async () => {
    await build().submit(request({ content: { subject: 'x', text: 'y', from: 'Billing <billing@herald.test>', reply_to: 'Desk <desk@herald.test>' } }));
    expect(fake.received[0]?.json).toMatchObject({ from: 'Billing <billing@herald.test>', reply_to: 'Desk <desk@herald.test>' });
  });

  it('leaves out the reference tag for a key outside the tag charset (the key still travels as Idempotency-Key)', async () => {
    const req = request({ idempotencyKey: 'welcome-user/123456789' });
    expect(await build().submit(req)).toMatchObject({ kind: 'accepted' });
    expect(fake.received[0]?.idempotencyKey).toBe('welcome-user/123456789');
    expect(fake.received[0]?.json?.tags).toEqual([{ name: 'herald_purpose', value: 'otp' }]);
  });

  it('offers no look-up and declares dedupe by key', () => {
    const adapter = build();
    expect(adapter.capabilities).toEqual({ lookup: false, dedupesByKey: true });
    expect(adapter.lookup).toBeUndefined();
  });
});

describe('resend adapter: what Resend refuses', () => {
  it('a wrong key: 403 invalid_api_key, permanent unauthorized, nothing created', async () => {
    const outcome = await build({}, { api_key: 're_wrong' }).submit(request());
    expect(outcome).toMatchObject({ kind: 'permanent', reason: 'unauthorized', code: 'invalid_api_key' });
    expect(fake.received[0]?.answered).toBe(403);
    expect(fake.emails).toEqual([]);
    expectPrivate(outcome, [DESTINATION, API_KEY]);
  });

  it('a recipient that is not an address: 422 validation_error, permanent', async () => {
    const outcome = await build().submit(request({ destination: 'not-an-address' }));
    expect(outcome).toMatchObject({ kind: 'permanent', code: 'validation_error' });
    expect(fake.received[0]?.answered).toBe(422);
  });

  it("a message's sender that is not a mailbox: 422 invalid_from_address", async () => {
    const outcome = await build().submit(request({ content: { subject: 'x', text: 'y', from: 'Billing billing@' } }));
    expect(outcome).toMatchObject({ kind: 'permanent', code: 'invalid_from_address' });
  });

  it('a sender on a domain Resend has not verified: 403, permanent unauthorized', async () => {
    const outcome = await build({}, { from: 'noreply@unverified.test' }).submit(request());
    expect(outcome).toMatchObject({ kind: 'permanent', reason: 'unauthorized', code: 'validation_error' });
    expect(fake.received[0]?.answered).toBe(403);
  });

  it('an Idempotency-Key longer than 256 characters: 400 invalid_idempotency_key', async () => {
    const outcome = await build().submit(request({ idempotencyKey: 'k'.repeat(257) }));
    expect(outcome).toMatchObject({ kind: 'permanent', code: 'invalid_idempotency_key' });
  });
});

describe('resend adapter: idempotency', () => {
  it('every attempt carries the same key and body; Resend replays the first acceptance', async () => {
    const adapter = build();
    const req = request();
    fake.script({ kind: 'server_error' }, { kind: 'throttled', hint: 'retry_after_seconds', seconds: 1 }, { kind: 'accept_then_reset' }, { kind: 'accept' });
    const kinds: string[] = [];
    let last: SubmitOutcome | null = null;
    for (let i = 0; i < 4; i++) {
      last = await adapter.submit(req);
      kinds.push(last.kind);
    }
    expect(kinds).toEqual(['retryable', 'throttled', 'unknown', 'accepted']);
    expect(new Set(fake.received.map((r) => r.idempotencyKey))).toEqual(new Set([req.idempotencyKey]));
    expect(new Set(fake.received.map((r) => r.raw)).size).toBe(1);
    expect(fake.emails).toHaveLength(1);
    expect(last).toEqual({ kind: 'accepted', providerMessageId: fake.emails[0]?.id });
  });

  it('a lost answer (unknown) is settled by sending again with the same key: the same id, one e-mail', async () => {
    const adapter = build({ timeout_ms: 200 });
    const req = request();
    fake.script({ kind: 'accept_then_hang' });
    expect(await adapter.submit(req)).toMatchObject({ kind: 'unknown', code: 'timeout' });
    expect(await adapter.submit(req)).toEqual({ kind: 'accepted', providerMessageId: fake.emails[0]?.id });
    expect(fake.emails).toHaveLength(1);
  });

  it('the key used again for another body: 409 invalid_idempotent_request, permanent', async () => {
    const adapter = build();
    const req = request();
    expect(await adapter.submit(req)).toMatchObject({ kind: 'accepted' });
    const changed = { ...req, content: { ...req.content, subject: 'Another subject' } };
    expect(await adapter.submit(changed)).toMatchObject({ kind: 'permanent', code: 'invalid_idempotent_request' });
    expect(fake.emails).toHaveLength(1);
  });

  it('the key still in progress: 409 concurrent_idempotent_requests, retryable', async () => {
    const adapter = build();
    const req = request();
    fake.script({ kind: 'slow', delayMs: 300 }, { kind: 'accept' });
    const first = adapter.submit(req);
    await expect.poll(() => fake.received.length).toBe(1);
    expect(await adapter.submit(req)).toMatchObject({ kind: 'retryable', code: 'concurrent_idempotent_requests' });
    expect(await first).toMatchObject({ kind: 'accepted' });
    expect(fake.emails).toHaveLength(1);
  });
});

describe('resend adapter: throttling', () => {
  const cases = [
    ['retry-after in seconds', 'retry_after_seconds', 120_000],
    ['ratelimit-reset alone', 'ratelimit_headers', 120_000],
    ['no hint', 'none', null],
  ] as const;
  for (const [label, hint, expected] of cases) {
    it(`429 with ${label}`, async () => {
      fake.script({ kind: 'throttled', hint, seconds: 120 });
      const outcome = await build().submit(request());
      expect(outcome).toMatchObject({ kind: 'throttled', code: 'rate_limit_exceeded', retryAfterMs: expected });
      expect(fake.emails).toEqual([]);
    });
  }

  it('429 with retry-after as an HTTP-date: no earlier than the date', async () => {
    fake.script({ kind: 'throttled', hint: 'retry_after_date', seconds: 120 });
    const outcome = await build().submit(request());
    expect(outcome.kind).toBe('throttled');
    const ms = (outcome as { retryAfterMs: number }).retryAfterMs;
    expect(ms).toBeGreaterThanOrEqual(115_000);
    expect(ms).toBeLessThanOrEqual(120_000);
  });

  it('429 daily_quota_exceeded: throttled under its own code', async () => {
    fake.script({ kind: 'throttled', hint: 'retry_after_seconds', seconds: 3600, name: 'daily_quota_exceeded' });
    expect(await build().submit(request())).toMatchObject({ kind: 'throttled', code: 'daily_quota_exceeded', retryAfterMs: 3_600_000 });
  });
});

describe('resend adapter: transport faults', () => {
  it('nothing listens: retryable, nothing received', async () => {
    await fake.refuse();
    expect(await build().submit(request())).toMatchObject({ kind: 'retryable', code: 'connect_failed' });
    expect(fake.received).toEqual([]);
  });

  it('sendBy has passed: retryable, not written', async () => {
    expect(await build().submit(request({ sendBy: Date.now() - 1 }))).toMatchObject({ kind: 'retryable', code: 'aborted_before_send' });
    expect(fake.received).toEqual([]);
  });

  it('no answer within the timeout: unknown', async () => {
    fake.script({ kind: 'hang' });
    expect(await build({ timeout_ms: 200 }).submit(request())).toMatchObject({ kind: 'unknown', code: 'timeout' });
    expect(fake.received).toHaveLength(1);
  });

  it('an answer that is not HTTP, quoting private data: unknown, quoting nothing', async () => {
    fake.script({ kind: 'malformed', bytes: `HTTP/1.1 2OO ${DESTINATION} ${API_KEY}\r\n\r\n` });
    const outcome = await build().submit(request());
    expect(outcome).toMatchObject({ kind: 'unknown' });
    expectPrivate(outcome, [DESTINATION, API_KEY]);
  });

  it('aborted after the request was written: unknown', async () => {
    fake.script({ kind: 'hang' });
    const controller = new AbortController();
    const pending = build().submit(request(), controller.signal);
    await expect.poll(() => fake.received.length).toBe(1);
    controller.abort();
    expect(await pending).toMatchObject({ kind: 'unknown', code: 'aborted' });
  });
});
