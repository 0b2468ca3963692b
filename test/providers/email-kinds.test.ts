/**
 * The resend and postmark kinds as configuration sees them: defaults from the providers'
 * guidance, settings checked at load with errors naming the field (never a credential), what
 * `describe` shows, which accounts get a callback verifier, and `herald doctor` against the
 * fakes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config/config.js';
import type { ProviderAccountConfig } from '../../src/providers/provider.js';
import { postmarkKind } from '../../src/providers/postmark/kind.js';
import { resendKind } from '../../src/providers/resend/kind.js';
import { generateWebhookSecret } from '../../src/signing/standard-webhooks.js';
import { startPostmarkFake } from './fakes/postmark.js';
import { startResendFake } from './fakes/resend.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

const resendRaw = (over: Record<string, unknown> = {}, settings: Record<string, unknown> = {}) => ({
  id: 'mail',
  kind: 'resend',
  channel: 'email',
  settings: { api_key_env: 'RESEND_KEY_TEST', from: 'Acme <noreply@acme.test>', ...settings },
  ...over,
});

const postmarkRaw = (over: Record<string, unknown> = {}, settings: Record<string, unknown> = {}) => ({
  id: 'mail',
  kind: 'postmark',
  channel: 'email',
  settings: { server_token_env: 'POSTMARK_TOKEN_TEST', from: 'Acme <noreply@acme.test>', ...settings },
  ...over,
});

function load(account: Record<string, unknown>): ProviderAccountConfig {
  return resolveConfig({ provider_accounts: [account] }).provider_accounts[0]!;
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('resend kind: configuration', () => {
  it("loads with the defaults from Resend's guidance", () => {
    vi.stubEnv('RESEND_KEY_TEST', 're_secret_value_1');
    const a = load(resendRaw());
    expect(a).toMatchObject({
      rate_per_second: 2,
      burst: 2,
      timeout_ms: 10_000,
      ambiguity_policy: 'resend_same_key',
      capabilities: { lookup: false, dedupes_by_key: true },
    });
  });

  it('names the field of every mistake, never the credential', () => {
    const missing = configError(() => load(resendRaw()));
    expect(missing.field).toBe('provider_accounts[0].settings.api_key_env');
    expect(missing.message).toContain('RESEND_KEY_TEST');
    vi.stubEnv('RESEND_KEY_TEST', 're_secret_value_1');
    const cases: Array<[Record<string, unknown>, Record<string, unknown>, string]> = [
      [{}, { from: 'not a mailbox' }, 'provider_accounts[0].settings.from'],
      [{}, { reply_to: 'a@b' }, 'provider_accounts[0].settings.reply_to'],
      [{}, { host: 'smtp.example' }, 'provider_accounts[0].settings.host'],
      [{ api_key: 're_common' }, {}, 'provider_accounts[0].api_key'],
      [{ capabilities: { lookup: true } }, {}, 'provider_accounts[0].capabilities.lookup'],
      [{ callback_secret_env: 'RESEND_WEBHOOK_UNSET' }, {}, 'provider_accounts[0].callback_secret_env'],
    ];
    for (const [over, settings, field] of cases) {
      const error = configError(() => load(resendRaw(over, settings)));
      expect(error.field, JSON.stringify({ over, settings })).toBe(field);
      expect(error.message).not.toContain('re_secret_value_1');
    }
    const noFrom = configError(() => load({ id: 'mail', kind: 'resend', channel: 'email', settings: { api_key: 're_x' } }));
    expect(noFrom.field).toBe('provider_accounts[0].settings.from');
  });

  it('refuses resend_same_key once dedupe is turned off', () => {
    vi.stubEnv('RESEND_KEY_TEST', 're_x');
    const error = configError(() => load(resendRaw({ capabilities: { dedupes_by_key: false } })));
    expect(error.field).toBe('provider_accounts[0].ambiguity_policy');
  });

  it('describes without secrets, and verifies callbacks only with a secret', () => {
    vi.stubEnv('RESEND_KEY_TEST', 're_secret_value_1');
    const secret = generateWebhookSecret();
    const a = load(resendRaw({ callback_secrets: [secret] }));
    const shown = JSON.stringify(resendKind.describe(a));
    expect(shown).not.toContain('re_secret_value_1');
    expect(shown).not.toContain(secret);
    expect(resendKind.describe(a)).toEqual({ base_url: 'https://api.resend.com', from: 'Acme <noreply@acme.test>', callbacks: true });
    expect(resendKind.createCallbackVerifier(a)).not.toBeNull();
    expect(resendKind.createCallbackVerifier(load(resendRaw()))).toBeNull();
  });
});

describe('postmark kind: configuration', () => {
  it('loads with its defaults: streams outbound and broadcast, look-up on', () => {
    vi.stubEnv('POSTMARK_TOKEN_TEST', 'pm-token-secret');
    const a = load(postmarkRaw());
    expect(a).toMatchObject({ rate_per_second: 10, burst: 10, ambiguity_policy: 'wait_for_evidence', capabilities: { lookup: true, dedupes_by_key: false } });
    expect(postmarkKind.describe(a)).toEqual({
      base_url: 'https://api.postmarkapp.com',
      from: 'Acme <noreply@acme.test>',
      transactional_stream: 'outbound',
      broadcast_stream: 'broadcast',
      callbacks: false,
    });
  });

  it('names the field of every mistake, never the credential', () => {
    vi.stubEnv('POSTMARK_TOKEN_TEST', 'pm-token-secret');
    vi.stubEnv('PM_HOOK_PASSWORD', 'pm-hook-secret');
    const cases: Array<[Record<string, unknown>, Record<string, unknown>, string]> = [
      [{}, { from: 'nobody' }, 'provider_accounts[0].settings.from'],
      [{}, { webhook_username: 'herald' }, 'provider_accounts[0].settings.webhook_password'],
      [{}, { webhook_password_env: 'PM_HOOK_PASSWORD' }, 'provider_accounts[0].settings.webhook_username'],
      [{}, { webhook_username: 'a:b', webhook_password_env: 'PM_HOOK_PASSWORD' }, 'provider_accounts[0].settings.webhook_username'],
      [{}, { webhook_previous_password: 'old' }, 'provider_accounts[0].settings.webhook_previous_password'],
      [{}, { account_token_env: 'PM_ACCOUNT_UNSET' }, 'provider_accounts[0].settings.account_token_env'],
      [{}, { broadcast_stream: 'has space' }, 'provider_accounts[0].settings.broadcast_stream'],
      [{ callback_secrets: [generateWebhookSecret()] }, {}, 'provider_accounts[0].callback_secrets'],
      [{ capabilities: { dedupes_by_key: true } }, {}, 'provider_accounts[0].capabilities.dedupes_by_key'],
      [{ ambiguity_policy: 'resend_same_key' }, {}, 'provider_accounts[0].ambiguity_policy'],
    ];
    for (const [over, settings, field] of cases) {
      const error = configError(() => load(postmarkRaw(over, settings)));
      expect(error.field, JSON.stringify({ over, settings })).toBe(field);
      expect(error.message).not.toMatch(/pm-token-secret|pm-hook-secret/);
    }
  });

  it('verifies callbacks only with webhook credentials', () => {
    vi.stubEnv('POSTMARK_TOKEN_TEST', 'pm-token-secret');
    vi.stubEnv('PM_HOOK_PASSWORD', 'pm-hook-secret');
    const a = load(postmarkRaw({}, { webhook_username: 'herald', webhook_password_env: 'PM_HOOK_PASSWORD' }));
    expect(postmarkKind.createCallbackVerifier(a)).not.toBeNull();
    expect(JSON.stringify(postmarkKind.describe(a))).not.toContain('pm-hook-secret');
    expect(postmarkKind.createCallbackVerifier(load(postmarkRaw()))).toBeNull();
  });
});

describe('herald doctor for resend', () => {
  const signal = () => AbortSignal.timeout(5_000);
  const account = (url: string, settings: Record<string, unknown>): ProviderAccountConfig => ({
    id: 'mail',
    kind: 'resend',
    channel: 'email',
    base_url: url,
    settings: { from: 'Acme <noreply@acme.test>', ...settings },
    rate_per_second: 2,
    burst: 2,
    ambiguity_policy: 'resend_same_key',
    timeout_ms: 2_000,
  });

  it('a full-access key and a verified domain: every check passes; an unverified one fails', async () => {
    const fake = await startResendFake({
      apiKey: 're_full',
      sendingOnlyKey: 're_send',
      domains: [
        { name: 'acme.test', status: 'verified' },
        { name: 'pending.test', status: 'pending' },
      ],
    });
    try {
      expect((await resendKind.doctor(account(fake.url, { api_key: 're_full' }), signal())).every((c) => c.ok)).toBe(true);
      const pending = await resendKind.doctor(account(fake.url, { api_key: 're_full', from: 'x@pending.test' }), signal());
      expect(pending.find((c) => c.name === 'sender domain verified')).toMatchObject({ ok: false, detail: 'pending.test is pending, not verified' });
      const absent = await resendKind.doctor(account(fake.url, { api_key: 're_full', from: 'x@other.test' }), signal());
      expect(absent.find((c) => c.name === 'sender domain verified')?.ok).toBe(false);
      const sendingOnly = await resendKind.doctor(account(fake.url, { api_key: 're_send' }), signal());
      expect(sendingOnly.map((c) => [c.name, c.ok])).toEqual([
        ['credentials accepted', true],
        ['sender domain check', true],
      ]);
      const wrong = await resendKind.doctor(account(fake.url, { api_key: 're_wrong' }), signal());
      expect(wrong).toEqual([{ name: 'credentials accepted', ok: false, detail: 'Resend refused the key: HTTP 403 (invalid_api_key)' }]);
    } finally {
      await fake.close();
    }
  });

  it('nothing listens: the endpoint check fails, naming no credential', async () => {
    const fake = await startResendFake({ apiKey: 're_full' });
    await fake.close();
    const checks = await resendKind.doctor(account(fake.url, { api_key: 're_full' }), signal());
    expect(checks).toMatchObject([{ name: 'endpoint answers', ok: false }]);
    expect(JSON.stringify(checks)).not.toContain('re_full');
  });
});

describe('herald doctor for postmark', () => {
  const signal = () => AbortSignal.timeout(5_000);
  const account = (url: string, settings: Record<string, unknown>): ProviderAccountConfig => ({
    id: 'mail',
    kind: 'postmark',
    channel: 'email',
    base_url: url,
    settings: { from: 'Acme <noreply@acme.test>', ...settings },
    rate_per_second: 10,
    burst: 10,
    ambiguity_policy: 'wait_for_evidence',
    timeout_ms: 2_000,
  });

  it('token, streams and (with an account token) the sender', async () => {
    const fake = await startPostmarkFake({ serverToken: 'pm-s', accountToken: 'pm-a', domains: ['acme.test'], senders: ['ops@other.test'] });
    try {
      const full = await postmarkKind.doctor(account(fake.url, { server_token: 'pm-s', account_token: 'pm-a' }), signal());
      expect(full.map((c) => [c.name, c.ok])).toEqual([
        ['credentials accepted', true],
        ['server delivers', true],
        ['message stream outbound', true],
        ['message stream broadcast', true],
        ['sender verified', true],
      ]);
      const bySignature = await postmarkKind.doctor(account(fake.url, { server_token: 'pm-s', account_token: 'pm-a', from: 'Ops <ops@other.test>' }), signal());
      expect(bySignature.at(-1)).toMatchObject({ name: 'sender verified', ok: true });
      const unknownSender = await postmarkKind.doctor(account(fake.url, { server_token: 'pm-s', account_token: 'pm-a', from: 'x@nowhere.test' }), signal());
      expect(unknownSender.at(-1)).toMatchObject({ name: 'sender verified', ok: false });
      const noAccountToken = await postmarkKind.doctor(account(fake.url, { server_token: 'pm-s' }), signal());
      expect(noAccountToken.at(-1)).toMatchObject({ name: 'sender check', ok: true });
      const missingStream = await postmarkKind.doctor(account(fake.url, { server_token: 'pm-s', broadcast_stream: 'news' }), signal());
      expect(missingStream.find((c) => c.name === 'message stream news')?.ok).toBe(false);
      const wrong = await postmarkKind.doctor(account(fake.url, { server_token: 'nope' }), signal());
      expect(wrong).toEqual([{ name: 'credentials accepted', ok: false, detail: 'Postmark refused the server token: HTTP 401 (ErrorCode 10)' }]);
    } finally {
      await fake.close();
    }
  });

  it('a Sandbox server: accepted, and the check says it delivers nothing', async () => {
    const fake = await startPostmarkFake({ serverToken: 'pm-s', deliveryType: 'Sandbox' });
    try {
      const checks = await postmarkKind.doctor(account(fake.url, { server_token: 'pm-s' }), signal());
      expect(checks.find((c) => c.name === 'server delivers')).toMatchObject({ ok: false });
    } finally {
      await fake.close();
    }
  });
});
