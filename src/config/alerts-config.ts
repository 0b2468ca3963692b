/**
 * The `alerts:` section of the configuration (operator alerts, docs/operations.md "Operator
 * alerts"): targets, rule thresholds, timing. Defaults and the checks the schema cannot
 * express live here, beside config.ts, so the section reads as one piece.
 */
import { Type, type Static, type TInteger, type TObject } from '@sinclair/typebox';
import { DEFAULT_ALERT_RULES, type AlertRulesConfig, type Channel } from '../domain/index.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import { section, settle, withDefault, type Settled } from '../schema/setting.js';
import { allowNetworksSetting, notCidr } from './network-allow-list.js';

const COUNT = { minimum: 1, maximum: 100_000 } as const;
const SECONDS = { minimum: 1, maximum: 86_400 } as const;

/** A channel's target list: who gets each alert message, and through which of Herald's own accounts. */
function channelTargets(to: ReturnType<typeof Type.String>, toDescription: string, channel: string) {
  return section(
    {
      to: Type.Array(to, { minItems: 1, maxItems: 10, description: toDescription }),
      accounts: Type.Optional(
        Type.Array(Type.String({ minLength: 1 }), {
          minItems: 1,
          description: `Herald's own ${channel} provider accounts to send through, in order of preference. Default: every ${channel} account, in configuration order. An account an alert is about is skipped while another one exists.`,
        }),
      ),
    },
    {},
  );
}

type RuleName = keyof AlertRulesConfig;

/** An integer threshold's limits and what it means. */
type Threshold = [limits: { minimum: number; maximum: number }, description: string];

/**
 * A rule's section, defaulted as a whole: `enabled` (on, like every rule) and its integer
 * thresholds, each with its limits and description here and its default the domain's
 * (domain/alert-rules.ts DEFAULT_ALERT_RULES).
 */
function rule<R extends RuleName, K extends Exclude<keyof AlertRulesConfig[R], 'enabled'> & string = never>(
  name: R,
  thresholds: Record<K, Threshold> = {} as Record<K, Threshold>,
) {
  const defaults = DEFAULT_ALERT_RULES[name] as unknown as Record<K, number>;
  const settings = Object.fromEntries(
    (Object.entries(thresholds) as [K, Threshold][]).map(([field, [limits, description]]) => [
      field,
      withDefault(Type.Integer({ ...limits, description }), defaults[field]),
    ]),
  ) as Record<K, ReturnType<typeof withDefault<TInteger>>>;
  const properties = { enabled: withDefault(Type.Boolean({ description: 'Whether this rule is evaluated.' }), DEFAULT_ALERT_RULES[name].enabled), ...settings };
  return withDefault(section(properties), {} as Static<TObject<typeof properties>>);
}

/** Each rule's threshold; the defaults are the domain's (domain/alert-rules.ts DEFAULT_ALERT_RULES). */
const RulesSection = section(
  {
    provider_failures: rule('provider_failures', { min_failures: [COUNT, 'Attempts not accepted on one account in 15 minutes.'] }),
    unknown_old: rule('unknown_old', { older_than_seconds: [SECONDS, 'An unknown delivery older than this.'] }),
    otp_due_old: rule('otp_due_old', { older_than_seconds: [SECONDS, 'A due otp delivery waiting longer than this.'] }),
    retry_budget_degraded: rule('retry_budget_degraded'),
    throttle_pause_long: rule('throttle_pause_long', { longer_than_seconds: [SECONDS, 'A throttle pause with more than this left.'] }),
    account_demoted: rule('account_demoted'),
    device_away: rule('device_away'),
    device_low_battery: rule('device_low_battery'),
    deadline_misses: rule('deadline_misses', { min_misses: [COUNT, 'Deadline misses in the last hour.'] }),
    review_queue_growing: rule('review_queue_growing', {
      min_growth: [COUNT, 'Growth of the review queue across the window.'],
      window_seconds: [{ minimum: 60, maximum: 86_400 }, 'The window the growth is measured over.'],
    }),
  },
  { description: "Each rule's threshold; every rule is on by default." },
);

