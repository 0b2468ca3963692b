/**
 * Herald's configuration: a JSON or YAML file validated against the schema declared in
 * config-schema.ts (published as herald-config.schema.json), then defaults from the same
 * declarations, then command-line overrides. A bad file fails with a message naming the field.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { notCidr } from './network-allow-list.js';
import {
  DEFAULT_SCHEDULING_POLICY,
  laneConfigErrors,
  otpSmsFormatError,
  leaseCoversCall,
  leaseMarginMs,
  policyProblems,
  resolvePolicy,
  shortestLeaseFor,
  type Channel,
  type SchedulingPolicy,
  type SchedulingPolicyJson,
} from '../domain/index.js';
import { providerAccountSchema, type RawProviderAccount } from '../providers/account-schema.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import { PROVIDER_KINDS, providerKind } from '../providers/registry.js';
import { jsonSchemaOf, settle, withDefaults, type Settled } from '../schema/setting.js';
import { checkAlerts } from './alerts-config.js';
import { publishedConfigSchema, SettingsSchema, SandboxSection } from './config-schema.js';
import { checkEncryption, resolveEncryption, type EncryptionConfig } from './retention-config.js';
import { limitsPolicy, type LimitsConfig } from './limits-config.js';
import { checkRoutes, routesPolicy, type RoutesConfig } from './routes-config.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The published schema, written from config-schema.ts by `npm run config:schema` (a test keeps it in step). */
export const CONFIG_SCHEMA_PATH = join(here, 'herald-config.schema.json');

type Settings = Settled<typeof SettingsSchema>;

/**
 * The effective configuration: every section settled from config-schema.ts (each setting its
 * value, its default, or null where it has none), and what is worked out from the file rather
 * than read from it: the public URL, whether the sandbox runs, each provider account with its
 * kind's defaults, the limits as the domain's policy, the content keys.
 */
export type HeraldConfig = Omit<Settings, '$schema' | 'public_url' | 'sandbox' | 'limits' | 'encryption' | 'routes'> & {
  /**
   * The base URL recipients and providers reach Herald at (no trailing slash), for links Herald
   * puts in messages, e.g. one-click unsubscribe. Default http://<host>:<port>.
   */
  public_url: string;
  sandbox: Omit<Settled<typeof SandboxSection>, 'enabled' | 'api_key'> & { enabled: boolean; api_key?: string };
  provider_accounts: ProviderAccountConfig[];
  /** The limits on the way in: per-key request quota, velocity per purpose, SMS countries (limits-config.ts). */
  limits: LimitsConfig;
  /** Message content encrypted at rest: the primary key and the older ones (retention-config.ts). */
  encryption: EncryptionConfig;
  /** The routes per tenant, channel and purpose, and the demotion rule (routes-config.ts). */
  routes: RoutesConfig;
};

export type TlsConfig = NonNullable<HeraldConfig['tls']>;
export type DevicesConfig = HeraldConfig['devices'];

