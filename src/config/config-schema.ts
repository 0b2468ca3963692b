/**
 * The configuration's shape, written once (src/schema/setting.ts): each section's settings, their
 * limits, descriptions and defaults. The validator checks a file against it, `settle` fills in
 * the defaults, the TypeScript types are derived from it, and the published
 * `herald-config.schema.json` is written from it (`npm run config:schema`; a test fails when the
 * file is stale). The sections with rules of their own live beside config.ts: alerts-config.ts,
 * limits-config.ts, retention-config.ts; a provider account in providers/account-schema.ts.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { PURPOSES } from '../domain/index.js';
import { providerAccountSchema } from '../providers/account-schema.js';
import { PROVIDER_KINDS } from '../providers/registry.js';
import { jsonSchemaOf, oneOf, section, withDefault } from '../schema/setting.js';
import { AlertsSection } from './alerts-config.js';
import { LimitsSection } from './limits-config.js';
import { allowNetworksSetting } from './network-allow-list.js';
import { EncryptionSection, RetentionSection } from './retention-config.js';
import { RoutesSection } from './routes-config.js';

const PORT = { minimum: 0, maximum: 65535 } as const;

export const DatabaseSection = section({
  synchronous: withDefault(oneOf(['FULL', 'NORMAL'], { description: 'SQLite durability. FULL fsyncs every commit.' }), 'FULL'),
});

export const SandboxSection = section({
  enabled: Type.Optional(Type.Boolean({ description: 'Start the embedded sandbox provider. Default: true when no provider_accounts are configured.' })),
  port: withDefault(Type.Integer({ ...PORT, description: 'Sandbox port.' }), 8025),
  api_key: Type.Optional(Type.String({ minLength: 1, description: 'Require this bearer key on sandbox sends.' })),
});

export const WorkerSection = section({
  batch_size: withDefault(Type.Integer({ minimum: 1, maximum: 1000, description: 'Deliveries claimed per transaction.' }), 64),
  loops_per_account: withDefault(Type.Integer({ minimum: 1, maximum: 64, description: 'Concurrent claim loops per provider account.' }), 2),
  lease_ms: withDefault(
    Type.Integer({
      minimum: 1000,
      description:
        "How long a claim owns a delivery; must exceed every account's timeout_ms plus a margin of 1 s or 10 % of the lease, whichever is more (a call starts only if its lease covers it).",
    }),
    30_000,
  ),
  poll_interval_ms: withDefault(Type.Integer({ minimum: 10, description: 'Longest idle wait between claim attempts.' }), 1_000),
  sweep_interval_ms: withDefault(Type.Integer({ minimum: 10, description: 'How often expired leases and expired pending deliveries are swept.' }), 1_000),
  otp_fast_path: withDefault(
    Type.Boolean({
      description:
        'An API process sends a one-time code (purpose otp) it has just committed itself, claimed, leased and fenced like a worker\'s claim, when the auth lane has a permit now (docs/campaign-planning.md, "The code fast path"); otherwise a worker takes it as usual. The API process then holds provider adapters.',
    }),
    true,
  ),
});

export const MetricsSection = section(
  {
    token: Type.Optional(Type.String({ minLength: 16, description: 'Literal bearer token scrapes must send. Prefer token_env.' })),
    token_env: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'Name of the environment variable holding the bearer token.' })),
    accepted_progress_after_s: withDefault(
      Type.Integer({
        minimum: 1,
        maximum: 604_800,
        description:
          "An accepted delivery whose downstream status (callbacks, a phone's report) has not moved past accepted for longer than this many seconds counts in herald_accepted_without_progress and GET /v1/stats.",
      }),
      1800,
    ),
  },
  {
    description:
      'GET /metrics, the Prometheus exposition (docs/operations.md, Metrics). Open by default; with a token set, a scrape must send Authorization: Bearer <token>.',
  },
);

export const DashboardSection = section(
  {
    enabled: withDefault(Type.Boolean({ description: 'Serve /dashboard and accept the session cookie on /v1.' }), true),
    session_ttl_s: withDefault(
      Type.Integer({ minimum: 300, maximum: 2_592_000, description: 'A session ends this long after sign-in (8 h by default).' }),
      28_800,
    ),
    session_idle_s: withDefault(Type.Integer({ minimum: 60, maximum: 2_592_000, description: 'A session unused this long ends (1 h by default).' }), 3_600),
  },
  { description: 'The web dashboard at /dashboard and its sign-in sessions (docs/dashboard.md).' },
);

/**
 * The API server's connection limits (node:http's own, set on Herald's server): a client that
 * sends its headers or its body too slowly (slowloris) is answered 408 and disconnected, an idle
 * keep-alive connection is closed, and a connection is recycled after so many requests.
 */
