/**
 * Configuration: defaults, JSON and YAML files, and a ConfigError naming the field for every
 * kind of mistake; plus the published schema is a valid, documented draft-07 schema.
 */
import { Ajv } from 'ajv';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA_PATH, ConfigError, installSchedulingPolicy, readConfigFile, resolveConfig } from '../../src/config/config.js';
import { publishedConfigSchema } from '../../src/config/config-schema.js';
import { PROVIDER_KINDS } from '../../src/providers/registry.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'herald-config-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const account = (over: Record<string, unknown> = {}) => ({
  id: 'sms-main',
  kind: 'sandbox',
  channel: 'sms',
  base_url: 'http://127.0.0.1:8025',
  ...over,
});

/** The ConfigError `fn` throws (fails the test when it throws nothing or something else). */
function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError, nothing was thrown');
}

describe('resolveConfig', () => {
  it('fills every default when there is no file', () => {
    const cfg = resolveConfig(undefined);
    expect(cfg).toEqual({
      // Its defaults are spelled out in alerts-config.test.ts.
      alerts: expect.objectContaining({ email: null, sms: null, webhooks: [] }),
      host: '127.0.0.1',
      port: 8080,
      public_url: 'http://127.0.0.1:8080',
      data_dir: resolve('./herald-data'),
      database: { synchronous: 'FULL' },
      sandbox: { enabled: true, port: 8025 },
      worker: { batch_size: 64, loops_per_account: 2, lease_ms: 30_000, poll_interval_ms: 1_000, sweep_interval_ms: 1_000, otp_fast_path: true },
      provider_accounts: [],
      webhooks: { allow_networks: [], timeout_ms: 15_000, concurrency_per_endpoint: 8 },
      devices: { base_path: '/mobile/v1', away_after_seconds: 120, sweep_lookback_hours: 24, keepalive_seconds: 15 },
      tls: null,
      metrics: { token: null, token_env: null, accepted_progress_after_s: 1800 },
      dashboard: { enabled: true, session_ttl_s: 28_800, session_idle_s: 3_600 },
      http: { headers_timeout_s: 10, request_timeout_s: 120, keep_alive_timeout_s: 72, max_requests_per_socket: 1000 },
      // docs/abuse-limits.md: 600 requests a minute per key; codes 5 per destination per 10 min, 10 per recipient per hour; SMS anywhere but premium rate.
      limits: {
        requests: { limit: 600, windowS: 60 },
        requestOverrides: {},
        velocity: {
          otp: [
            { subject: 'destination', max: 5, windowMs: 600_000 },
            { subject: 'recipient', max: 10, windowMs: 3_600_000 },
          ],
        },
        smsCountries: null,
        smsRefusedNumberTypes: ['PREMIUM_RATE'],
      },
      // docs/scheduling.md: send_at up to 30 days ahead.
      // quiet_hours and frequency_caps: null = the built-in defaults (installSchedulingPolicy).
      scheduling: { send_at_horizon_days: 30, time_zone: 'UTC', quiet_hours: null, frequency_caps: null },
      // docs/routing.md: no routes (each channel's first account); Notify's demotion figures.
      routes: {
        routes: [],
        demotion: {
          slowRatio: 0.15,
          windowMs: 900_000,
          slowAfterMs: 300_000,
          minAccepted: 10,
          pausedLongerThanMs: 600_000,
          coolDownMs: 300_000,
          budget: { minCalls: 20, degradedAbove: 0.5, spreadFactor: 2, maxSpreadMs: 300_000 },
        },
        demotionOverrides: [],
        evaluateEveryMs: 60_000,
        failoverAfterUnknown: true,
      },
      // docs/retention.md: no key (SQLite generates one, PostgreSQL refuses), 30 days of content, 90 of destinations.
      encryption: { primary: null, previous: [] },
      retention: {
        content_days: { otp: 30, transactional: 30, conversational: 30, marketing: 30, alert: 30 },
        destination_days: 90,
        otp_erase_after_settled: true,
        batch_size: 500,
        interval_ms: 60_000,
      },
    });
  });

  it("scheduling: the issue's windows and caps by default, changed or turned off per purpose, bad values refused naming the field", () => {
    const built = installSchedulingPolicy(resolveConfig(undefined));
    expect(built.timeZone).toBe('UTC');
    expect(built.quietHours.marketing).toEqual({ startMinute: 21 * 60, endMinute: 8 * 60 });
    expect(built.frequencyCaps.marketing?.caps.map((c) => c.max)).toEqual([2, 5]);
    const set = installSchedulingPolicy(
      resolveConfig({
        scheduling: {
          time_zone: 'Europe/Berlin',
          quiet_hours: { marketing: { start: '20:00', end: '09:00' }, conversational: null },
          frequency_caps: { marketing: null },
        },
      }),
    );
    expect(set).toMatchObject({
      timeZone: 'Europe/Berlin',
      quietHours: { marketing: { startMinute: 20 * 60, endMinute: 9 * 60 }, conversational: null },
      frequencyCaps: { marketing: null },
    });
    expect(() => resolveConfig({ scheduling: { time_zone: 'Mars/Olympus' } })).toThrow(/scheduling\.time_zone/);
    expect(() => resolveConfig({ scheduling: { quiet_hours: { marketing: { start: '25:00', end: '08:00' } } } })).toThrow(
      /scheduling\.quiet_hours\.marketing\.start/,
    );
    expect(() => resolveConfig({ scheduling: { quiet_hours: { otp: { start: '21:00', end: '08:00' } } } })).toThrow(/scheduling\.quiet_hours\.otp/);
    // A cap on codes would never apply (the send-time check reads no policy for a code): refused.
    expect(() => resolveConfig({ scheduling: { frequency_caps: { otp: { caps: [{ max: 3, period_seconds: 3600 }], action: 'suppress' } } } })).toThrow(
      /scheduling\.frequency_caps\.otp codes are never held or capped/,
    );
  });

  it('reads the dashboard section, and refuses an idle timeout longer than the lifetime', () => {
    expect(resolveConfig({ dashboard: { enabled: false, session_ttl_s: 7200 } }).dashboard).toEqual({
      enabled: false,
      session_ttl_s: 7200,
      session_idle_s: 3600,
    });
    expect(() => resolveConfig({ dashboard: { session_ttl_s: 1800 } })).toThrow(
      /dashboard\.session_idle_s \(3600\) is longer than dashboard\.session_ttl_s \(1800\)/,
    );
  });

  it('public_url: the configured http(s) URL without its trailing slash, else http://<host>:<port>', () => {
    expect(resolveConfig({ public_url: 'https://herald.example.com/' }).public_url).toBe('https://herald.example.com');
    expect(resolveConfig({ public_url: 'https://example.com/herald//' }).public_url).toBe('https://example.com/herald');
    expect(resolveConfig({ host: '::1', port: 9000 }).public_url).toBe('http://[::1]:9000');
    for (const bad of ['herald.example.com', 'ftp://example.com', 'https://u:p@example.com', 'https://example.com/?a=1', 'https://example.com/#x']) {
      expect(() => resolveConfig({ public_url: bad }), bad).toThrow(/public_url/);
    }
  });

  it('reads the webhooks section: networks the operator opens, timeout and concurrency', () => {
    const cfg = resolveConfig({ webhooks: { allow_networks: ['127.0.0.0/8', '::1/128'], timeout_ms: 20_000, concurrency_per_endpoint: 2 } });
    expect(cfg.webhooks).toEqual({ allow_networks: ['127.0.0.0/8', '::1/128'], timeout_ms: 20_000, concurrency_per_endpoint: 2 });
  });

  it('defaults each account from its kind and turns the sandbox off once accounts are configured', () => {
    const cfg = resolveConfig({ provider_accounts: [account()] });
    expect(cfg.sandbox.enabled).toBe(false);
    expect(cfg.provider_accounts).toEqual([
      {
        ...account(),
        rate_per_second: 100,
        burst: 100,
        ambiguity_policy: 'wait_for_evidence',
        timeout_ms: 10_000,
        capabilities: { lookup: true, dedupes_by_key: false },
      },
    ]);
  });

  it('the published schema names exactly the registered provider kinds', () => {
    const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8'));
    expect([...schema.definitions.provider_account.properties.kind.enum].sort()).toEqual([...PROVIDER_KINDS.keys()].sort());
  });

  it("keeps an account's own capabilities over its kind's defaults, field by field", () => {
    const cfg = resolveConfig({ provider_accounts: [account({ capabilities: { lookup: false } })] });
    expect(cfg.provider_accounts[0]!.capabilities).toEqual({ lookup: false, dedupes_by_key: false });
  });

  it("refuses settings on a kind that has none, and a kind's rule the schema cannot express, naming the field", () => {
    expect(() => resolveConfig({ provider_accounts: [account({ settings: { host: 'x' } })] })).toThrow(
      /^invalid configuration: provider_accounts\[0\]\.settings is not a setting of this account's kind$/,
    );
    const { base_url: _omitted, ...withoutUrl } = account();
    const err = configError(() => resolveConfig({ provider_accounts: [withoutUrl] }));
    expect(err.field).toBe('provider_accounts[0].base_url');
    expect(err.message).toContain('is required for a sandbox account');
  });

  it('lets overrides win over the file', () => {
    const cfg = resolveConfig(
      { host: '0.0.0.0', port: 9000, data_dir: '/tmp/a', sandbox: { enabled: true, port: 9001 } },
      { host: '::1', port: 0, dataDir: dir, sandboxPort: 0, sandbox: false },
    );
    expect(cfg).toMatchObject({ host: '::1', port: 0, data_dir: dir, sandbox: { enabled: false, port: 0 } });
  });
});