/** A configuration problem, with the path of the offending field (e.g. `provider_accounts[0].channel`). */
export class ConfigError extends Error {
  readonly code = 'config_invalid';
  constructor(
    message: string,
    readonly field: string | null,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The automatic sandbox accounts' limit: far above what one machine sends (~3,000/s measured), so only a quota set on the sandbox limits it. */
export const SANDBOX_RATE_PER_SECOND = 100_000;
export const SANDBOX_BURST = 10_000;

function fieldPath(instancePath: string): string {
  return instancePath
    .split('/')
    .filter(Boolean)
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function describe(err: ErrorObject): { field: string; message: string } {
  let field = fieldPath(err.instancePath);
  let message = err.message ?? 'is invalid';
  if (err.keyword === 'additionalProperties') {
    const extra = (err.params as { additionalProperty: string }).additionalProperty;
    field = field ? `${field}.${extra}` : extra;
    message = 'is not a known setting';
  } else if (err.keyword === 'required') {
    const missing = (err.params as { missingProperty: string }).missingProperty;
    field = field ? `${field}.${missing}` : missing;
    message = 'is required';
  } else if (err.keyword === 'false schema') {
    message = "is not a setting of this account's kind";
  } else if (err.keyword === 'enum') {
    message = `must be one of ${(err.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  }
  return { field: field || '(root)', message };
}

/**
 * The published schema with each provider kind's `settings` schema composed in: an account's
 * `settings` must match the schema of its `kind` (providers/registry.ts), so a wrong setting
 * fails at load naming its field, like every other.
 */
export function composedConfigSchema(): Record<string, unknown> {
  const schema = publishedConfigSchema() as {
    definitions: { provider_account: { allOf?: unknown[] } & Record<string, unknown> };
  } & Record<string, unknown>;
  schema.definitions.provider_account.allOf = [...PROVIDER_KINDS.values()].map((k) => ({
    if: { properties: { kind: { const: k.kind } }, required: ['kind'] },
    then: {
      properties: { settings: k.settingsSchema === null ? false : jsonSchemaOf(k.settingsSchema) },
      ...(k.settingsSchema === null ? {} : { required: ['settings'] }),
    },
  }));
  return schema;
}

let validator: ReturnType<Ajv['compile']> | null = null;
function validate(raw: unknown): void {
  if (!validator) {
    const ajv = new Ajv({ allErrors: true, strict: true });
    validator = ajv.compile(composedConfigSchema());
  }
  if (!validator(raw)) {
    // An `if`/`then` failure (a kind's settings) is also reported as the `then` errors themselves: keep those.
    const errors = validator.errors!.filter((e) => e.keyword !== 'if');
    const first = describe(errors[0]!);
    const all = errors.map(describe).map((e) => `${e.field} ${e.message}`);
    throw new ConfigError(`invalid configuration: ${all.join('; ')}`, first.field);
  }
}

/** Reads a config file (JSON, or YAML by extension), validating it; throws ConfigError naming the field. */
export function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config file ${path}: ${(err as Error).message}`, null);
  }
  let raw: unknown;
  try {
    raw = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`config file ${path} is not valid ${/\.ya?ml$/i.test(path) ? 'YAML' : 'JSON'}: ${(err as Error).message}`, null);
  }
  validate(raw);
  return raw;
}

export interface ConfigOverrides {
  host?: string;
  port?: number;
  dataDir?: string;
  sandboxPort?: number;
  sandbox?: boolean;
}

const accountSchema = providerAccountSchema([...PROVIDER_KINDS.keys()]);

/** An account (validated) with its kind's defaults (from its provider's own guidance) under what it says, and the schema's under both. */
function resolveAccount(a: RawProviderAccount): ProviderAccountConfig {
  const kind = providerKind(a.kind).defaults;
  const capabilities = { ...kind.capabilities, ...a.capabilities };
  return withDefaults(accountSchema, { ...kind, ...a, capabilities });
}

/** Builds the effective configuration from a validated raw object (or none) and overrides. */
export function resolveConfig(raw: unknown, overrides: ConfigOverrides = {}): HeraldConfig {
  if (raw !== undefined) validate(raw);
  const { provider_accounts: rawAccounts, ...rest } = (raw ?? {}) as { provider_accounts?: RawProviderAccount[] };
  const { $schema: _pointer, ...s } = settle(SettingsSchema, rest);
  const accounts = (rawAccounts ?? []).map(resolveAccount);
  const cfg: HeraldConfig = {
    ...s,
    host: overrides.host ?? s.host,
    port: overrides.port ?? s.port,
    public_url: '',
    data_dir: resolve(overrides.dataDir ?? s.data_dir),
    sandbox: {
      enabled: overrides.sandbox ?? s.sandbox.enabled ?? accounts.length === 0,
      port: overrides.sandboxPort ?? s.sandbox.port,
      ...(s.sandbox.api_key ? { api_key: s.sandbox.api_key } : {}),
    },
    provider_accounts: accounts,
    tls: s.tls ? { cert_file: resolve(s.tls.cert_file), key_file: resolve(s.tls.key_file) } : null,
    encryption: resolveEncryption(s.encryption, (p) => resolve(p)),
    limits: limitsPolicy(s.limits),
    routes: routesPolicy(s.routes),
    devices: { ...s.devices, base_path: s.devices.base_path.replace(/\/+$/, '') },
  };
  cfg.public_url = publicUrl(s.public_url ?? undefined, cfg.host, cfg.port, cfg.tls !== null);
  checkConsistency(cfg);
  return cfg;
}

/** The configured public URL without its trailing slash, or http://<host>:<port> (an IPv6 host in brackets). */
export function publicUrl(configured: string | undefined, host: string, port: number, tls = false): string {
  if (configured !== undefined) {
    let u: URL;
    try {
      u = new URL(configured);
    } catch {
      throw new ConfigError(`public_url "${configured}" is not a URL`, 'public_url');
    }
    if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.search || u.hash || u.username || u.password) {
      throw new ConfigError('public_url must be an http(s) URL without credentials, query or fragment, e.g. https://herald.example.com', 'public_url');
    }
    return u.href.replace(/\/+$/, '');
  }
  return `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The accounts `herald start` uses when none are configured: one sandbox account per channel. */
export function sandboxAccounts(sandboxUrl: string, apiKey?: string): ProviderAccountConfig[] {
  return (['email', 'sms', 'push'] as Channel[]).map((channel) =>
    withDefaults(accountSchema, {
      // The sandbox has no quota unless one is set on it: do not let a made-up one slow it down.
      rate_per_second: SANDBOX_RATE_PER_SECOND,
      burst: SANDBOX_BURST,
      id: `sandbox-${channel}`,
      kind: 'sandbox',
      channel,
      base_url: sandboxUrl,
      ...(apiKey ? { api_key: apiKey } : {}),
    }),
  );
}

/** The bearer token GET /metrics requires, or null when the endpoint is open. */
export function metricsToken(cfg: HeraldConfig, env: NodeJS.ProcessEnv = process.env): string | null {
  if (cfg.metrics.token !== null) return cfg.metrics.token;
  if (cfg.metrics.token_env !== null) return env[cfg.metrics.token_env] || null;
  return null;
}

/** The `scheduling:` section's policy fields, in the shape a tenant's policy takes. */
function schedulingJson(cfg: HeraldConfig): SchedulingPolicyJson {
  return {
    time_zone: cfg.scheduling.time_zone,
    ...(cfg.scheduling.quiet_hours ? { quiet_hours: cfg.scheduling.quiet_hours } : {}),
    ...(cfg.scheduling.frequency_caps ? { frequency_caps: cfg.scheduling.frequency_caps } : {}),
  };
}

/**
 * The install's scheduling defaults (docs/scheduling.md): the built-in windows and caps, with
 * what `scheduling:` sets over them. A tenant's stored policy is resolved over these.
 */
export function installSchedulingPolicy(cfg: HeraldConfig): SchedulingPolicy {
  return resolvePolicy(schedulingJson(cfg), DEFAULT_SCHEDULING_POLICY);
}

/** Rules the schema cannot express: unique ids, and a lease that covers every call with its margin. */
export function checkConsistency(cfg: HeraldConfig): void {
  // The device API shares Herald's port: it must not shadow the API's own routes.
  if (/^\/(v1|openapi\.json|healthz)(\/|$)/.test(cfg.devices.base_path) || cfg.devices.base_path === '') {
    throw new ConfigError(`devices.base_path "${cfg.devices.base_path}" would shadow Herald's own routes; use e.g. /mobile/v1`, 'devices.base_path');
  }
  if (cfg.metrics.token !== null && cfg.metrics.token_env !== null) {
    throw new ConfigError('metrics.token and metrics.token_env are alternatives: set one', 'metrics.token_env');
  }
  // A named but unset variable would leave /metrics open while the operator believes it closed.
  if (cfg.metrics.token_env !== null && !process.env[cfg.metrics.token_env]) {
    throw new ConfigError(`metrics.token_env names ${cfg.metrics.token_env}, which is not set in the environment`, 'metrics.token_env');
  }
  const [keyProblem] = checkEncryption(cfg.encryption);
  if (keyProblem) throw new ConfigError(`${keyProblem.field} ${keyProblem.message}`, keyProblem.field);
  const [alertProblem] = checkAlerts(cfg.alerts, cfg.provider_accounts);
  const [routeProblem] = checkRoutes(cfg.routes, cfg.provider_accounts);
  if (routeProblem) throw new ConfigError(`${routeProblem.field} ${routeProblem.message}`, routeProblem.field);
  if (alertProblem) throw new ConfigError(`${alertProblem.field} ${alertProblem.message}`, alertProblem.field);
  const [schedulingProblem] = policyProblems(schedulingJson(cfg));
  if (schedulingProblem) throw new ConfigError(`scheduling.${schedulingProblem.field} ${schedulingProblem.message}`, `scheduling.${schedulingProblem.field}`);
  // node:http refuses a headers timeout above the request timeout (the headers are part of the request).
  if (cfg.http.headers_timeout_s > cfg.http.request_timeout_s) {
    throw new ConfigError(
      `http.headers_timeout_s (${cfg.http.headers_timeout_s}) is longer than http.request_timeout_s (${cfg.http.request_timeout_s})`,
      'http.headers_timeout_s',
    );
  }
  // An idle timeout longer than the lifetime would never apply: a sign of a unit mix-up.
  if (cfg.dashboard.session_idle_s > cfg.dashboard.session_ttl_s) {
    throw new ConfigError(
      `dashboard.session_idle_s (${cfg.dashboard.session_idle_s}) is longer than dashboard.session_ttl_s (${cfg.dashboard.session_ttl_s})`,
      'dashboard.session_idle_s',
    );
  }
  const [bad] = notCidr(cfg.webhooks.allow_networks);
  if (bad)
    throw new ConfigError(
      `webhooks.allow_networks[${bad.index}] "${bad.entry}" is not a network in CIDR form (e.g. 127.0.0.0/8, ::1/128)`,
      `webhooks.allow_networks[${bad.index}]`,
    );
  const seen = new Set<string>();
  cfg.provider_accounts.forEach((a, i) => {
    if (seen.has(a.id)) throw new ConfigError(`provider_accounts[${i}].id "${a.id}" is used twice`, `provider_accounts[${i}].id`);
    seen.add(a.id);
    const kind = providerKind(a.kind);
    if (!kind.channels.includes(a.channel)) {
      throw new ConfigError(
        `provider_accounts[${i}].channel ${a.channel}: a ${a.kind} account sends ${kind.channels.join(', ')}`,
        `provider_accounts[${i}].channel`,
      );
    }
    if (a.otp_sms_format) {
      if (a.channel !== 'sms')
        throw new ConfigError(`provider_accounts[${i}].otp_sms_format applies only to an sms account`, `provider_accounts[${i}].otp_sms_format`);
      const problem = otpSmsFormatError({ webotpDomain: a.otp_sms_format.webotp_domain ?? null, appHash: a.otp_sms_format.app_hash ?? null }, '123456');
      if (problem)
        throw new ConfigError(`provider_accounts[${i}].otp_sms_format.${problem}`, `provider_accounts[${i}].otp_sms_format.${problem.split(' ')[0]}`);
    }
    if (a.keyword_replies && a.channel !== 'sms')
      throw new ConfigError(`provider_accounts[${i}].keyword_replies applies only to an sms account`, `provider_accounts[${i}].keyword_replies`);
    // The kind's own rules: credentials present, addresses that parse. Messages never quote a credential.
    const [problem] = kind.check(a, process.env);
    if (problem) throw new ConfigError(`provider_accounts[${i}].${problem.field} ${problem.message}`, `provider_accounts[${i}].${problem.field}`);
    if (a.lanes) {
      const [first] = laneConfigErrors(a.lanes, `provider_accounts[${i}].lanes`);
      if (first) throw new ConfigError(`${first.field} ${first.message}`, first.field);
    }
    // Resending with the same key is safe only where the provider deduplicates by key, for every purpose.
    const policies: Array<[string, string]> = [
      ['ambiguity_policy', a.ambiguity_policy],
      ...Object.entries(a.ambiguity_policies ?? {}).map(([p, v]) => [`ambiguity_policies.${p}`, v] as [string, string]),
    ];
    for (const [field, policy] of policies) {
      if (policy === 'resend_same_key' && a.capabilities?.dedupes_by_key !== true) {
        throw new ConfigError(
          `provider_accounts[${i}].${field} resend_same_key needs a provider that deduplicates by key (capabilities.dedupes_by_key: true); otherwise a resend may send twice`,
          `provider_accounts[${i}].${field}`,
        );
      }
    }
    // A worker calls only while its lease covers the whole call plus a margin (src/domain/lease.ts):
    // a shorter lease could never send, and would let the rescuer declare `unknown` mid-call.
    if (!leaseCoversCall(cfg.worker.lease_ms, a.timeout_ms)) {
      throw new ConfigError(
        `worker.lease_ms (${cfg.worker.lease_ms}) cannot cover a call to provider account "${a.id}": provider_accounts[${i}].timeout_ms (${a.timeout_ms}) + the lease margin (${leaseMarginMs(cfg.worker.lease_ms)} ms: 1 s or 10 % of the lease, whichever is more) must be less than lease_ms, or nothing could ever be sent; set lease_ms to at least ${shortestLeaseFor(a.timeout_ms)} or lower timeout_ms`,
        'worker.lease_ms',
      );
    }
  });
}
