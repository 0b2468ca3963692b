/** The `alerts:` section: its defaults, what the file overrides, and a ConfigError naming the field for each mistake. */
import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config/config.js';
import { alertAccounts, alertWebhookSecret, alertsEnabled } from '../../src/config/alerts-config.js';
import { DEFAULT_ALERT_RULES } from '../../src/domain/index.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const accounts = [
  { id: 'mail', kind: 'sandbox', channel: 'email', base_url: 'http://127.0.0.1:8025' },
  { id: 'sms-main', kind: 'sandbox', channel: 'sms', base_url: 'http://127.0.0.1:8025' },
  { id: 'sms-backup', kind: 'sandbox', channel: 'sms', base_url: 'http://127.0.0.1:8026' },
];

function fieldOf(raw: unknown, env?: Record<string, string>): string | null {
  const saved = { ...process.env };
  Object.assign(process.env, env ?? {});
  try {
    resolveConfig(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).field;
  } finally {
    for (const k of Object.keys(env ?? {})) if (!(k in saved)) delete process.env[k];
  }
  throw new Error('expected a ConfigError');
}

describe('alerts configuration', () => {
  it('is off with every default when the section is absent', () => {
    const a = resolveConfig(undefined).alerts;
    expect(a).toEqual({
      email: null,
      sms: null,
      webhooks: [],
      allow_networks: [],
      interval_seconds: 30,
      min_gap_seconds: 300,
      reminder_seconds: null,
      resolve_hold_seconds: 0,
      timeout_ms: 10_000,
      history_days: 90,
      rules: DEFAULT_ALERT_RULES,
    });
    expect(alertsEnabled(a)).toBe(false);
    expect(DEFAULT_ALERT_RULES.provider_failures.min_failures).toBe(4);
    expect(DEFAULT_ALERT_RULES.otp_due_old.older_than_seconds).toBe(60);
  });

  it('reads targets, timing and per-rule thresholds over the defaults', () => {
    const a = resolveConfig({
      provider_accounts: accounts,
      alerts: {
        email: { to: ['oncall@example.com'] },
        sms: { to: ['+4915112345689'], accounts: ['sms-backup', 'sms-main'] },
        webhooks: [{ url: 'https://hooks.example.com/herald', secret: SECRET }],
        interval_seconds: 10,
        min_gap_seconds: 0,
        reminder_seconds: 3600,
        resolve_hold_seconds: 120,
        rules: { provider_failures: { min_failures: 10 }, device_away: { enabled: false } },
      },
    }).alerts;
    expect(alertsEnabled(a)).toBe(true);
    expect(a.rules.provider_failures).toEqual({ enabled: true, min_failures: 10 });
    expect(a.rules.device_away).toEqual({ enabled: false });
    expect(a.rules.unknown_old).toEqual(DEFAULT_ALERT_RULES.unknown_old);
    expect([a.interval_seconds, a.min_gap_seconds, a.reminder_seconds, a.resolve_hold_seconds]).toEqual([10, 0, 3600, 120]);
    const cfgAccounts = resolveConfig({ provider_accounts: accounts }).provider_accounts;
    expect(alertAccounts(a.email!, 'email', cfgAccounts)).toEqual(['mail']);
    expect(alertAccounts(a.sms!, 'sms', cfgAccounts)).toEqual(['sms-backup', 'sms-main']);
    expect(alertWebhookSecret(a.webhooks[0]!)).toBe(SECRET);
    expect(alertWebhookSecret({ url: 'https://x.example', secret: null, secret_env: 'HERALD_T_ALERT_SECRET' }, { HERALD_T_ALERT_SECRET: SECRET })).toBe(SECRET);
  });

  it('names the field of every mistake', () => {
    const base = { provider_accounts: accounts };
    expect(fieldOf({ ...base, alerts: { sms: { to: ['015112345689'] } } })).toBe('alerts.sms.to[0]');
    expect(fieldOf({ ...base, alerts: { email: { to: ['not-an-address'] } } })).toBe('alerts.email.to[0]');
    expect(fieldOf({ ...base, alerts: { sms: { to: ['+4915112345689'], accounts: ['nope'] } } })).toBe('alerts.sms.accounts[0]');
    expect(fieldOf({ ...base, alerts: { sms: { to: ['+4915112345689'], accounts: ['mail'] } } })).toBe('alerts.sms.accounts[0]');
    expect(fieldOf({ provider_accounts: accounts.slice(1), alerts: { email: { to: ['a@example.com'] } } })).toBe('alerts.email');
    expect(fieldOf({ ...base, alerts: { webhooks: [{ url: 'ftp://x.example.com', secret: SECRET }] } })).toBe('alerts.webhooks[0].url');
    expect(fieldOf({ ...base, alerts: { webhooks: [{ url: 'https://x.example.com' }] } })).toBe('alerts.webhooks[0].secret');
    expect(fieldOf({ ...base, alerts: { webhooks: [{ url: 'https://x.example.com', secret: 'plain' }] } })).toBe('alerts.webhooks[0].secret');
    expect(fieldOf({ ...base, alerts: { webhooks: [{ url: 'https://x.example.com', secret: SECRET, secret_env: 'X' }] } })).toBe(
      'alerts.webhooks[0].secret_env',
    );
    expect(fieldOf({ ...base, alerts: { webhooks: [{ url: 'https://x.example.com', secret_env: 'HERALD_T_UNSET_SECRET' }] } })).toBe(
      'alerts.webhooks[0].secret_env',
    );
    expect(fieldOf({ ...base, alerts: { webhooks: [{ url: 'https://x.example.com', secret_env: 'HERALD_T_BAD' }] } }, { HERALD_T_BAD: 'nope' })).toBe(
      'alerts.webhooks[0].secret_env',
    );
    expect(fieldOf({ ...base, alerts: { allow_networks: ['10.0.0.0'] } })).toBe('alerts.allow_networks[0]');
    expect(fieldOf({ ...base, alerts: { interval_seconds: 1 } })).toBe('alerts.interval_seconds');
    expect(fieldOf({ ...base, alerts: { history_days: 0 } })).toBe('alerts.history_days');
    expect(fieldOf({ ...base, alerts: { rules: { provider_failures: { min_failures: 0 } } } })).toBe('alerts.rules.provider_failures.min_failures');
    expect(fieldOf({ ...base, alerts: { rules: { no_such_rule: {} } } })).toBe('alerts.rules.no_such_rule');
  });
});