describe('config files', () => {
  const body = {
    port: 9090,
    data_dir: '/var/lib/herald',
    sandbox: { enabled: false },
    worker: { batch_size: 10, lease_ms: 20_000 },
    provider_accounts: [account({ timeout_ms: 5_000, ambiguity_policy: 'user_resend' })],
  };

  it('loads JSON', () => {
    const file = join(dir, 'herald.json');
    writeFileSync(file, JSON.stringify(body, null, 2));
    const cfg = resolveConfig(readConfigFile(file));
    expect(cfg).toMatchObject({ port: 9090, data_dir: '/var/lib/herald', sandbox: { enabled: false }, worker: { batch_size: 10, lease_ms: 20_000 } });
    expect(cfg.provider_accounts[0]).toMatchObject({ id: 'sms-main', timeout_ms: 5_000, ambiguity_policy: 'user_resend', burst: 100 });
  });

  it("keeps a provider account's rollout stage; without one the account is at full (the worker and the API read it so)", () => {
    const cfg = resolveConfig({
      provider_accounts: [account({ rollout: 'shadow' }), account({ id: 'sms-b', rollout: 'definite_retries' }), account({ id: 'sms-c' })],
    });
    expect(cfg.provider_accounts.map((a) => a.rollout ?? 'full')).toEqual(['shadow', 'definite_retries', 'full']);
  });

  it.each(['herald.yaml', 'herald.yml'])('loads YAML (%s) to the same configuration as JSON', (name) => {
    const yamlFile = join(dir, name);
    writeFileSync(
      yamlFile,
      [
        '# Herald configuration',
        'port: 9090',
        'data_dir: /var/lib/herald',
        'sandbox:',
        '  enabled: false',
        'worker:',
        '  batch_size: 10',
        '  lease_ms: 20000',
        'provider_accounts:',
        '  - id: sms-main',
        '    kind: sandbox',
        '    channel: sms',
        '    base_url: http://127.0.0.1:8025',
        '    timeout_ms: 5000',
        '    ambiguity_policy: user_resend',
        '',
      ].join('\n'),
    );
    const jsonFile = join(dir, 'herald.json');
    writeFileSync(jsonFile, JSON.stringify(body));
    expect(resolveConfig(readConfigFile(yamlFile))).toEqual(resolveConfig(readConfigFile(jsonFile)));
  });

  it('says a file is not valid JSON, naming the file', () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{ "port": 8080, }');
    const err = configError(() => readConfigFile(file));
    expect(err.message).toContain(file);
    expect(err.message).toMatch(/is not valid JSON/);
    expect(err.field).toBeNull();
    expect(err.code).toBe('config_invalid');
  });

  it('says a file is not valid YAML, naming the file', () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'port: 8080\nworker:\n  batch_size: [1, 2\n');
    const err = configError(() => readConfigFile(file));
    expect(err.message).toContain(file);
    expect(err.message).toMatch(/is not valid YAML/);
    expect(err.field).toBeNull();
  });

  it('says a missing file cannot be read', () => {
    const file = join(dir, 'absent.json');
    const err = configError(() => readConfigFile(file));
    expect(err.message).toMatch(/cannot read config file/);
    expect(err.message).toContain(file);
  });

  it('validates what it reads: a bad field in a file is named', () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'prot: 8080\n');
    const err = configError(() => readConfigFile(file));
    expect(err.field).toBe('prot');
  });
});

