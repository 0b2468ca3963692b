/**
 * The smtp kind at configuration load (its defaults, its settings schema and checks, a
 * ConfigError naming the field), what it shows, and `doctor` against a real server: each
 * step reported, the failing one named, nothing ever sent.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../../src/config/config.js';
import { providerKind } from '../../../src/providers/registry.js';
import { smtpKind, SMTP_MAX_HTML_BYTES } from '../../../src/providers/smtp/kind.js';
import { startSmtpFake, type SmtpFake } from '../fakes/smtp.js';
import { SMTP_PASSWORD, SMTP_USER, smtpAccount } from './smtp-account.js';

const fakes: SmtpFake[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const minimal = (settings: Record<string, unknown> = {}, account: Record<string, unknown> = {}) => ({
  provider_accounts: [
    { id: 'mail', kind: 'smtp', channel: 'email', settings: { host: 'smtp.acme.test', from: 'Acme <noreply@acme.test>', ...settings }, ...account },
  ],
});

function configError(raw: unknown, env: Record<string, string> = {}): ConfigError {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    resolveConfig(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  } finally {
    for (const k of Object.keys(env)) if (!(k in saved)) delete process.env[k];
  }
  throw new Error('expected a ConfigError, nothing was thrown');
}

describe('configuration', () => {
  it('is registered, and a minimal account gets the kind defaults', () => {
    expect(providerKind('smtp')).toBe(smtpKind);
    const [account] = resolveConfig(minimal()).provider_accounts;
    expect(account).toMatchObject({
      timeout_ms: 20_000,
      rate_per_second: 10,
      burst: 10,
      ambiguity_policy: 'wait_for_evidence',
      ambiguity_policies: { otp: 'user_resend' },
      capabilities: { lookup: false, dedupes_by_key: false },
      max_html_bytes: SMTP_MAX_HTML_BYTES,
    });
  });

  it("the account's own choices win over the defaults", () => {
    const [account] = resolveConfig(
      minimal({}, { timeout_ms: 25_000, max_html_bytes: 2_048, ambiguity_policies: { otp: 'wait_for_evidence' } }),
    ).provider_accounts;
    expect(account).toMatchObject({ timeout_ms: 25_000, max_html_bytes: 2_048, ambiguity_policies: { otp: 'wait_for_evidence' } });
  });

  it.each([
    { name: 'a from that is not a mailbox', raw: minimal({ from: 'Acme noreply at acme' }), field: 'provider_accounts[0].settings.from' },
    { name: 'a from with a header break', raw: minimal({ from: 'Acme <noreply@acme.test>\r\nBcc: x@y.test' }), field: 'provider_accounts[0].settings.from' },
    { name: 'a reply_to that is not a mailbox', raw: minimal({ reply_to: 'support' }), field: 'provider_accounts[0].settings.reply_to' },
    {
      name: 'no host',
      raw: { provider_accounts: [{ id: 'mail', kind: 'smtp', channel: 'email', settings: { from: 'a@acme.test' } }] },
      field: 'provider_accounts[0].settings.host',
    },
    { name: 'no settings at all', raw: { provider_accounts: [{ id: 'mail', kind: 'smtp', channel: 'email' }] }, field: 'provider_accounts[0].settings' },
    { name: 'an unknown setting', raw: minimal({ hots: 'x' }), field: 'provider_accounts[0].settings.hots' },
    { name: 'an unknown security mode', raw: minimal({ security: 'opportunistic' }), field: 'provider_accounts[0].settings.security' },
    { name: 'a user without a password', raw: minimal({ user: 'u' }), field: 'provider_accounts[0].settings.password' },
    { name: 'a password over security none', raw: minimal({ security: 'none', user: 'u', password: 'p' }), field: 'provider_accounts[0].settings.security' },
    {
      name: 'a password variable that is not set',
      raw: minimal({ user: 'u', password_env: 'HERALD_TEST_UNSET_SMTP_PASSWORD' }),
      field: 'provider_accounts[0].settings.password_env',
    },
    {
      name: 'a CA file that cannot be read',
      raw: minimal({ tls: { ca_file: '/nonexistent/herald-ca.pem' } }),
      field: 'provider_accounts[0].settings.tls.ca_file',
    },
    { name: 'base_url instead of host', raw: minimal({}, { base_url: 'http://smtp.acme.test' }), field: 'provider_accounts[0].base_url' },
    {
      name: 'a claim that SMTP deduplicates',
      raw: minimal({}, { capabilities: { dedupes_by_key: true } }),
      field: 'provider_accounts[0].capabilities.dedupes_by_key',
    },
    { name: 'a claim that SMTP can be looked up', raw: minimal({}, { capabilities: { lookup: true } }), field: 'provider_accounts[0].capabilities.lookup' },
    {
      name: 'resend_same_key (SMTP does not deduplicate)',
      raw: minimal({}, { ambiguity_policy: 'resend_same_key' }),
      field: 'provider_accounts[0].ambiguity_policy',
    },
    { name: 'callback secrets (SMTP has no callbacks)', raw: minimal({}, { callback_secrets: ['whsec_x'] }), field: 'provider_accounts[0].callback_secrets' },
    {
      name: 'an sms channel',
      raw: { provider_accounts: [{ id: 'mail', kind: 'smtp', channel: 'sms', settings: { host: 'h', from: 'a@acme.test' } }] },
      field: 'provider_accounts[0].channel',
    },
  ])('refuses $name, naming $field', ({ raw, field }) => {
    const err = configError(raw);
    expect(err.field).toBe(field);
    expect(err.message).toContain(field);
  });

  it('never quotes a credential in an error', () => {
    const err = configError(minimal({ security: 'none', user: 'u', password: 'canary-secret-in-config' }));
    expect(err.message).not.toContain('canary-secret-in-config');
  });

  it('reads credentials from a variable or a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-smtp-kind-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'password'), 'from-a-file\n');
    process.env.HERALD_TEST_SMTP_USER = 'relay-user';
    try {
      expect(() => resolveConfig(minimal({ user_env: 'HERALD_TEST_SMTP_USER', password_file: join(dir, 'password') }))).not.toThrow();
    } finally {
      delete process.env.HERALD_TEST_SMTP_USER;
    }
  });
});

describe('docs/providers/smtp.md', () => {
  it('its "Minimal configuration" loads as written', () => {
    const doc = readFileSync(new URL('../../../docs/providers/smtp.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Minimal configuration'));
    const json = /```json\n([\s\S]*?)```/.exec(section)?.[1];
    expect(json).toBeDefined();
    process.env.SMTP_USER = 'doc-user';
    process.env.SMTP_PASSWORD = 'doc-password';
    try {
      const [account] = resolveConfig(JSON.parse(json!)).provider_accounts;
      expect(account).toMatchObject({ kind: 'smtp', channel: 'email', timeout_ms: 20_000 });
      expect(smtpKind.describe(account!)).toMatchObject({ port: 587, security: 'starttls', auth: true });
    } finally {
      delete process.env.SMTP_USER;
      delete process.env.SMTP_PASSWORD;
    }
  });
});

describe('describe', () => {
  it('shows where and how it sends, never the credentials', async () => {
    const fake = await startSmtpFake();
    fakes.push(fake);
    const shown = smtpKind.describe(smtpAccount(fake));
    expect(shown).toMatchObject({
      host: fake.host,
      port: fake.port,
      security: 'starttls',
      auth: true,
      from: 'Acme Receipts <receipts@acme.test>',
      message_id_domain: 'acme.test',
      pool_size: 5,
    });
    expect(JSON.stringify(shown)).not.toContain(SMTP_PASSWORD);
    expect(JSON.stringify(shown)).not.toContain(SMTP_USER);
  });
});

describe('doctor', () => {
  const signal = () => AbortSignal.timeout(10_000);

  it('connect, EHLO, STARTTLS, AUTH: every step passes, and nothing is sent', async () => {
    const fake = await startSmtpFake({ users: { [SMTP_USER]: SMTP_PASSWORD } });
    fakes.push(fake);
    const checks = await smtpKind.doctor(smtpAccount(fake), signal());
    expect(checks.map((c) => [c.name, c.ok])).toEqual([
      ['server answers', true],
      ['TLS', true],
      ['credentials accepted (AUTH)', true],
    ]);
    expect(fake.connections()).toBe(1);
    expect(await fake.received()).toEqual([]);
  });

  it('refused credentials: the AUTH step fails with what the server said; the earlier steps pass', async () => {
    const fake = await startSmtpFake({ users: { [SMTP_USER]: SMTP_PASSWORD } });
    fakes.push(fake);
    const checks = await smtpKind.doctor(smtpAccount(fake, { settings: { password: 'wrong-canary' } }), signal());
    expect(checks.map((c) => c.ok)).toEqual([true, true, false]);
    expect(checks[2]!.detail).toContain('535 5.7.8');
    expect(JSON.stringify(checks)).not.toContain('wrong-canary');
  });

  it('a certificate that does not verify: the TLS step fails, AUTH is not tried', async () => {
    const fake = await startSmtpFake({ users: { [SMTP_USER]: SMTP_PASSWORD } });
    fakes.push(fake);
    const checks = await smtpKind.doctor(smtpAccount(fake, { settings: { tls: {} } }), signal());
    expect(checks.map((c) => c.ok)).toEqual([true, false, false]);
    expect(checks[1]!.detail).toMatch(/TLS failed/);
    expect(checks[2]!.detail).toMatch(/not checked/);
  });

  it('nothing listening: the first step fails and says so', async () => {
    const fake = await startSmtpFake();
    fakes.push(fake);
    await fake.refuse();
    const checks = await smtpKind.doctor(smtpAccount(fake), signal());
    expect(checks[0]).toMatchObject({ name: 'server answers', ok: false, detail: expect.stringMatching(/cannot connect/) });
  });
});
