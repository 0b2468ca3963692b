/**
 * Resend's webhooks (Svix-signed) through the kind's verifier: every event type's place on the
 * lattice, forged, tampered, stale and rotated signatures, and agreement with the
 * `standardwebhooks` package, which implements the scheme Svix uses.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { CallbackParse } from '../../../src/providers/provider.js';
import { createResendCallbackVerifier } from '../../../src/providers/resend/callbacks.js';
import { generateWebhookSecret } from '../../../src/signing/standard-webhooks.js';
import { resendEventBody, resendWebhook, type ResendEventSpec } from '../fakes/resend.js';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const SECRET = generateWebhookSecret();
const REFERENCE = 'hk_resendCallbackReference0000000000000000000';

function deliver(spec: Partial<ResendEventSpec> & { type: string }, options: { secrets?: string[]; svixId?: string; atMs?: number } = {}) {
  return resendWebhook(
    { emailId: 'em-4ef9a417', reference: REFERENCE, ...spec },
    { secrets: options.secrets ?? [SECRET], svixId: options.svixId ?? 'msg_2Yy8Wz1', atMs: options.atMs ?? NOW },
  );
}

function verify(request: ReturnType<typeof deliver>, secrets: string[] = [SECRET], now = NOW): CallbackParse {
  return createResendCallbackVerifier(secrets).verify(request, now);
}

describe('resend callbacks: events on the lattice', () => {
  const cases: Array<[string, Partial<ResendEventSpec>, { status: string; suppress: string | null } | null]> = [
    ['email.sent', {}, { status: 'sent', suppress: null }],
    ['email.delivery_delayed', {}, { status: 'sent', suppress: null }],
    ['email.delivered', {}, { status: 'delivered', suppress: null }],
    ['email.bounced', { bounceType: 'Permanent' }, { status: 'bounced', suppress: 'bounced' }],
    ['email.bounced', { bounceType: 'Transient' }, { status: 'bounced', suppress: null }],
    ['email.bounced', { bounceType: 'Undetermined' }, { status: 'bounced', suppress: null }],
    ['email.complained', {}, { status: 'complained', suppress: 'complained' }],
    ['email.failed', {}, { status: 'failed', suppress: null }],
    ['email.suppressed', { suppressedReason: 'previous_bounce' }, { status: 'failed', suppress: 'bounced' }],
    ['email.suppressed', { suppressedReason: 'previous_complaint' }, { status: 'failed', suppress: 'complained' }],
    ['email.opened', {}, null],
    ['email.clicked', {}, null],
    ['email.scheduled', {}, null],
    ['email.received', {}, null],
    ['email.something_new', {}, null],
    ['contact.created', {}, null],
    ['domain.updated', {}, null],
  ];
  for (const [type, spec, expected] of cases) {
    const label = `${type}${spec.bounceType ? ` (${spec.bounceType})` : ''}${spec.suppressedReason ? ` (${spec.suppressedReason})` : ''}`;
    it(`${label} → ${expected === null ? 'nothing recorded' : `${expected.status}${expected.suppress ? `, suppress ${expected.suppress}` : ''}`}`, () => {
      const parse = verify(deliver({ type, ...spec }));
      expect(parse.ok).toBe(true);
      if (!parse.ok) return;
      if (expected === null) {
        expect(parse.events).toEqual([]);
        return;
      }
      expect(parse.events).toEqual([
        {
          eventId: 'msg_2Yy8Wz1',
          status: expected.status,
          providerMessageId: 'em-4ef9a417',
          reference: REFERENCE,
          occurredAt: Date.parse('2026-11-29T12:00:00.000Z'),
          suppress: expected.suppress,
        },
      ]);
    });
  }

  it('reads the reference from tags as an object (the webhook schema) or a list (the send request)', () => {
    for (const tagsForm of ['object', 'array'] as const) {
      const parse = verify(deliver({ type: 'email.delivered', tagsForm }));
      expect(parse).toMatchObject({ ok: true, events: [{ reference: REFERENCE }] });
    }
    expect(verify(deliver({ type: 'email.delivered', reference: null }))).toMatchObject({
      ok: true,
      events: [{ reference: null, providerMessageId: 'em-4ef9a417' }],
    });
  });

  it('the same event delivered again has the same event id (svix-id); another event another', () => {
    const first = verify(deliver({ type: 'email.delivered' }, { atMs: NOW - 60_000 }), [SECRET]);
    const again = verify(deliver({ type: 'email.delivered' }), [SECRET]);
    const other = verify(deliver({ type: 'email.delivered' }, { svixId: 'msg_other' }));
    expect(first.ok && again.ok && other.ok).toBe(true);
    if (!first.ok || !again.ok || !other.ok) return;
    expect(again.events[0]?.eventId).toBe(first.events[0]?.eventId);
    expect(other.events[0]?.eventId).not.toBe(first.events[0]?.eventId);
  });

  it('signed but unreadable: 400, naming the check, never quoting the body', () => {
    const cases: Array<[string, Buffer]> = [
      ['body is not JSON', Buffer.from('not json canary.wren@example.test')],
      [
        'data.email_id is missing',
        Buffer.from(JSON.stringify({ type: 'email.delivered', created_at: '2026-11-29T12:00:00Z', data: { to: ['canary.wren@example.test'] } })),
      ],
      ['data is not an object', Buffer.from(JSON.stringify({ type: 'email.sent', data: 'x' }))],
      ['type is missing', Buffer.from(JSON.stringify({ data: {} }))],
    ];
    for (const [detail, rawBody] of cases) {
      const parse = verify({ rawBody, headers: resign(rawBody), url: 'https://herald.test/v1/callbacks/resend-email' });
      expect(parse).toEqual({ ok: false, status: 400, code: 'callback_malformed', detail });
    }
  });
});

/** svix-* headers signing `rawBody` with SECRET at NOW. */
function resign(rawBody: Buffer): Record<string, string> {
  const wh = new Webhook(SECRET);
  const signature = wh.sign('msg_bad', new Date(NOW), rawBody.toString('utf8'));
  return { 'svix-id': 'msg_bad', 'svix-timestamp': String(NOW / 1000), 'svix-signature': signature };
}

