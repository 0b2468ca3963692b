/**
 * The SES kind as configuration sees it: defaults from AWS's guidance, settings refused at load
 * naming the field, credentials that cannot be read named without their value, what
 * GET /v1/provider-accounts may show, and `herald doctor` against the SES fake (read-only
 * calls: account, identity, event destinations; never a send).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../../src/config/config.js';
import type { ProviderAccountConfig } from '../../../src/providers/provider.js';
import { sesKind } from '../../../src/providers/ses/kind.js';
import { startSesFake, type SesFake, type SesFakeOptions } from '../fakes/ses.js';

const KEY_ID = 'AKIAHERALDKIND000001';
const SECRET = 'herald-kind-secret-access-key-0000000000';
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:herald-ses-events';

const raw = (settings: Record<string, unknown> = {}, over: Record<string, unknown> = {}) => ({
  provider_accounts: [
    {
      id: 'ses-main',
      kind: 'ses',
      channel: 'email',
      settings: { region: 'eu-west-1', from: 'Herald <no-reply@example.com>', access_key_id: KEY_ID, secret_access_key: SECRET, ...settings },
      ...over,
    },
  ],
});

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('SES configuration', () => {
  it('defaults an account from AWS’s guidance: 1 message/s, 10 s, wait for evidence, no look-up, no dedupe', () => {
    const [a] = resolveConfig(raw()).provider_accounts;
    expect(a).toMatchObject({
      kind: 'ses',
      rate_per_second: 1,
      burst: 1,
      timeout_ms: 10_000,
      ambiguity_policy: 'wait_for_evidence',
      capabilities: { lookup: false, dedupes_by_key: false },
    });
  });

  it('refuses bad settings at load, naming the field', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ region: undefined }, 'provider_accounts[0].settings.region'],
      [{ region: 'Europe' }, 'provider_accounts[0].settings.region'],
      [{ sns_topic_arns: ['arn:aws:sqs:eu-west-1:123456789012:queue'] }, 'provider_accounts[0].settings.sns_topic_arns[0]'],
      [{ configuration_set: 'has spaces' }, 'provider_accounts[0].settings.configuration_set'],
      [{ api_host: 'x' }, 'provider_accounts[0].settings.api_host'],
      [{ from: 'not an address' }, 'provider_accounts[0].settings.from'],
      [{ access_key_id: undefined }, 'provider_accounts[0].settings.access_key_id'],
    ];
    for (const [settings, field] of cases) {
      const err = configError(() => resolveConfig(raw(settings)));
      expect(err.field, JSON.stringify(settings)).toBe(field);
    }
  });

  it('a credential variable that is not set is named, and its value never appears', () => {
    const err = configError(() => resolveConfig(raw({ secret_access_key: undefined, secret_access_key_env: 'HERALD_TEST_UNSET_SES_SECRET' })));
    expect(err.field).toBe('provider_accounts[0].settings.secret_access_key_env');
    expect(err.message).toContain('HERALD_TEST_UNSET_SES_SECRET');
    expect(err.message).not.toContain(KEY_ID);
  });

  it('refuses what SES cannot do, and shared secrets it would ignore', () => {
    expect(configError(() => resolveConfig(raw({}, { capabilities: { lookup: true } }))).field).toBe('provider_accounts[0].capabilities.lookup');
    expect(configError(() => resolveConfig(raw({}, { ambiguity_policy: 'resend_same_key' }))).message).toMatch(/resend_same_key/);
    expect(configError(() => resolveConfig(raw({}, { callback_secrets: ['whsec_abc'] }))).field).toBe('provider_accounts[0].callback_secrets');
    expect(configError(() => resolveConfig(raw({}, { api_key: 'k' }))).field).toBe('provider_accounts[0].api_key');
  });

  it('describes an account without its credentials; receives callbacks exactly when it lists topics', () => {
    const [without] = resolveConfig(raw()).provider_accounts;
    const [withTopics] = resolveConfig(raw({ configuration_set: 'herald', sns_topic_arns: [TOPIC] })).provider_accounts;
    const shown = sesKind.describe(withTopics!);
    expect(shown).toEqual({
      region: 'eu-west-1',
      endpoint: 'https://email.eu-west-1.amazonaws.com',
      from: 'Herald <no-reply@example.com>',
      configuration_set: 'herald',
      sns_topic_arns: [TOPIC],
    });
    expect(JSON.stringify(shown)).not.toMatch(new RegExp(`${KEY_ID}|${SECRET}`));
    expect(sesKind.createCallbackVerifier(without!)).toBeNull();
    expect(sesKind.createCallbackVerifier(withTopics!)).not.toBeNull();
  });
});

describe('herald doctor for SES', () => {
  let fake: SesFake;
  afterEach(async () => {
    await fake?.close();
  });
  const domainIdentity = {
    IdentityType: 'DOMAIN',
    VerifiedForSendingStatus: true,
    DkimAttributes: { SigningEnabled: true, Status: 'SUCCESS' },
    MailFromAttributes: { MailFromDomain: 'mail.example.com', MailFromDomainStatus: 'SUCCESS' },
  };
  const allEvents = {
    Name: 'to-herald',
    Enabled: true,
    MatchingEventTypes: ['SEND', 'REJECT', 'BOUNCE', 'COMPLAINT', 'DELIVERY', 'DELIVERY_DELAY'],
    SnsDestination: { TopicArn: TOPIC },
  };
  const account = (settings: Record<string, unknown> = {}, over: Partial<ProviderAccountConfig> = {}): ProviderAccountConfig => ({
    ...resolveConfig(raw({ configuration_set: 'herald', sns_topic_arns: [TOPIC], ...settings })).provider_accounts[0]!,
    base_url: fake.url,
    timeout_ms: 2_000,
    ...over,
  });
  const start = async (over: Partial<SesFakeOptions> = {}) => {
    fake = await startSesFake({
      region: 'eu-west-1',
      accessKeyId: KEY_ID,
      secretAccessKey: SECRET,
      identities: { 'example.com': domainIdentity },
      eventDestinations: { herald: [allEvents] },
      ...over,
    });
  };
  const byName = (checks: Array<{ name: string; ok: boolean; detail: string }>) => Object.fromEntries(checks.map((c) => [c.name, c]));

  it('a production account with a verified domain and its events published: every check passes, nothing is sent', async () => {
    await start();
    const checks = await sesKind.doctor(account(), AbortSignal.timeout(5_000));
    expect(
      checks.every((c) => c.ok),
      JSON.stringify(checks),
    ).toBe(true);
    expect(checks.map((c) => c.name)).toEqual([
      'credentials accepted',
      'production access',
      'sending enabled',
      'rate within the send quota',
      'sender verified',
      'events published to SNS',
    ]);
    expect(byName(checks)['sender verified']!.detail).toBe('identity example.com (DOMAIN), DKIM SUCCESS, MAIL FROM mail.example.com SUCCESS');
    expect(fake.sends()).toEqual([]);
    expect(fake.signatureRefusals()).toEqual([]);
  });

  it('says what is wrong: sandbox, a rate above the quota, an unverified sender, missing event types', async () => {
    await start({
      account: {
        ProductionAccessEnabled: false,
        SendingEnabled: true,
        EnforcementStatus: 'HEALTHY',
        SendQuota: { Max24HourSend: 200, MaxSendRate: 1, SentLast24Hours: 0 },
      },
      identities: { 'example.com': { ...domainIdentity, VerifiedForSendingStatus: false, DkimAttributes: { Status: 'PENDING' } } },
      eventDestinations: { herald: [{ ...allEvents, MatchingEventTypes: ['BOUNCE', 'COMPLAINT'] }] },
    });
    const checks = byName(await sesKind.doctor(account({}, { rate_per_second: 14 }), AbortSignal.timeout(5_000)));
    expect(checks['production access']).toMatchObject({ ok: false, detail: expect.stringMatching(/sandbox/) });
    expect(checks['rate within the send quota']).toMatchObject({
      ok: false,
      detail: "SES allows 1 messages/s and 200 per 24 h; the account's rate_per_second is 14",
    });
    expect(checks['sender verified']).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/DKIM PENDING.*not verified.*no-reply@example.com: not an SES identity/),
    });
    expect(checks['events published to SNS']).toMatchObject({ ok: false, detail: 'destination to-herald does not publish SEND, REJECT, DELIVERY' });
  });

  it('a verified address identity suffices when its domain is not an identity', async () => {
    await start({ identities: { 'no-reply@example.com': { IdentityType: 'EMAIL_ADDRESS', VerifiedForSendingStatus: true } } });
    expect(byName(await sesKind.doctor(account(), AbortSignal.timeout(5_000)))['sender verified']).toMatchObject({
      ok: true,
      detail: 'identity no-reply@example.com (EMAIL_ADDRESS)',
    });
  });

  it('refused credentials, a missing configuration set, an unreachable endpoint', async () => {
    await start();
    expect(await sesKind.doctor(account({ secret_access_key: 'wrong' }), AbortSignal.timeout(5_000))).toEqual([
      { name: 'credentials accepted', ok: false, detail: 'SES answered HTTP 403 (SignatureDoesNotMatch)' },
    ]);
    expect(byName(await sesKind.doctor(account({ configuration_set: 'nope' }), AbortSignal.timeout(5_000)))['events published to SNS']).toMatchObject({
      ok: false,
      detail: 'configuration set nope does not exist',
    });
    const url = fake.url;
    await fake.close();
    const [down] = await sesKind.doctor({ ...account(), base_url: url }, AbortSignal.timeout(5_000));
    expect(down).toMatchObject({ name: 'credentials accepted', ok: false, detail: expect.stringMatching(/did not answer \(ECONNREFUSED\)/) });
  });
});
