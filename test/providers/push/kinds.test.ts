/**
 * The three push kinds as configuration sees them: defaults from the providers' guidance,
 * refusals at load that name the field, descriptions without secrets, and `herald doctor` against
 * the fakes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { ConfigError, resolveConfig } from '../../../src/config/config.js';
import type { ProviderAccountConfig } from '../../../src/providers/provider.js';
import { providerKind } from '../../../src/providers/registry.js';
import { startApnsFake } from '../fakes/apns.js';
import { startFcmFake } from '../fakes/fcm.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'herald-push-kinds-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const load = (account: Record<string, unknown>): ProviderAccountConfig => resolveConfig({ provider_accounts: [account] }).provider_accounts[0]!;

const VAPID = webpush.generateVAPIDKeys();

describe('push kinds in configuration', () => {
  it('FCM: defaults from FCM’s guidance, the key from a file, resend_same_key declared with dedupes_by_key', async () => {
    const fake = await startFcmFake();
    try {
      const a = load({ id: 'push-fcm', kind: 'fcm', channel: 'push', settings: { service_account_file: file('sa.json', fake.serviceAccountJson) } });
      expect(a).toMatchObject({
        rate_per_second: 9_000,
        burst: 1_000,
        timeout_ms: 10_000,
        ambiguity_policy: 'resend_same_key',
        capabilities: { lookup: false, dedupes_by_key: true },
      });
      const described = providerKind('fcm').describe(a);
      expect(described).toEqual({ base_url: 'https://fcm.googleapis.com', project_id: fake.projectId, client_email: fake.clientEmail, data_only: false });
      expect(JSON.stringify(described)).not.toContain('PRIVATE KEY');
    } finally {
      await fake.close();
    }
  });

  it('FCM: a missing, unreadable or unusable key is refused at load, naming the setting and never the value', () => {
    expect(configError(() => load({ id: 'f', kind: 'fcm', channel: 'push', settings: {} })).field).toBe('provider_accounts[0].settings.service_account');
    expect(configError(() => load({ id: 'f', kind: 'fcm', channel: 'push', settings: { service_account_env: 'HERALD_TEST_UNSET_SA' } })).field).toBe(
      'provider_accounts[0].settings.service_account_env',
    );
    const notJson = configError(() => load({ id: 'f', kind: 'fcm', channel: 'push', settings: { service_account: 'secret-ish {' } }));
    expect(notJson.message).toContain('is not JSON');
    expect(notJson.message).not.toContain('secret-ish');
    const noKey = configError(() =>
      load({
        id: 'f',
        kind: 'fcm',
        channel: 'push',
        settings: { service_account: JSON.stringify({ type: 'service_account', client_email: 'a@b', private_key: 'nope', project_id: 'p-123456' }) },
      }),
    );
    expect(noKey.message).toContain('not a PEM private key');
    expect(configError(() => load({ id: 'f', kind: 'fcm', channel: 'push', settings: { service_account: '{}', colour: 'blue' } })).message).toContain(
      'settings',
    );
  });

  it('data_only must come with its own ambiguity declaration, on every kind', () => {
    const settings = { key_id: 'ABC123DEFG', team_id: 'DEF123GHIJ', topic: 'dev.herald.example', signing_key: 'x', data_only: true };
    const err = configError(() => load({ id: 'a', kind: 'apns', channel: 'push', settings }));
    // The key problem comes first; with a good key, the data_only rule names the capability.
    expect(err.field).toBe('provider_accounts[0].settings.signing_key');
    const vapid = { vapid_subject: 'mailto:ops@herald.example', vapid_public_key: VAPID.publicKey, vapid_private_key: VAPID.privateKey, data_only: true };
    expect(configError(() => load({ id: 'w', kind: 'webpush', channel: 'push', settings: vapid })).field).toBe(
      'provider_accounts[0].capabilities.dedupes_by_key',
    );
    const ok = load({
      id: 'w',
      kind: 'webpush',
      channel: 'push',
      settings: vapid,
      ambiguity_policy: 'wait_for_evidence',
      capabilities: { dedupes_by_key: false },
    });
    expect(ok).toMatchObject({ ambiguity_policy: 'wait_for_evidence', capabilities: { lookup: false, dedupes_by_key: false } });
    // Turning the capability off without the policy: the configuration's own rule refuses resend_same_key.
    expect(
      configError(() => load({ id: 'w', kind: 'webpush', channel: 'push', settings: { ...vapid, data_only: false }, capabilities: { dedupes_by_key: false } }))
        .field,
    ).toBe('provider_accounts[0].ambiguity_policy');
  });

  it('APNs: ids and topic required by the schema, a P-256 .p8 key required at load', async () => {
    const fake = await startApnsFake();
    try {
      const settings = { key_id: fake.keyId, team_id: fake.teamId, topic: fake.topic, signing_key_file: file('AuthKey.p8', fake.signingKeyPem) };
      const a = load({ id: 'push-apns', kind: 'apns', channel: 'push', settings });
      expect(a).toMatchObject({ rate_per_second: 100, ambiguity_policy: 'resend_same_key', capabilities: { lookup: false, dedupes_by_key: true } });
      expect(JSON.stringify(providerKind('apns').describe(a))).not.toContain(fake.signingKeyPem.split('\n')[1]!);
      expect(configError(() => load({ id: 'a', kind: 'apns', channel: 'push', settings: { ...settings, key_id: 'short' } })).field).toBe(
        'provider_accounts[0].settings.key_id',
      );
      const rsa = (await import('node:crypto'))
        .generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
      expect(
        configError(() => load({ id: 'a', kind: 'apns', channel: 'push', settings: { ...settings, signing_key_file: undefined, signing_key: rsa } })).message,
      ).toContain('not a P-256 key');
      expect(configError(() => load({ id: 'a', kind: 'apns', channel: 'push', settings, base_url: 'http://127.0.0.1:1' })).field).toBe(
        'provider_accounts[0].base_url',
      );
    } finally {
      await fake.close();
    }
  });

  it('Web Push: the VAPID pair is checked locally; the private key is never described', () => {
    const settings = { vapid_subject: 'mailto:ops@herald.example', vapid_public_key: VAPID.publicKey, vapid_private_key: VAPID.privateKey };
    const a = load({ id: 'push-web', kind: 'webpush', channel: 'push', settings });
    expect(a).toMatchObject({ ambiguity_policy: 'resend_same_key', capabilities: { lookup: false, dedupes_by_key: true } });
    expect(JSON.stringify(providerKind('webpush').describe(a))).not.toContain(VAPID.privateKey);
    const other = webpush.generateVAPIDKeys();
    expect(
      configError(() => load({ id: 'w', kind: 'webpush', channel: 'push', settings: { ...settings, vapid_public_key: other.publicKey } })).message,
    ).toContain('is not the public half of vapid_private_key');
    expect(configError(() => load({ id: 'w', kind: 'webpush', channel: 'push', settings: { ...settings, vapid_subject: 'ops@herald.example' } })).field).toBe(
      'provider_accounts[0].settings.vapid_subject',
    );
  });

  it('every push kind serves the push channel only, and only its own push service', () => {
    for (const kind of ['fcm', 'apns', 'webpush']) {
      expect(providerKind(kind).channels).toEqual(['push']);
      expect(providerKind(kind).pushTargets).toEqual([kind]);
    }
  });
});

describe('herald doctor for push accounts (nothing is delivered)', () => {
  const signal = new AbortController().signal;

  it('FCM: the key, an access token, and a validate_only probe that only the made-up token fails', async () => {
    const fake = await startFcmFake();
    try {
      const account = load({ id: 'push-fcm', kind: 'fcm', channel: 'push', base_url: fake.url, settings: { service_account: fake.serviceAccountJson } });
      const checks = await providerKind('fcm').doctor(account, signal);
      expect(checks.map((c) => [c.name, c.ok])).toEqual([
        ['service account key', true],
        ['credentials accepted', true],
        ['project accepts the account', true],
      ]);
      expect(fake.accepted).toEqual([]);
      fake.scriptToken({ kind: 'answer', status: 400, body: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } });
      const refused = await providerKind('fcm').doctor(account, signal);
      expect(refused.at(-1)).toMatchObject({ name: 'credentials accepted', ok: false });
    } finally {
      await fake.close();
    }
  });

  it('APNs: the key signs, the session opens, and only the made-up device token is refused; a foreign key gets 403', async () => {
    const fake = await startApnsFake();
    try {
      const settings = { key_id: fake.keyId, team_id: fake.teamId, topic: fake.topic, signing_key: fake.signingKeyPem, ca_file: fake.caFile };
      const account = load({ id: 'push-apns', kind: 'apns', channel: 'push', base_url: fake.url, settings });
      expect((await providerKind('apns').doctor(account, signal)).map((c) => [c.name, c.ok])).toEqual([
        ['signing key', true],
        ['APNs answers', true],
        ['credentials accepted', true],
      ]);
      expect(fake.accepted).toEqual([]);
      const { generateKeyPairSync } = await import('node:crypto');
      const foreign = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const checks = await providerKind('apns').doctor(
        load({ id: 'push-apns', kind: 'apns', channel: 'push', base_url: fake.url, settings: { ...settings, signing_key: foreign } }),
        signal,
      );
      expect(checks.at(-1)).toMatchObject({ name: 'credentials accepted', ok: false, detail: 'APNs answered 403 InvalidProviderToken to the probe' });
    } finally {
      await fake.close();
    }
  });

  it('Web Push: local checks only, and it says so', async () => {
    const account = load({
      id: 'push-web',
      kind: 'webpush',
      channel: 'push',
      settings: { vapid_subject: 'mailto:ops@herald.example', vapid_public_key: VAPID.publicKey, vapid_private_key: VAPID.privateKey },
    });
    const checks = await providerKind('webpush').doctor(account, signal);
    expect(checks.map((c) => [c.name, c.ok])).toEqual([
      ['VAPID keys', true],
      ['VAPID signature', true],
      ['push services', true],
    ]);
    expect(JSON.stringify(checks)).not.toContain(VAPID.privateKey);
  });
});
