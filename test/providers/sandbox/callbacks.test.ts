/**
 * The sandbox kind's callback verifier: signature over the raw bytes first (401), then the
 * body parsed into one CallbackEvent (400 when signed but malformed), the account's secrets
 * from configuration, and end to end against callbacks a real sandbox emits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CallbackRequest, ProviderAccountConfig, ProviderAdapter } from '../../../src/providers/provider.js';
import { createSandboxAdapter } from '../../../src/providers/sandbox/adapter.js';
import { createSandboxCallbackVerifier } from '../../../src/providers/sandbox/callbacks.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { generateWebhookSecret, signWebhook } from '../../../src/signing/standard-webhooks.js';
import { startReceiver } from '../../sandbox/callback-receiver.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD_SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const adapters: ProviderAdapter[] = [];

afterEach(async () => {
  await Promise.all(adapters.splice(0).map((a) => a.close()));
});

function eventBody(data: Record<string, unknown> = {}, top: Record<string, unknown> = {}): Record<string, unknown> {
  const status = (data.status as string | undefined) ?? 'delivered';
  return {
    type: `message.${status}`,
    timestamp: '2025-01-15T11:59:58.000Z',
    data: { event_id: 'evt_1', provider_message_id: 'SM1', reference: 'key-1', channel: 'sms', status, ...data },
    ...top,
  };
}

function signed(body: unknown, options: { secret?: string; id?: string; at?: number } = {}): CallbackRequest {
  const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const headers = signWebhook([options.secret ?? SECRET], options.id ?? 'evt_1', options.at ?? NOW, raw);
  return { rawBody: raw, headers: { ...headers, 'content-type': 'application/json' }, url: 'https://herald.test/v1/callbacks/x' };
}

const verifier = createSandboxCallbackVerifier([SECRET]);

describe('verification before parsing', () => {
  it('a signed event parses into one CallbackEvent', () => {
    expect(verifier.verify(signed(eventBody()), NOW)).toEqual({
      ok: true,
      events: [
        {
          eventId: 'evt_1',
          status: 'delivered',
          providerMessageId: 'SM1',
          reference: 'key-1',
          occurredAt: Date.parse('2025-01-15T11:59:58.000Z'),
          suppress: null,
        },
      ],
    });
  });

  it.each([
    ['missing headers', (r: CallbackRequest) => ({ ...r, headers: {} }), 'missing_headers'],
    ['another secret', () => signed(eventBody(), { secret: generateWebhookSecret() }), 'bad_signature'],
    ['a tampered body', (r: CallbackRequest) => ({ ...r, rawBody: Buffer.from(r.rawBody.toString().replace('SM1', 'SM2')) }), 'bad_signature'],
    ['a stale timestamp', () => signed(eventBody(), { at: NOW - 6 * 60_000 }), 'stale_timestamp'],
    ['unsigned garbage', () => ({ rawBody: Buffer.from('{{{'), headers: {}, url: 'x' }), 'missing_headers'],
  ])('%s: 401 callback_signature_invalid', (_, make, detail) => {
    expect(verifier.verify(make(signed(eventBody())), NOW)).toEqual({ ok: false, status: 401, code: 'callback_signature_invalid', detail });
  });

  it('header names are matched case-insensitively', () => {
    const request = signed(eventBody());
    const upper = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifier.verify({ ...request, headers: upper }, NOW).ok).toBe(true);
  });

  it('rotation: any listed secret verifies', () => {
    const rotating = createSandboxCallbackVerifier([SECRET, OLD_SECRET]);
    expect(rotating.verify(signed(eventBody(), { secret: OLD_SECRET }), NOW).ok).toBe(true);
    expect(verifier.verify(signed(eventBody(), { secret: OLD_SECRET }), NOW).ok).toBe(false);
  });
});

describe('parsing', () => {
  it.each([
    [{ status: 'sent' }, 'sent', null],
    [{ status: 'delivered' }, 'delivered', null],
    [{ status: 'failed' }, 'failed', null],
    [{ status: 'bounced', bounce_type: 'hard' }, 'bounced', 'bounced'],
    [{ status: 'bounced', bounce_type: 'soft' }, 'bounced', null],
    [{ status: 'bounced' }, 'bounced', null],
    [{ status: 'complained' }, 'complained', 'complained'],
  ])('%j: status %s, suppress %s', (data, status, suppress) => {
    const parsed = verifier.verify(signed(eventBody(data)), NOW);
    expect(parsed).toMatchObject({ ok: true, events: [{ status, suppress }] });
  });

  it('a missing reference is null', () => {
    const body = eventBody();
    delete (body.data as Record<string, unknown>).reference;
    expect(verifier.verify(signed(body), NOW)).toMatchObject({ ok: true, events: [{ reference: null, providerMessageId: 'SM1' }] });
  });

  const MALFORMED: Array<[string, unknown, string?]> = [
    ['not JSON', '{"type":'],
    ['an array', [eventBody()]],
    ['data not an object', { ...eventBody(), data: 'x' }],
    ['type and status disagree', eventBody({}, { type: 'message.sent' })],
    ['status accepted', eventBody({ status: 'accepted' })],
    ['an unknown status', eventBody({ status: 'opened' })],
    ['no event_id', eventBody({ event_id: undefined })],
    ['event_id differs from webhook-id', eventBody({ event_id: 'evt_2' })],
    ['a bad timestamp', eventBody({}, { timestamp: 'yesterday' })],
    ['a numeric provider_message_id', eventBody({ provider_message_id: 42 })],
    ['neither id nor reference', eventBody({ provider_message_id: undefined, reference: undefined })],
    ['an unknown channel', eventBody({ channel: 'fax' })],
    ['a bad bounce_type', eventBody({ status: 'bounced', bounce_type: 'medium' })],
  ];

  it.each(MALFORMED)('signed but %s: 400 callback_malformed, detail quotes nothing', (_, body) => {
    const parsed = verifier.verify(signed(body), NOW);
    expect(parsed).toMatchObject({ ok: false, status: 400, code: 'callback_malformed' });
    if (!parsed.ok) expect(parsed.detail).not.toMatch(/SM1|key-1|evt_2|opened|medium|fax/);
  });
});

describe('secrets from the account', () => {
  function account(overrides: Partial<ProviderAccountConfig>): ProviderAdapter {
    const adapter = createSandboxAdapter({
      id: 'sb',
      kind: 'sandbox',
      channel: 'sms',
      base_url: 'http://127.0.0.1:9',
      rate_per_second: 1,
      burst: 1,
      ambiguity_policy: 'wait_for_evidence',
      timeout_ms: 1_000,
      ...overrides,
    });
    adapters.push(adapter);
    return adapter;
  }

  it('no secrets: no callbacks; a literal list or an env variable: callbacks', async () => {
    expect(account({}).callbacks).toBeUndefined();
    expect((await account({ callback_secrets: [SECRET] }).callbacks?.verify(signed(eventBody()), NOW))?.ok).toBe(true);
    const name = `HERALD_TEST_CB_SECRET_${process.pid}`;
    process.env[name] = OLD_SECRET;
    try {
      const fromEnv = account({ callback_secrets: [], callback_secret_env: name });
      expect((await fromEnv.callbacks?.verify(signed(eventBody(), { secret: OLD_SECRET }), NOW))?.ok).toBe(true);
      expect(
        (await account({ callback_secrets: [SECRET], callback_secret_env: name }).callbacks?.verify(signed(eventBody(), { secret: OLD_SECRET }), NOW))?.ok,
      ).toBe(false);
    } finally {
      delete process.env[name];
    }
    expect(account({ callback_secret_env: name }).callbacks).toBeUndefined();
  });

  it('an empty secret is a configuration error at construction', () => {
    expect(() => account({ callback_secrets: ['whsec_'] })).toThrow(/callback secret/);
  });
});

describe('end to end with the sandbox', () => {
  it('every callback the sandbox emits (duplicates, bounces, reordering) verifies and parses', async () => {
    const adapter = createSandboxAdapter({
      id: 'sb-email',
      kind: 'sandbox',
      channel: 'email',
      base_url: 'http://127.0.0.1:9',
      rate_per_second: 1,
      burst: 1,
      ambiguity_policy: 'wait_for_evidence',
      timeout_ms: 1_000,
      callback_secrets: [SECRET],
    });
    adapters.push(adapter);
    const results: unknown[] = [];
    const receiver = await startReceiver(async (callback) => {
      const parsed = await adapter.callbacks!.verify({ rawBody: callback.rawBody, headers: callback.headers, url: 'x' }, Date.now());
      results.push(parsed);
      return parsed.ok ? 200 : parsed.status;
    });
    const sandbox = await startSandbox({
      seed: 31,
      callbacks: { email: { url: receiver.url, secret: SECRET } },
      behaviour: { duplicate_probability: 0.5, reorder_probability: 0.5, bounce_probability: 0.3, complaint_probability: 0.3 },
    });
    try {
      const keys: string[] = [];
      for (let i = 0; i < 10; i += 1) {
        const key = `e2e-${process.pid}-${i}`;
        keys.push(key);
        const res = await fetch(`${sandbox.url}/emails`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ to: 'ada@example.test', subject: 's', text: 't' }),
        });
        expect(res.status).toBe(200);
      }
      await sandbox.idle();
      const counters = sandbox.callbacks.counters();
      expect(results).toHaveLength(counters.emitted + counters.duplicates);
      expect(counters.failed).toBe(0);
      const events = results.map((r) => {
        expect(r).toMatchObject({ ok: true });
        return (r as { events: Array<{ reference: string; status: string; suppress: string | null }> }).events[0]!;
      });
      expect(new Set(events.map((e) => e.reference))).toEqual(new Set(keys));
      // Seed 31 covers every kind: a duplicate, a hard bounce and a complaint.
      expect(counters.duplicates).toBeGreaterThan(0);
      expect(events.map((e) => e.status)).toEqual(expect.arrayContaining(['bounced', 'complained', 'delivered', 'sent']));
      for (const e of events) expect(e.suppress).toBe(e.status === 'bounced' ? 'bounced' : e.status === 'complained' ? 'complained' : null);
    } finally {
      await sandbox.close();
      await receiver.close();
    }
  });
});
