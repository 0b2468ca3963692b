/**
 * The SES adapter on the wire. Against aws-ses-v2-local (a third-party SES v2 emulator, run
 * in-process) for what SES makes of the request — it checks the request shape but accepts any
 * `Authorization: AWS…` header — and against test/providers/fakes/ses.ts, which recomputes
 * every SigV4 signature and refuses bad ones, for signing, credentials, SES's error answers and
 * transport faults.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as sesLocalModule from 'aws-ses-v2-local';
import type { ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../../../src/providers/provider.js';
import { createSesAdapter } from '../../../src/providers/ses/adapter.js';
import { startSesFake, type SesFake, type SesFakeOptions } from '../fakes/ses.js';

const REGION = 'eu-west-1';
const KEY_ID = 'AKIAHERALDTEST000001';
const SECRET = 'herald-test-secret-access-key-0000000000';
const DESTINATION = 'ada.lovelace+ses@example.org';
const adapters: ProviderAdapter[] = [];

type StartSesLocal = (config?: { host?: string; port?: number }) => Promise<Server>;
// The emulator is CommonJS with `exports.default`: one `default` deep under some loaders, two under others.
const sesLocalExports = sesLocalModule as unknown as { default: StartSesLocal | { default: StartSesLocal } };
const sesLocal: StartSesLocal = typeof sesLocalExports.default === 'function' ? sesLocalExports.default : sesLocalExports.default.default;
let sequence = 0;

afterEach(async () => {
  await Promise.all(adapters.splice(0).map((a) => a.close()));
});

function account(baseUrl: string, settings: Record<string, unknown> = {}, over: Partial<ProviderAccountConfig> = {}): ProviderAccountConfig {
  return {
    id: 'ses-test',
    kind: 'ses',
    channel: 'email',
    base_url: baseUrl,
    settings: { region: REGION, from: 'Herald <no-reply@example.com>', access_key_id: KEY_ID, secret_access_key: SECRET, ...settings },
    rate_per_second: 14,
    burst: 14,
    ambiguity_policy: 'wait_for_evidence',
    timeout_ms: 5_000,
    ...over,
  };
}

function adapter(acc: ProviderAccountConfig, env?: NodeJS.ProcessEnv): ProviderAdapter {
  const a = createSesAdapter(acc, env ? { env } : {});
  adapters.push(a);
  return a;
}

function request(over: Partial<SubmitRequest> = {}): SubmitRequest {
  sequence += 1;
  const expiresAt = Date.now() + 600_000;
  return {
    deliveryId: `dlv-${sequence}`,
    idempotencyKey: `hk_test-key_${sequence}`,
    channel: 'email',
    purpose: 'transactional',
    destination: DESTINATION,
    content: { subject: 'Your receipt', text: 'Thank you for your order.', html: '<p>Thank you for your order.</p>' },
    expiresAt,
    sendBy: expiresAt,
    ...over,
  };
}

describe('against aws-ses-v2-local', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = await sesLocal({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const stored = async (messageId: string) => {
    const store = (await (await fetch(`${url}/store`)).json()) as { emails: Array<Record<string, any>> };
    return store.emails.find((e) => e.messageId === messageId);
  };

  it('a simple message with List-Unsubscribe headers is accepted with the MessageId SES assigned, and SES has it whole', async () => {
    const outcome = await adapter(account(url, { reply_to: 'support@example.com' })).submit(
      request({
        purpose: 'marketing',
        content: {
          subject: 'News',
          text: 'Plain',
          html: '<b>Rich</b>',
          headers: { 'List-Unsubscribe': '<https://herald.example/v1/unsubscribe/tok>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
        },
      }),
    );
    expect(outcome).toMatchObject({ kind: 'accepted', providerMessageId: expect.stringMatching(/^ses-/) });
    const email = await stored((outcome as { providerMessageId: string }).providerMessageId);
    expect(email).toMatchObject({
      from: '"Herald" <no-reply@example.com>',
      replyTo: ['support@example.com'],
      destination: { to: [DESTINATION], cc: [], bcc: [] },
      subject: 'News',
      body: { text: 'Plain', html: '<b>Rich</b>' },
      headers: [
        { name: 'List-Unsubscribe', value: '<https://herald.example/v1/unsubscribe/tok>' },
        { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
      ],
    });
  });

  it('headers SES cannot take as Simple content go as a Raw MIME message built by MailComposer', async () => {
    const headers: Record<string, string> = { 'List-Unsubscribe': '<https://herald.example/u/1>' };
    for (let i = 0; i < 15; i++) headers[`X-Herald-Extra-${i}`] = `v${i}`;
    const outcome = await adapter(account(url)).submit(request({ content: { subject: 'Grüße', text: 'Hallo Zoë', headers } }));
    expect(outcome.kind).toBe('accepted');
    const email = await stored((outcome as { providerMessageId: string }).providerMessageId);
    expect(email).toMatchObject({ subject: 'Grüße', destination: { to: [DESTINATION] } });
    expect(email?.body.text.trim()).toBe('Hallo Zoë');
    expect(email?.from).toContain('no-reply@example.com');
  });

  it('the producer’s from and reply-to win over the account’s; a non-ASCII display name is RFC 2047-encoded', async () => {
    const outcome = await adapter(account(url)).submit(
      request({ content: { subject: 'Hi', text: 'x', from: 'Zoë Support <zoe@example.com>', reply_to: 'Replies <r@example.com>' } }),
    );
    const email = await stored((outcome as { providerMessageId: string }).providerMessageId);
    expect(email?.from).toBe('=?UTF-8?Q?Zo=C3=AB?= Support <zoe@example.com>');
    expect(email?.replyTo).toEqual(['"Replies" <r@example.com>']);
  });
});

describe('against the SigV4-verifying fake', () => {
  let fake: SesFake;
  const start = async (over: Partial<SesFakeOptions> = {}) => {
    fake = await startSesFake({ region: REGION, accessKeyId: KEY_ID, secretAccessKey: SECRET, configurationSets: ['herald'], ...over });
    return fake;
  };
  afterEach(async () => {
    await fake?.close();
  });

  it('signs with SigV4 for ses in the region, and sends the SendEmail body SES documents', async () => {
    await start();
    const outcome = await adapter(account(fake.url, { configuration_set: 'herald' })).submit(request({ idempotencyKey: 'hk_AbC-123_xyz' }));
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: fake.acceptedIds()[0] });
    expect(fake.signatureRefusals()).toEqual([]);
    const [sent] = fake.sends();
    expect(sent!.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${KEY_ID}/\\d{8}/${REGION}/ses/aws4_request, SignedHeaders=content-length;content-type;host;x-amz-date, Signature=[0-9a-f]{64}$`,
      ),
    );
    expect(sent!.body).toEqual({
      FromEmailAddress: '"Herald" <no-reply@example.com>',
      Destination: { ToAddresses: [DESTINATION] },
      Content: {
        Simple: {
          Subject: { Data: 'Your receipt', Charset: 'UTF-8' },
          Body: { Text: { Data: 'Thank you for your order.', Charset: 'UTF-8' }, Html: { Data: '<p>Thank you for your order.</p>', Charset: 'UTF-8' } },
        },
      },
      ConfigurationSetName: 'herald',
      EmailTags: [{ Name: 'herald_reference', Value: 'hk_AbC-123_xyz' }],
    });
  });

  it('a session token is sent and signed; a wrong secret is refused by the fake and retryable for Herald', async () => {
    await start({ sessionToken: 'session-token-abc' });
    expect((await adapter(account(fake.url, { session_token: 'session-token-abc' })).submit(request())).kind).toBe('accepted');
    expect(fake.sends()[0]!.headers['x-amz-security-token']).toBe('session-token-abc');
    const wrong = await adapter(account(fake.url, { session_token: 'session-token-abc', secret_access_key: 'not-the-secret' })).submit(request());
    expect(wrong).toMatchObject({ kind: 'retryable', code: 'provider_auth_failed', message: 'SES answered HTTP 403 (SignatureDoesNotMatch)' });
    expect(JSON.stringify(wrong)).not.toContain('not-the-secret');
    expect(fake.signatureRefusals()).toEqual(['SignatureDoesNotMatch']);
  });

  it('credentials are read for every request: a rotated file is picked up; an unreadable one sends nothing', async () => {
    await start();
    const dir = mkdtempSync(join(tmpdir(), 'herald-ses-'));
    try {
      const secretFile = join(dir, 'secret');
      writeFileSync(secretFile, 'stale-secret\n');
      const a = adapter(
        account(fake.url, { secret_access_key: undefined, secret_access_key_file: secretFile, access_key_id: undefined, access_key_id_env: 'SES_TEST_KEY_ID' }),
        { SES_TEST_KEY_ID: KEY_ID },
      );
      expect((await a.submit(request())).kind).toBe('retryable');
      writeFileSync(secretFile, `${SECRET}\n`);
      expect((await a.submit(request())).kind).toBe('accepted');
      rmSync(secretFile);
      const before = fake.received().length;
      expect(await a.submit(request())).toMatchObject({
        kind: 'retryable',
        code: 'credentials_unavailable',
        message: 'settings.secret_access_key_file cannot be read',
      });
      expect(fake.received().length).toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('SES’s answers are classified, and no outcome quotes the destination SES’s text quotes', async () => {
    await start();
    const a = adapter(account(fake.url, { configuration_set: 'herald' }));
    fake.script({ kind: 'permanent' });
    const rejected = await a.submit(request());
    expect(rejected).toMatchObject({ kind: 'permanent', reason: 'content_rejected', code: 'message_rejected' });
    expect(JSON.stringify(rejected)).not.toContain(DESTINATION);
    fake.script({ kind: 'throttled' });
    expect(await a.submit(request())).toMatchObject({ kind: 'throttled', code: 'rate_limited', retryAfterMs: null });
    fake.script({ kind: 'error', status: 429, type: 'TooManyRequestsException', message: 'Daily message quota exceeded.', typeIn: 'type' });
    expect(await a.submit(request())).toMatchObject({ kind: 'throttled', code: 'daily_quota_exceeded', retryAfterMs: 3_600_000 });
    fake.script({ kind: 'retryable' });
    expect(await a.submit(request())).toMatchObject({ kind: 'retryable', code: 'service_unavailable' });
    fake.script({ kind: 'error', status: 500, type: 'InternalFailure', message: 'internal', typeIn: 'code' });
    expect(await a.submit(request())).toMatchObject({ kind: 'unknown', code: 'server_error' });
    fake.script({ kind: 'error', status: 400, type: 'AccountSuspendedException', message: 'suspended' });
    expect(await a.submit(request())).toMatchObject({ kind: 'permanent', reason: 'unauthorized' });
    fake.script({ kind: 'error', status: 400, type: 'SendingPausedException', message: 'paused' });
    expect(await a.submit(request())).toMatchObject({ kind: 'retryable', code: 'sending_paused' });
  });

  it('a configuration set SES does not have is refused by SES (404) and retryable; a bad request is permanent', async () => {
    await start();
    expect(await adapter(account(fake.url, { configuration_set: 'missing-set' })).submit(request())).toMatchObject({
      kind: 'retryable',
      code: 'configuration_set_not_found',
    });
    expect(await adapter(account(fake.url, { from: 'not-an-address' })).submit(request())).toMatchObject({ kind: 'permanent', code: 'bad_request' });
  });

  it('a key SES would refuse as a tag is left off; the send still goes', async () => {
    await start();
    expect((await adapter(account(fake.url)).submit(request({ idempotencyKey: 'key with spaces/and:colons' }))).kind).toBe('accepted');
    expect(fake.sends()[0]!.body.EmailTags).toBeUndefined();
  });

  describe('transport faults', () => {
    it('nothing listening, or reset while the request is written: retryable, SES has nothing', async () => {
      await start();
      fake.script({ kind: 'reset_while_writing' });
      const big = request({ content: { subject: 'big', text: 'x'.repeat(16 * 1024 * 1024) } });
      expect((await adapter(account(fake.url)).submit(big)).kind).toBe('retryable');
      fake.script({ kind: 'refuse_connection' });
      expect(await adapter(account(fake.url)).submit(request())).toMatchObject({ kind: 'retryable', code: 'connect_failed' });
      expect(fake.sends()).toEqual([]);
    });

    it('reset after SES read it, a hang past the timeout, or bytes that are not HTTP: unknown', async () => {
      await start();
      fake.script({ kind: 'reset_after_write' });
      expect((await adapter(account(fake.url)).submit(request())).kind).toBe('unknown');
      fake.script({ kind: 'hang' });
      expect(await adapter(account(fake.url, {}, { timeout_ms: 200 })).submit(request())).toMatchObject({ kind: 'unknown', code: 'timeout' });
      fake.script({ kind: 'malformed_answer', canaries: [DESTINATION] });
      const malformed = await adapter(account(fake.url)).submit(request());
      expect(malformed.kind).toBe('unknown');
      expect(JSON.stringify(malformed)).not.toContain(DESTINATION);
      expect(fake.sends()).toHaveLength(3);
    });

    it('sendBy already passed, or aborted before the call: retryable and never written', async () => {
      await start();
      expect((await adapter(account(fake.url)).submit(request({ sendBy: Date.now() - 1 }))).kind).toBe('retryable');
      const controller = new AbortController();
      controller.abort();
      expect((await adapter(account(fake.url)).submit(request(), controller.signal)).kind).toBe('retryable');
      expect(fake.received()).toEqual([]);
    });

    it('aborted after SES read it: unknown', async () => {
      await start();
      fake.script({ kind: 'hang' });
      const controller = new AbortController();
      const pending = adapter(account(fake.url)).submit(request(), controller.signal);
      await vi.waitFor(() => expect(fake.sends()).toHaveLength(1), { timeout: 5_000, interval: 5 });
      controller.abort();
      expect((await pending).kind).toBe('unknown');
    });
  });
});
