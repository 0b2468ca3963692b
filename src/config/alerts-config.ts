/**
 * The `alerts:` section of the configuration (operator alerts, docs/operations.md "Operator
 * alerts"): targets, rule thresholds, timing. Defaults and the checks the schema cannot
 * express live here, beside config.ts, so the section reads as one piece.
 */
import ipaddr from 'ipaddr.js';
import { DEFAULT_ALERT_RULES, type AlertRulesConfig, type Channel } from '../domain/index.js';
import type { ProviderAccountConfig } from '../providers/provider.js';

export interface AlertWebhookTarget {
  url: string;
  secret: string | null;
  secret_env: string | null;
}

/** An e-mail or SMS target list and the accounts to send through (null: every account of the channel, in configuration order). */
export interface AlertChannelTargets {
  to: string[];
  accounts: string[] | null;
}

export interface AlertsConfig {
  email: AlertChannelTargets | null;
  sms: AlertChannelTargets | null;
  webhooks: AlertWebhookTarget[];
  allow_networks: string[];
  interval_seconds: number;
  min_gap_seconds: number;
  /** Null: no reminders. */
  reminder_seconds: number | null;
  resolve_hold_seconds: number;
  timeout_ms: number;
  /** How long history rows are kept. */
  history_days: number;
  rules: AlertRulesConfig;
}

/** The section as the schema admits it. */
export interface RawAlertsConfig {
  email?: { to: string[]; accounts?: string[] };
  sms?: { to: string[]; accounts?: string[] };
  webhooks?: Array<{ url: string; secret?: string; secret_env?: string }>;
  allow_networks?: string[];
  interval_seconds?: number;
  min_gap_seconds?: number;
  reminder_seconds?: number;
  resolve_hold_seconds?: number;
  timeout_ms?: number;
  history_days?: number;
  rules?: { [K in keyof AlertRulesConfig]?: Partial<AlertRulesConfig[K]> };
}

/** A problem with the section: the field path and the message (config.ts turns it into a ConfigError). */
export interface AlertsConfigProblem {
  field: string;
  message: string;
}

/** The effective section: defaults under what the file says. */
export function resolveAlerts(raw: RawAlertsConfig | undefined): AlertsConfig {
  const r = raw ?? {};
  const rules = Object.fromEntries(
    Object.entries(DEFAULT_ALERT_RULES).map(([name, defaults]) => [name, { ...defaults, ...(r.rules?.[name as keyof AlertRulesConfig] ?? {}) }]),
  ) as unknown as AlertRulesConfig;
  return {
    email: r.email ? { to: r.email.to, accounts: r.email.accounts ?? null } : null,
    sms: r.sms ? { to: r.sms.to, accounts: r.sms.accounts ?? null } : null,
    webhooks: (r.webhooks ?? []).map((w) => ({ url: w.url, secret: w.secret ?? null, secret_env: w.secret_env ?? null })),
    allow_networks: r.allow_networks ?? [],
    interval_seconds: r.interval_seconds ?? 30,
    min_gap_seconds: r.min_gap_seconds ?? 300,
    reminder_seconds: r.reminder_seconds ?? null,
    resolve_hold_seconds: r.resolve_hold_seconds ?? 0,
    timeout_ms: r.timeout_ms ?? 10_000,
    history_days: r.history_days ?? 90,
    rules,
  };
}

/** True when at least one target is configured (the alerter runs only then). */
export function alertsEnabled(a: AlertsConfig): boolean {
  return a.email !== null || a.sms !== null || a.webhooks.length > 0;
}

/** The accounts an e-mail or SMS target list sends through, in order; throws-free: problems come from checkAlerts. */
export function alertAccounts(targets: AlertChannelTargets, channel: Channel, accounts: readonly ProviderAccountConfig[]): string[] {
  return targets.accounts ?? accounts.filter((a) => a.channel === channel).map((a) => a.id);
}

/** A webhook target's signing secret, from the file or its environment variable (null when the variable is unset). */
export function alertWebhookSecret(w: AlertWebhookTarget, env: NodeJS.ProcessEnv = process.env): string | null {
  return w.secret ?? (w.secret_env !== null ? env[w.secret_env] || null : null);
}

const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

/**
 * What the schema cannot check: accounts that exist and send the target's channel (checked
 * against the configured accounts; with none configured, `herald start`'s sandbox accounts
 * stand in and the alerter checks again at start), webhook URLs and secrets, networks.
 */
export function checkAlerts(a: AlertsConfig, accounts: readonly ProviderAccountConfig[], env: NodeJS.ProcessEnv = process.env): AlertsConfigProblem[] {
  const problems: AlertsConfigProblem[] = [];
  for (const channel of ['email', 'sms'] as const) {
    const targets = a[channel];
    if (!targets || accounts.length === 0) continue;
    targets.accounts?.forEach((id, i) => {
      const acct = accounts.find((x) => x.id === id);
      if (!acct) problems.push({ field: `alerts.${channel}.accounts[${i}]`, message: `names no configured provider account ("${id}")` });
      else if (acct.channel !== channel)
        problems.push({ field: `alerts.${channel}.accounts[${i}]`, message: `"${id}" is a ${acct.channel} account, not ${channel}` });
    });
    if (alertAccounts(targets, channel, accounts).length === 0)
      problems.push({ field: `alerts.${channel}`, message: `needs an ${channel} provider account to send through; none is configured` });
  }
  a.webhooks.forEach((w, i) => {
    let u: URL | null = null;
    try {
      u = new URL(w.url);
    } catch {
      // reported below
    }
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password || u.hash) {
      problems.push({ field: `alerts.webhooks[${i}].url`, message: 'must be an http(s) URL without credentials or fragment' });
    }
    if (w.secret !== null && w.secret_env !== null)
      problems.push({ field: `alerts.webhooks[${i}].secret_env`, message: 'and secret are alternatives: set one' });
    else if (w.secret === null && w.secret_env === null)
      problems.push({ field: `alerts.webhooks[${i}].secret`, message: 'is required (or secret_env): alert webhooks are signed' });
    else if (w.secret_env !== null) {
      const v = env[w.secret_env];
      if (!v) problems.push({ field: `alerts.webhooks[${i}].secret_env`, message: `names ${w.secret_env}, which is not set in the environment` });
      else if (!SECRET.test(v)) problems.push({ field: `alerts.webhooks[${i}].secret_env`, message: `${w.secret_env} does not hold a whsec_ secret` });
    }
  });
  a.allow_networks.forEach((n, i) => {
    if (!ipaddr.isValidCIDR(n)) problems.push({ field: `alerts.allow_networks[${i}]`, message: `"${n}" is not a network in CIDR form (e.g. 10.0.0.0/8)` });
  });
  return problems;
}