/** The `alerts:` section's shape and defaults. */
export const AlertsSection = section(
  {
    email: Type.Optional(
      channelTargets(Type.String({ pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$', maxLength: 254 }), 'Addresses each alert message goes to.', 'e-mail'),
    ),
    sms: Type.Optional(channelTargets(Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$' }), 'E.164 numbers each alert message goes to.', 'SMS')),
    webhooks: withDefault(
      Type.Array(
        section({
          url: Type.String({
            minLength: 1,
            maxLength: 2048,
            description: 'http(s) URL that receives a signed JSON body per alert message (Standard Webhooks headers).',
          }),
          secret: Type.Optional(
            Type.String({ pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$', description: 'Signing secret (whsec_ + base64 of 24-64 bytes). Prefer secret_env.' }),
          ),
          secret_env: Type.Optional(
            Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'Name of the environment variable holding the signing secret.' }),
          ),
        }),
        {
          maxItems: 10,
          description:
            'URLs that receive each alert message as a JSON body signed like customer webhooks (Standard Webhooks), through the SSRF address policy with alerts.allow_networks.',
        },
      ),
      [],
    ),
    allow_networks: allowNetworksSetting(
      'CIDR networks alert webhook URLs may reach although they are not public (e.g. an internal chat bridge at 10.1.2.3: ["10.1.2.3/32"]). Default none, as for customer webhooks.',
    ),
    interval_seconds: withDefault(Type.Integer({ minimum: 5, maximum: 3600, description: 'How often the rules are evaluated.' }), 30),
    min_gap_seconds: withDefault(
      Type.Integer({
        minimum: 0,
        maximum: 86_400,
        description: 'The least time between two messages to one target; what happens inside the gap goes out together at its end.',
      }),
      300,
    ),
    reminder_seconds: Type.Optional(
      Type.Integer({ minimum: 60, maximum: 604_800, description: 'Repeat a firing alert this often while it keeps firing. Default: never.' }),
    ),
    resolve_hold_seconds: withDefault(
      Type.Integer({
        minimum: 0,
        maximum: 86_400,
        description: 'How long a condition must stay clear before its alert resolves (0: the first evaluation that finds it clear).',
      }),
      0,
    ),
    history_days: withDefault(Type.Integer({ minimum: 1, maximum: 3650, description: 'How long the history of sent alerts (GET /v1/alerts) is kept.' }), 90),
    timeout_ms: withDefault(Type.Integer({ minimum: 1000, maximum: 60_000, description: 'Deadline of one webhook request.' }), 10_000),
    rules: withDefault(RulesSection, {}),
  },
  {
    description:
      'Operator alerts without Prometheus (docs/operations.md, Operator alerts): Herald evaluates its own signals in the worker role and tells the targets below when a rule fires and when it resolves. Off while no target is configured.',
  },
);

/** The section as a file may give it. */
export type RawAlertsConfig = Static<typeof AlertsSection>;

/** The effective section: every default filled in; a target list, a reminder, a secret the file leaves out is null. */
export type AlertsConfig = Settled<typeof AlertsSection>;
export type AlertWebhookTarget = AlertsConfig['webhooks'][number];
/** An e-mail or SMS target list and the accounts to send through (null: every account of the channel, in configuration order). */
export type AlertChannelTargets = NonNullable<AlertsConfig['email']>;

/** A problem with the section: the field path and the message (config.ts turns it into a ConfigError). */
export interface AlertsConfigProblem {
  field: string;
  message: string;
}

/** The effective section: defaults under what the file says (tests build one from a partial section). */
export function resolveAlerts(raw: RawAlertsConfig | undefined): AlertsConfig {
  return settle(AlertsSection, raw);
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
  for (const { index, entry } of notCidr(a.allow_networks))
    problems.push({ field: `alerts.allow_networks[${index}]`, message: `"${entry}" is not a network in CIDR form (e.g. 10.0.0.0/8)` });
  return problems;
}