describe('a bad field yields a ConfigError naming it', () => {
  const cases: Array<{ name: string; raw: unknown; field: string; message: RegExp }> = [
    { name: 'unknown top-level key', raw: { prot: 8080 }, field: 'prot', message: /prot is not a known setting/ },
    { name: 'unknown nested key', raw: { worker: { lease: 1 } }, field: 'worker.lease', message: /worker\.lease is not a known setting/ },
    {
      name: 'wrong enum',
      raw: { provider_accounts: [account({ channel: 'fax' })] },
      field: 'provider_accounts[0].channel',
      message: /provider_accounts\[0\]\.channel must be one of email, sms, push/,
    },
    {
      name: 'missing required field',
      raw: { provider_accounts: [{ id: 'sms-main', kind: 'sandbox', channel: 'sms' }] },
      field: 'provider_accounts[0].base_url',
      message: /provider_accounts\[0\]\.base_url is required/,
    },
    { name: 'negative port', raw: { port: -1 }, field: 'port', message: /port must be >= 0/ },
    { name: 'port above 65535', raw: { port: 70_000 }, field: 'port', message: /port must be <= 65535/ },
    { name: 'port of the wrong type', raw: { port: '8080' }, field: 'port', message: /port must be integer/ },
    {
      name: 'second account bad',
      raw: { provider_accounts: [account(), account({ id: 'sms-2', base_url: 'ftp://x' })] },
      field: 'provider_accounts[1].base_url',
      message: /provider_accounts\[1\]\.base_url must match/,
    },
    {
      name: 'lease_ms not covering timeout_ms + 10 % of the lease',
      raw: { worker: { lease_ms: 11_111 }, provider_accounts: [account({ timeout_ms: 10_000 })] },
      field: 'worker.lease_ms',
      message:
        /worker\.lease_ms \(11111\) cannot cover a call to provider account "sms-main": provider_accounts\[0\]\.timeout_ms \(10000\) \+ the lease margin \(1111 ms.*nothing could ever be sent; set lease_ms to at least 11112/,
    },
    {
      name: 'lease_ms not covering timeout_ms + the 1 s floor of the margin',
      raw: { worker: { lease_ms: 3_000 }, provider_accounts: [account({ timeout_ms: 2_000 })] },
      field: 'worker.lease_ms',
      message: /worker\.lease_ms \(3000\) cannot cover .*the lease margin \(1000 ms.*at least 3001/,
    },
    {
      name: 'lease_ms not covering the second account, named',
      raw: { worker: { lease_ms: 20_000 }, provider_accounts: [account(), account({ id: 'sms-slow', timeout_ms: 19_000 })] },
      field: 'worker.lease_ms',
      message: /provider account "sms-slow": provider_accounts\[1\]\.timeout_ms \(19000\)/,
    },
    {
      name: 'lease_ms shorter than the default timeout_ms',
      raw: { worker: { lease_ms: 5_000 }, provider_accounts: [account()] },
      field: 'worker.lease_ms',
      message: /worker\.lease_ms \(5000\)/,
    },
    {
      name: 'duplicate account ids',
      raw: { provider_accounts: [account(), account({ channel: 'email' })] },
      field: 'provider_accounts[1].id',
      message: /provider_accounts\[1\]\.id "sms-main" is used twice/,
    },
    {
      name: 'resend_same_key without a deduplicating provider',
      raw: { provider_accounts: [account({ ambiguity_policy: 'resend_same_key' })] },
      field: 'provider_accounts[0].ambiguity_policy',
      message: /resend_same_key needs a provider that deduplicates by key/,
    },
    {
      name: 'resend_same_key for one purpose without a deduplicating provider',
      raw: { provider_accounts: [account({ ambiguity_policies: { marketing: 'resend_same_key' } })] },
      field: 'provider_accounts[0].ambiguity_policies.marketing',
      message: /ambiguity_policies\.marketing resend_same_key needs a provider that deduplicates by key/,
    },
    {
      name: 'a rollout stage that does not exist',
      raw: { provider_accounts: [account({ rollout: 'canary' })] },
      field: 'provider_accounts[0].rollout',
      message: /must be one of shadow, definite_retries, full/,
    },
    {
      name: 'an ambiguity policy for a purpose that does not exist',
      raw: { provider_accounts: [account({ ambiguity_policies: { newsletter: 'user_resend' } })] },
      field: 'provider_accounts[0].ambiguity_policies.newsletter',
      message: /is not a known setting/,
    },
    { name: 'not an object', raw: [1, 2], field: '(root)', message: /\(root\) must be object/ },
    {
      name: 'webhook network not in CIDR form',
      raw: { webhooks: { allow_networks: ['10.0.0.0/8', 'localhost'] } },
      field: 'webhooks.allow_networks[1]',
      message: /webhooks\.allow_networks\[1\] "localhost" is not a network in CIDR form/,
    },
    {
      name: 'webhook timeout too long',
      raw: { webhooks: { timeout_ms: 120_000 } },
      field: 'webhooks.timeout_ms',
      message: /webhooks\.timeout_ms must be <= 60000/,
    },
    { name: 'unknown webhooks key', raw: { webhooks: { retries: 3 } }, field: 'webhooks.retries', message: /webhooks\.retries is not a known setting/ },
  ];

  it.each(cases)('$name', ({ raw, field, message }) => {
    const err = configError(() => resolveConfig(raw));
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
    expect(err.message).toContain(field === '(root)' ? '(root)' : field);
  });

  it('accepts the shortest lease that covers the call (the README: lease_ms > timeout_ms + max(1 s, 10 % of lease_ms))', () => {
    expect(() => resolveConfig({ worker: { lease_ms: 11_112 }, provider_accounts: [account({ timeout_ms: 10_000 })] })).not.toThrow();
    expect(() => resolveConfig({ worker: { lease_ms: 3_001 }, provider_accounts: [account({ timeout_ms: 2_000 })] })).not.toThrow();
  });

  describe('api_key_env', () => {
    const name = `HERALD_CONFIG_TEST_KEY_${process.pid}`;
    afterEach(() => {
      delete process.env[name];
    });

    it('naming an unset variable is an error naming the field and the variable', () => {
      delete process.env[name];
      const err = configError(() => resolveConfig({ provider_accounts: [account({ api_key_env: name })] }));
      expect(err.field).toBe('provider_accounts[0].api_key_env');
      expect(err.message).toContain(name);
      expect(err.message).toMatch(/not set/);
    });

    it('naming a set variable is fine, and its value never enters the message of a later error', () => {
      process.env[name] = 'secret-value-xyz';
      expect(() => resolveConfig({ provider_accounts: [account({ api_key_env: name })] })).not.toThrow();
      const err = configError(() => resolveConfig({ port: -1, provider_accounts: [account({ api_key_env: name })] }));
      expect(err.message).not.toContain('secret-value-xyz');
    });
  });
});

describe('the published schema', () => {
  const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as Record<string, any>;

  it('is written from its one source, src/config/config-schema.ts (run `npm run config:schema` after changing a setting)', () => {
    expect(schema).toEqual(publishedConfigSchema());
  });

  it('is a valid JSON Schema draft-07 that compiles in strict mode', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    const ajv = new Ajv({ strict: true });
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
    expect(() => ajv.compile(schema)).not.toThrow();
  });

  it('describes every property (containers and $refs excepted)', () => {
    const undocumented: string[] = [];
    const visit = (node: Record<string, any>, path: string) => {
      for (const [key, prop] of Object.entries<Record<string, any>>(node.properties ?? {})) {
        const here = path ? `${path}.${key}` : key;
        const container = prop.$ref !== undefined || (prop.type === 'object' && prop.properties) || (prop.type === 'array' && prop.items?.$ref);
        if (!container && typeof prop.description !== 'string') undocumented.push(here);
        if (prop.type === 'object') visit(prop, here);
      }
    };
    visit(schema, '');
    for (const [name, def] of Object.entries<Record<string, any>>(schema.definitions ?? {})) visit(def, `definitions.${name}`);
    expect(undocumented).toEqual([]);
    // And a description says something.
    const short: string[] = [];
    JSON.stringify(schema, (k, v) => {
      if (k === 'description' && typeof v === 'string' && v.length < 10) short.push(v);
      return v;
    });
    expect(short).toEqual([]);
  });

  it("accepts the README's minimal configuration of every real provider, each account of its kind", () => {
    const readme = readFileSync(resolve(CONFIG_SCHEMA_PATH, '../../../README.md'), 'utf8');
    const block = /## Real providers[\s\S]*?```jsonc\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const vars = [
      'SMTP_USER',
      'SMTP_PASSWORD',
      'RESEND_API_KEY',
      'RESEND_WEBHOOK_SECRET',
      'POSTMARK_SERVER_TOKEN',
      'POSTMARK_WEBHOOK_PASSWORD',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'TWILIO_AUTH_TOKEN',
      'TELNYX_API_KEY',
    ];
    const saved = Object.fromEntries(vars.map((v) => [v, process.env[v]]));
    for (const v of vars) process.env[v] = v === 'RESEND_WEBHOOK_SECRET' ? 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' : `${v.toLowerCase()}-value`;
    try {
      const raw = JSON.parse(block!.replace(/\s\/\/ .*$/gm, ''));
      const cfg = resolveConfig(raw);
      const kinds = [...PROVIDER_KINDS.keys()].filter((k) => k !== 'sandbox');
      for (const kind of cfg.provider_accounts.map((a) => a.kind)) expect(kinds).toContain(kind);
      // Every real kind with a page in docs/providers has its line in the README's example.
      expect(new Set(cfg.provider_accounts.map((a) => a.kind))).toEqual(
        new Set(kinds.filter((k) => ['smtp', 'resend', 'postmark', 'ses', 'twilio', 'telnyx'].includes(k))),
      );
    } finally {
      for (const v of vars) {
        if (saved[v] === undefined) delete process.env[v];
        else process.env[v] = saved[v];
      }
    }
  });

  it('accepts the README example', () => {
    const readme = readFileSync(resolve(CONFIG_SCHEMA_PATH, '../../../README.md'), 'utf8');
    const example = /## Configuration[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    process.env.SMS_MAIN_KEY = 'x';
    try {
      expect(() => resolveConfig(JSON.parse(example!))).not.toThrow();
    } finally {
      delete process.env.SMS_MAIN_KEY;
    }
  });
});

