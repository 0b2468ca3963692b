/**
 * Herald's configuration: a JSON or YAML file validated against the published schema
 * (src/config/herald-config.schema.json), then defaults, then command-line overrides.
 * A bad file fails with a message naming the field.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import ipaddr from 'ipaddr.js';
import { laneConfigErrors, otpSmsFormatError, leaseCoversCall, leaseMarginMs, shortestLeaseFor, type Channel } from '../domain/index.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import { PROVIDER_KINDS, providerKind } from '../providers/registry.js';
import { checkAlerts, resolveAlerts, type AlertsConfig, type RawAlertsConfig } from './alerts-config.js';
import {
  checkEncryption,
  resolveEncryption,
  resolveRetention,
  type EncryptionConfig,
  type RawEncryptionConfig,
  type RawRetentionConfig,
  type RetentionConfig,
} from './retention-config.js';
import { resolveLimits, type LimitsConfig, type RawLimitsConfig } from './limits-config.js';

const here = dirname(fileURLToPath(import.meta.url));
export const CONFIG_SCHEMA_PATH = join(here, 'herald-config.schema.json');

export interface WorkerConfig {
  batch_size: number;
  loops_per_account: number;
  lease_ms: number;
  poll_interval_ms: number;
  sweep_interval_ms: number;
  /**
   * The code fast path (docs/campaign-planning.md, "The code fast path"): an API process sends a one-time code it has just
   * committed itself, claimed, leased and fenced like a worker's claim, when the auth lane has a
   * permit now. Default true; the process then holds provider adapters (`herald start`, `herald api`).
   */
  otp_fast_path: boolean;
}

export interface HeraldConfig {
  host: string;
  port: number;
  /**
   * The base URL recipients and providers reach Herald at (no trailing slash), for links Herald
   * puts in messages, e.g. one-click unsubscribe. Default http://<host>:<port>.
   */
  public_url: string;
  data_dir: string;
  database: { synchronous: 'FULL' | 'NORMAL' };
  sandbox: { enabled: boolean; port: number; api_key?: string };
  worker: WorkerConfig;
  provider_accounts: ProviderAccountConfig[];
  webhooks: WebhooksConfig;
  devices: DevicesConfig;
  /** Serve the API over HTTPS with this certificate and key (PEM files, reloaded when they change); absent: plain HTTP. */
  tls: TlsConfig | null;
  metrics: MetricsConfig;
  /** Operator alerts (alerts-config.ts); off while no target is configured. */
  alerts: AlertsConfig;
  /** Message content encrypted at rest, and how long it and destinations are kept (retention-config.ts). */
  encryption: EncryptionConfig;
  retention: RetentionConfig;
  dashboard: DashboardConfig;
  /** The limits on the way in: per-key request quota, velocity per purpose, SMS countries (limits-config.ts). */
  limits: LimitsConfig;
  /** Limits of the API's HTTP server against slow and greedy clients (docs/security.md). */
  http: HttpConfig;
}

/**
 * The API server's connection limits (node:http's own, set on Herald's server): a client that
 * sends its headers or its body too slowly (slowloris) is answered 408 and disconnected, an idle
 * keep-alive connection is closed, and a connection is recycled after so many requests.
 */
export interface HttpConfig {
  /** All request headers must arrive within this many seconds of the connection's first byte. Default 10. */
  headers_timeout_s: number;
  /** The whole request, body included, within this many seconds (a 200 MiB audience upload needs ~1.7 MB/s). Default 120. */
  request_timeout_s: number;
  /** An idle keep-alive connection is closed after this many seconds (above a load balancer's 60 s idle timeout). Default 72. */
  keep_alive_timeout_s: number;
  /** A keep-alive connection is closed after this many requests (0: no limit). Default 1000. */
  max_requests_per_socket: number;
}

/** The web dashboard and its sessions (docs/dashboard.md). */
export interface DashboardConfig {
  enabled: boolean;
  session_ttl_s: number;
  session_idle_s: number;
}

/** GET /metrics: open unless a bearer token is configured, literally or by environment variable (metricsToken resolves it). */
export interface MetricsConfig {
  token: string | null;
  token_env: string | null;
  /** An accepted delivery whose downstream status has not moved past `accepted` for this long counts in herald_accepted_without_progress. Default 1800. */
  accepted_progress_after_s: number;
}