describe('resend callbacks: signatures', () => {
  it('a tampered body: 401, nothing parsed', () => {
    const request = deliver({ type: 'email.delivered' });
    const tampered = Buffer.from(request.rawBody.toString('utf8').replace('em-4ef9a417', 'em-4ef9a418'));
    expect(verify({ ...request, rawBody: tampered })).toEqual({ ok: false, status: 401, code: 'callback_signature_invalid', detail: 'bad_signature' });
  });

  it('signed with a secret the account does not list: 401', () => {
    expect(verify(deliver({ type: 'email.delivered' }, { secrets: [generateWebhookSecret()] }))).toMatchObject({
      ok: false,
      status: 401,
      detail: 'bad_signature',
    });
  });

  it('missing svix headers: 401', () => {
    const request = deliver({ type: 'email.delivered' });
    const { ['svix-signature']: _dropped, ...headers } = request.headers;
    expect(verify({ ...request, headers })).toMatchObject({ ok: false, status: 401, detail: 'missing_headers' });
  });

  it('a timestamp more than 5 minutes away: 401; one inside the tolerance verifies', () => {
    expect(verify(deliver({ type: 'email.delivered' }, { atMs: NOW - 5 * 60_000 - 1_000 }))).toMatchObject({
      ok: false,
      status: 401,
      detail: 'stale_timestamp',
    });
    expect(verify(deliver({ type: 'email.delivered' }, { atMs: NOW + 5 * 60_000 + 1_000 }))).toMatchObject({
      ok: false,
      status: 401,
      detail: 'stale_timestamp',
    });
    expect(verify(deliver({ type: 'email.delivered' }, { atMs: NOW - 4 * 60_000 })).ok).toBe(true);
  });

  it('rotation: the old and the new secret both verify while listed; the old one once removed does not', () => {
    const next = generateWebhookSecret();
    expect(verify(deliver({ type: 'email.delivered' }, { secrets: [SECRET] }), [next, SECRET]).ok).toBe(true);
    expect(verify(deliver({ type: 'email.delivered' }, { secrets: [next] }), [next, SECRET]).ok).toBe(true);
    // Svix signs with both secrets during its own rotation window: one valid entry suffices.
    expect(verify(deliver({ type: 'email.delivered' }, { secrets: [next, SECRET] }), [next]).ok).toBe(true);
    expect(verify(deliver({ type: 'email.delivered' }, { secrets: [SECRET] }), [next])).toMatchObject({ ok: false, status: 401 });
  });

  it("also reads Standard Webhooks' webhook-* header names", () => {
    const request = deliver({ type: 'email.delivered' });
    const headers = {
      'webhook-id': request.headers['svix-id'],
      'webhook-timestamp': request.headers['svix-timestamp'],
      'webhook-signature': request.headers['svix-signature'],
    };
    expect(verify({ ...request, headers }).ok).toBe(true);
  });

  it('agrees with the standardwebhooks package: its signature verifies here, and ours verifies there', () => {
    const now = Date.now();
    const rawBody = resendEventBody({ type: 'email.delivered', emailId: 'em-1', reference: REFERENCE });
    const theirs = new Webhook(SECRET).sign('msg_pkg', new Date(now), rawBody.toString('utf8'));
    const request = {
      rawBody,
      headers: { 'svix-id': 'msg_pkg', 'svix-timestamp': String(Math.floor(now / 1000)), 'svix-signature': theirs },
      url: 'https://herald.test/v1/callbacks/r',
    };
    expect(verify(request, [SECRET], now)).toMatchObject({ ok: true, events: [{ eventId: 'msg_pkg', status: 'delivered' }] });

    const ours = resendWebhook({ type: 'email.delivered', emailId: 'em-1' }, { secrets: [SECRET], svixId: 'msg_ours', atMs: now });
    const unbranded = {
      'webhook-id': String(ours.headers['svix-id']),
      'webhook-timestamp': String(ours.headers['svix-timestamp']),
      'webhook-signature': String(ours.headers['svix-signature']),
    };
    expect(() => new Webhook(SECRET).verify(ours.rawBody.toString('utf8'), unbranded)).not.toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(ours.rawBody.toString('utf8'), unbranded)).toThrow();
  });
});