export const HttpSection = section(
  {
    headers_timeout_s: withDefault(Type.Integer({ minimum: 1, maximum: 300, description: 'All request headers within this many seconds.' }), 10),
    request_timeout_s: withDefault(
      Type.Integer({
        minimum: 1,
        maximum: 3600,
        description: 'The whole request, body included, within this many seconds (the default takes a 200 MiB audience upload at ~1.7 MB/s).',
      }),
      120,
    ),
    keep_alive_timeout_s: withDefault(
      Type.Integer({
        minimum: 1,
        maximum: 3600,
        description: 'Close an idle keep-alive connection after this many seconds (the default is above the usual 60 s of a load balancer).',
      }),
      72,
    ),
    max_requests_per_socket: withDefault(
      Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Close a keep-alive connection after this many requests; 0 is no limit.' }),
      1000,
    ),
  },
  {
    description:
      "The API server's limits against slow and greedy clients (docs/security.md): slow headers or bodies (slowloris) are answered 408 and disconnected.",
  },
);

/** Herald's own HTTPS: files, so a renewal replaces them in place (src/runtime/tls.ts). */
export const TlsSection = section(
  {
    cert_file: Type.String({ minLength: 1, description: 'PEM certificate chain (leaf first).' }),
    key_file: Type.String({ minLength: 1, description: 'PEM private key of the certificate.' }),
  },
  {
    description:
      'Serve the API over HTTPS (the SMSGate app requires HTTPS to anything but 127.0.0.1). The files are watched: a renewed certificate is taken up without a restart.',
  },
);

export const WebhooksSection = section({
  allow_networks: allowNetworksSetting(
    'CIDR networks customer webhook URLs may reach although they are not public, e.g. ["10.0.0.0/8"]. Default none: loopback, private, link-local, CGNAT, ULA and other non-public addresses are refused at registration and at connect time.',
  ),
  timeout_ms: withDefault(Type.Integer({ minimum: 1000, maximum: 60_000, description: 'Deadline of one webhook request, response included.' }), 15_000),
  concurrency_per_endpoint: withDefault(
    Type.Integer({
      minimum: 1,
      maximum: 64,
      description: "Requests in flight per endpoint (different notifications; one notification's events go one at a time).",
    }),
    8,
  ),
});

export const DevicesSection = section(
  {
    base_path: withDefault(
      Type.String({
        pattern: '^(/[A-Za-z0-9._~-]+)+/?$',
        description: "Path of the device API below Herald's URL; the SMSGate app's API URL is <public URL><base_path>. Must not start with /v1.",
      }),
      '/mobile/v1',
    ),
    away_after_seconds: withDefault(
      Type.Integer({
        minimum: 30,
        maximum: 86_400,
        description: 'A device silent for longer than this is away; its next call is a return and starts its heartbeat sweep.',
      }),
      120,
    ),
    sweep_lookback_hours: withDefault(
      Type.Integer({ minimum: 1, maximum: 720, description: 'How far back a heartbeat sweep looks for failed and unknown messages of the device.' }),
      24,
    ),
    keepalive_seconds: withDefault(
      Type.Integer({
        minimum: 1,
        maximum: 300,
        description:
          "Interval of the keep-alive comments on each SSE connection (each also counts as the device being seen; the default is the reference server's).",
      }),
      15,
    ),
  },
  { description: 'The device API for Android gateway phones (provider accounts of kind android_gateway, docs/phone-gateway.md).' },
);

const QUIET_WINDOW = Type.Object(
  { start: Type.String({ description: '24-hour time, e.g. 21:00' }), end: Type.String({ description: '24-hour time, e.g. 08:00' }) },
  { additionalProperties: false },
);
const PURPOSE_CAPS = Type.Object(
  {
    caps: Type.Array(
      Type.Object({ max: Type.Integer({ minimum: 1 }), period_seconds: Type.Integer({ minimum: 60, maximum: 90 * 86_400 }) }, { additionalProperties: false }),
      { minItems: 1, maxItems: 4 },
    ),
    action: Type.Union([Type.Literal('defer'), Type.Literal('suppress')]),
  },
  { additionalProperties: false },
);