describe("each provider kind's settings schema", () => {
  const kinds = [...PROVIDER_KINDS.values()].filter((k) => k.settingsSchema !== null);
  const schemaOf = (k: (typeof kinds)[number]) => JSON.parse(JSON.stringify(k.settingsSchema)) as Record<string, any>;

  it('compiles in strict mode, refuses an unknown setting, and describes every setting', () => {
    const undocumented: string[] = [];
    for (const k of kinds) {
      const schema = schemaOf(k);
      expect(() => new Ajv({ strict: true }).compile(schema), k.kind).not.toThrow();
      expect(schema.additionalProperties, k.kind).toBe(false);
      const visit = (node: Record<string, any>, path: string) => {
        for (const [key, prop] of Object.entries<Record<string, any>>(node.properties ?? {})) {
          if (typeof prop.description !== 'string' || prop.description.length < 10) undocumented.push(`${path}.${key}`);
          if (prop.type === 'object') visit(prop, `${path}.${key}`);
        }
      };
      visit(schema, k.kind);
    }
    expect(undocumented).toEqual([]);
  });

  it('declares each default as a value its own setting accepts', () => {
    const wrong: string[] = [];
    for (const k of kinds) {
      const visit = (node: Record<string, any>, path: string) => {
        for (const [key, prop] of Object.entries<Record<string, any>>(node.properties ?? {})) {
          if ('default' in prop && !new Ajv({ strict: true }).validate(prop, prop.default)) wrong.push(`${path}.${key}`);
          if (prop.type === 'object') visit(prop, `${path}.${key}`);
        }
      };
      visit(schemaOf(k), k.kind);
    }
    expect(wrong).toEqual([]);
  });
});