/** Herald's own HTTPS: files, so a renewal replaces them in place (src/runtime/tls.ts). */
export interface TlsConfig {
  cert_file: string;
  key_file: string;
}

/** The device API for Android gateway phones (accounts of kind android_gateway). */
export interface DevicesConfig {
  /** Where the SMSGate app's API URL points, below Herald's URL. Default /mobile/v1 (the reference server's). */
  base_path: string;
  /** A device silent for longer than this is away; its next call is a return, and its heartbeat sweep runs. Default 120. */
  away_after_seconds: number;
  /** How far back a heartbeat sweep looks for failed and unknown messages. Default 24. */
  sweep_lookback_hours: number;
  /** Keep-alive comments on each SSE connection. Default 15 (the reference server's). */
  keepalive_seconds: number;
}

/** Customer webhooks (outbound). */
export interface WebhooksConfig {
  /** CIDR networks webhook URLs may reach although they are not public (e.g. 10.0.0.0/8 for an internal receiver). */
  allow_networks: string[];
  timeout_ms: number;
  concurrency_per_endpoint: number;
}

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

export const DEFAULT_SANDBOX_PORT = 8025;
/** The automatic sandbox accounts' limit: far above what one machine sends (~3,000/s measured), so only a quota set on the sandbox limits it. */
export const SANDBOX_RATE_PER_SECOND = 100_000;
export const SANDBOX_BURST = 10_000;
const DEFAULT_ACCOUNT = { rate_per_second: 100, burst: 100, ambiguity_policy: 'wait_for_evidence', timeout_ms: 10_000 } as const;

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
  const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as {
    definitions: { provider_account: { allOf?: unknown[] } & Record<string, unknown> };
  } & Record<string, unknown>;
  schema.definitions.provider_account.allOf = [...PROVIDER_KINDS.values()].map((k) => ({
    if: { properties: { kind: { const: k.kind } }, required: ['kind'] },
    then: { properties: { settings: k.settingsSchema ?? false }, ...(k.settingsSchema === null ? {} : { required: ['settings'] }) },
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

/** A configuration file as the schema admits it: `validate` has checked every field before this type is trusted. */
interface RawConfig {
  host?: string;
  port?: number;
  public_url?: string;
  data_dir?: string;
  database?: { synchronous?: 'FULL' | 'NORMAL' };
  sandbox?: { enabled?: boolean; port?: number; api_key?: string };
  worker?: Partial<WorkerConfig>;
  provider_accounts?: Array<Partial<ProviderAccountConfig> & { kind: string }>;
  webhooks?: Partial<WebhooksConfig>;
  devices?: Partial<DevicesConfig>;
  tls?: TlsConfig;
  metrics?: { token?: string; token_env?: string; accepted_progress_after_s?: number };
  alerts?: RawAlertsConfig;
  dashboard?: Partial<DashboardConfig>;
  http?: Partial<HttpConfig>;
  encryption?: RawEncryptionConfig;
  retention?: RawRetentionConfig;
  limits?: RawLimitsConfig;
}

/** Builds the effective configuration from a validated raw object (or none) and overrides. */
export function resolveConfig(raw: unknown, overrides: ConfigOverrides = {}): HeraldConfig {
  if (raw !== undefined) validate(raw);
  const r = (raw ?? {}) as RawConfig;
  // Each kind's defaults (from its provider's own guidance) under what the account says.
  const accounts = (r.provider_accounts ?? []).map((a) => {
    const kind = providerKind(a.kind).defaults;
    const capabilities = { ...kind.capabilities, ...a.capabilities };
    return { ...DEFAULT_ACCOUNT, ...kind, ...a, capabilities } as ProviderAccountConfig;
  });
  const sandboxEnabled = overrides.sandbox ?? r.sandbox?.enabled ?? accounts.length === 0;
  const sandboxPort = overrides.sandboxPort ?? r.sandbox?.port ?? DEFAULT_SANDBOX_PORT;
  const cfg: HeraldConfig = {
    host: overrides.host ?? r.host ?? '127.0.0.1',
    port: overrides.port ?? r.port ?? 8080,
    public_url: '',
    data_dir: resolve(overrides.dataDir ?? r.data_dir ?? './herald-data'),
    database: { synchronous: r.database?.synchronous ?? 'FULL' },
    sandbox: { enabled: sandboxEnabled, port: sandboxPort, ...(r.sandbox?.api_key ? { api_key: r.sandbox.api_key } : {}) },
    worker: {
      batch_size: r.worker?.batch_size ?? 64,
      loops_per_account: r.worker?.loops_per_account ?? 2,
      lease_ms: r.worker?.lease_ms ?? 30_000,
      poll_interval_ms: r.worker?.poll_interval_ms ?? 1_000,
      sweep_interval_ms: r.worker?.sweep_interval_ms ?? 1_000,
      otp_fast_path: r.worker?.otp_fast_path ?? true,
    },
    provider_accounts: accounts,
    tls: r.tls ? { cert_file: resolve(r.tls.cert_file), key_file: resolve(r.tls.key_file) } : null,
    webhooks: {
      allow_networks: r.webhooks?.allow_networks ?? [],
      timeout_ms: r.webhooks?.timeout_ms ?? 15_000,
      concurrency_per_endpoint: r.webhooks?.concurrency_per_endpoint ?? 8,
    },
    metrics: {
      token: r.metrics?.token ?? null,
      token_env: r.metrics?.token_env ?? null,
      accepted_progress_after_s: r.metrics?.accepted_progress_after_s ?? 1800,
    },
    alerts: resolveAlerts(r.alerts),
    dashboard: {
      enabled: r.dashboard?.enabled ?? true,
      session_ttl_s: r.dashboard?.session_ttl_s ?? 28_800,
      session_idle_s: r.dashboard?.session_idle_s ?? 3_600,
    },
    http: {
      headers_timeout_s: r.http?.headers_timeout_s ?? 10,
      request_timeout_s: r.http?.request_timeout_s ?? 120,
      keep_alive_timeout_s: r.http?.keep_alive_timeout_s ?? 72,
      max_requests_per_socket: r.http?.max_requests_per_socket ?? 1000,
    },
    encryption: resolveEncryption(r.encryption, (p) => resolve(p)),
    retention: resolveRetention(r.retention),
    limits: resolveLimits(r.limits),
    devices: {
      base_path: (r.devices?.base_path ?? '/mobile/v1').replace(/\/+$/, ''),
      away_after_seconds: r.devices?.away_after_seconds ?? 120,
      sweep_lookback_hours: r.devices?.sweep_lookback_hours ?? 24,
      keepalive_seconds: r.devices?.keepalive_seconds ?? 15,
    },
  };
  cfg.public_url = publicUrl(r.public_url, cfg.host, cfg.port, cfg.tls !== null);
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
  return (['email', 'sms', 'push'] as Channel[]).map((channel) => ({
    ...DEFAULT_ACCOUNT,
    // The sandbox has no quota unless one is set on it: do not let a made-up one slow it down.
    rate_per_second: SANDBOX_RATE_PER_SECOND,
    burst: SANDBOX_BURST,
    id: `sandbox-${channel}`,
    kind: 'sandbox' as const,
    channel,
    base_url: sandboxUrl,
    ...(apiKey ? { api_key: apiKey } : {}),
  }));
}

/** The bearer token GET /metrics requires, or null when the endpoint is open. */
export function metricsToken(cfg: HeraldConfig, env: NodeJS.ProcessEnv = process.env): string | null {
  if (cfg.metrics.token !== null) return cfg.metrics.token;
  if (cfg.metrics.token_env !== null) return env[cfg.metrics.token_env] || null;
  return null;
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
  if (alertProblem) throw new ConfigError(`${alertProblem.field} ${alertProblem.message}`, alertProblem.field);
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
  cfg.webhooks.allow_networks.forEach((n, i) => {
    if (!ipaddr.isValidCIDR(n))
      throw new ConfigError(`webhooks.allow_networks[${i}] "${n}" is not a network in CIDR form (e.g. 127.0.0.0/8, ::1/128)`, `webhooks.allow_networks[${i}]`);
  });
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