export const SchedulingSection = section(
  {
    send_at_horizon_days: withDefault(
      Type.Integer({
        minimum: 1,
        maximum: 365,
        description: 'How far ahead a send_at may be (notifications, batch items, campaigns); one further ahead is refused with send_at_beyond_horizon.',
      }),
      30,
    ),
    time_zone: withDefault(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "The install's default time zone (IANA name) for a recipient whose own and whose tenant's are unknown.",
      }),
      'UTC',
    ),
    quiet_hours: Type.Optional(
      Type.Object(
        Object.fromEntries(
          PURPOSES.map((p) => [p, Type.Optional(Type.Union([QUIET_WINDOW, Type.Null()], { description: `${p}: its window, or null for none` }))]),
        ),
        {
          additionalProperties: false,
          description:
            "The install's quiet hours per purpose, in the recipient's time zone; null turns a purpose's off. A purpose left out keeps the built-in default (marketing 21:00-08:00, conversational 22:00-07:00; otp, alert and transactional never held). A tenant's own policy overrides these.",
        },
      ),
    ),
    frequency_caps: Type.Optional(
      Type.Object(
        Object.fromEntries(
          PURPOSES.map((p) => [
            p,
            Type.Optional(Type.Union([PURPOSE_CAPS, Type.Null()], { description: `${p}: its caps and what happens over them, or null for none` })),
          ]),
        ),
        {
          additionalProperties: false,
          description:
            "The install's frequency caps per purpose (per recipient and channel); null turns a purpose's off. A purpose left out keeps the built-in default (marketing: 2 a day and 5 a week, deferred; codes are never capped). A tenant's own policy overrides these.",
        },
      ),
    ),
  },
  { description: 'Time-aware sending: send later, quiet hours, frequency caps (docs/scheduling.md).' },
);

/** A section that a file may leave out whole: its settings' defaults then apply as if it said `{}`. */
function sectionOrEmpty<S extends TSchema>(schema: S) {
  return withDefault(schema, {});
}

/** Every section but the provider accounts: what `settle` makes whole (config.ts resolves the accounts per kind). */
export const SettingsSchema = section({
  $schema: Type.Optional(Type.String({ description: 'Optional pointer to this schema, for editor completion and checks.' })),
  host: withDefault(Type.String({ minLength: 1, description: 'Address the API listens on.' }), '127.0.0.1'),
  port: withDefault(Type.Integer({ ...PORT, description: 'API port; 0 picks a free port.' }), 8080),
  public_url: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'The base URL recipients reach Herald at, used in links Herald puts in messages (one-click unsubscribe, RFC 8058). Default http://<host>:<port>; set it to the public https URL behind your proxy.',
    }),
  ),
  data_dir: withDefault(Type.String({ minLength: 1, description: 'Where the SQLite file and the bootstrap key live.' }), './herald-data'),
  database: sectionOrEmpty(DatabaseSection),
  sandbox: sectionOrEmpty(SandboxSection),
  worker: sectionOrEmpty(WorkerSection),
  encryption: sectionOrEmpty(EncryptionSection),
  retention: sectionOrEmpty(RetentionSection),
  metrics: sectionOrEmpty(MetricsSection),
  dashboard: sectionOrEmpty(DashboardSection),
  http: sectionOrEmpty(HttpSection),
  tls: Type.Optional(TlsSection),
  webhooks: sectionOrEmpty(WebhooksSection),
  devices: sectionOrEmpty(DevicesSection),
  alerts: sectionOrEmpty(AlertsSection),
  limits: sectionOrEmpty(LimitsSection),
  scheduling: sectionOrEmpty(SchedulingSection),
  routes: sectionOrEmpty(RoutesSection),
});

/**
 * The published JSON Schema (draft-07): every section, and `provider_accounts` with the
 * registered kinds. Each kind's `settings` schema is composed in by config.ts for validation.
 */
export function publishedConfigSchema(): Record<string, unknown> {
  const schema = Type.Object(
    {
      ...SettingsSchema.properties,
      provider_accounts: Type.Optional(Type.Array(Type.Unsafe({ $ref: '#/definitions/provider_account' }))),
    },
    {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: 'https://herald.dev/schemas/herald-config.json',
      title: 'Herald configuration',
      description: 'herald start/api/worker --config herald.json (or .yaml). Every field is optional; command-line flags override the file.',
      additionalProperties: false,
      definitions: { provider_account: providerAccountSchema([...PROVIDER_KINDS.keys()]) },
    },
  );
  return jsonSchemaOf(schema);
}
