/**
 * One provider account in the configuration (`provider_accounts[]`), declared once: the JSON
 * Schema a file is checked against, the defaults, and `ProviderAccountConfig`, all from here
 * (src/schema/setting.ts). A kind's own `settings` are checked by its `settingsSchema`, composed
 * in by config/; a kind's defaults (`ProviderKind.defaults`) go under what the account says and
 * over the defaults below.
 */
import { Type, type Static, type TOptional, type TUnsafe } from '@sinclair/typebox';
import { AMBIGUITY_POLICIES, CHANNELS, LADDER_NAMES, PURPOSES, ROLLOUT_STAGES, type Purpose } from '../domain/index.js';
import { oneOf, section, withDefault, type Defaulted } from '../schema/setting.js';

const ENV_NAME = '^[A-Za-z_][A-Za-z0-9_]*$';

/** One optional choice among `values` per purpose, each described by `describe(purpose)`. */
function perPurpose<const V extends readonly string[]>(values: V, describe: (p: Purpose) => string): Record<Purpose, TOptional<TUnsafe<V[number]>>> {
  return Object.fromEntries(PURPOSES.map((p) => [p, Type.Optional(oneOf(values, { description: describe(p) }))])) as Record<
    Purpose,
    TOptional<TUnsafe<V[number]>>
  >;
}

/**
 * The account schema, with `kinds` (the registered kinds' names, providers/registry.ts) as the
 * values `kind` may take: the registry imports every kind, and every kind this file's type.
 */
export function providerAccountSchema(kinds: readonly string[]) {
  return section({
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$', description: 'Stable name, used in the API and in callbacks.' }),
    kind: Type.Unsafe<string>({
      enum: [...kinds],
      description: 'Provider implementation (src/providers/registry.ts); each kind has its own settings, described in docs/providers/<kind>.md.',
    }),
    channel: oneOf(CHANNELS, { description: 'The one channel this account delivers.' }),
    base_url: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description:
          "Provider endpoint: required for a sandbox account (e.g. http://127.0.0.1:8025); for other kinds an override of the provider's public endpoint (a region, or a local fake in tests).",
      }),
    ),
    settings: Type.Optional(
      Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        description:
          "The kind's own settings (host, sender, credentials), checked against the kind's schema (docs/providers/<kind>.md). Not allowed for kinds without settings (sandbox).",
      }),
    ),
    api_key: Type.Optional(Type.String({ minLength: 1, description: 'Literal credential. Prefer api_key_env.' })),
    api_key_env: Type.Optional(Type.String({ pattern: ENV_NAME, description: 'Name of the environment variable holding the credential.' })),
    rate_per_second: withDefault(
      Type.Number({ exclusiveMinimum: 0, description: 'Permitted submissions per second (the kind may set another default).' }),
      100,
    ),
    burst: withDefault(Type.Integer({ minimum: 1, description: 'Submissions allowed at once above the rate (the kind may set another default).' }), 100),
    rollout: Type.Optional(
      oneOf(ROLLOUT_STAGES, {
        description:
          'Staged rollout (docs/operations.md#staged-rollout). shadow: every answer is classified and recorded, an acceptance is accepted, anything else goes to the review queue (nothing is retried automatically); definite_retries: definite refusals follow their ladders, unknown goes to review (no reconciliation, no ambiguity policy); full: every rule. Default full.',
      }),
    ),
    retry_ladders: Type.Optional(
      section(
        perPurpose(LADDER_NAMES, (p) => `Ladder for ${p} deliveries.`),
        {
          description: "Per purpose, the retry ladder this account's deliveries use instead of the purpose's own (a notification's retry.ladder still wins).",
        },
      ),
    ),
    ambiguity_policy: withDefault(
      oneOf(AMBIGUITY_POLICIES, {
        description:
          'What happens to an unknown submission when the provider cannot be looked up; resend_same_key only where capabilities.dedupes_by_key (the kind may set another default).',
      }),
      'wait_for_evidence',
    ),
    ambiguity_policies: Type.Optional(
      section(
        perPurpose(AMBIGUITY_POLICIES, (p) => `Ambiguity policy for ${p} deliveries.`),
        {
          description:
            'Per purpose, an ambiguity policy other than ambiguity_policy (a duplicate newsletter can be worse than a missed one; an alert with a stable incident id may justify a duplicate). Purposes not listed use ambiguity_policy.',
        },
      ),
    ),
    capabilities: Type.Optional(
      section(
        {
          lookup: Type.Optional(
            Type.Boolean({ description: "Herald may ask the provider whether it has a message, by Herald's reference. Sandbox default true." }),
          ),
          dedupes_by_key: Type.Optional(
            Type.Boolean({ description: 'The provider documents that a repeated idempotency key is not sent twice (Resend, Telnyx). Default false.' }),
          ),
        },
        { description: 'What the provider behind the account can do (a sandbox account declares which provider it imitates).' },
      ),
    ),
    callback_secrets: Type.Optional(
      Type.Array(Type.String({ pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$' }), {
        minItems: 1,
        maxItems: 2,
        description:
          "Secrets that verify this account's delivery callbacks at /v1/callbacks/<id>: the current one, and the previous one while the provider rotates.",
      }),
    ),
    callback_secret_env: Type.Optional(
      Type.String({ pattern: ENV_NAME, description: 'Name of the environment variable holding the callback secret (instead of callback_secrets).' }),
    ),
    lanes: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ pattern: '^[a-z][a-z0-9_-]{0,31}$', description: 'Lane name, unique per account.' }),
            purposes: Type.Array(oneOf(PURPOSES), { minItems: 1, description: 'Purposes this lane carries.' }),
            guaranteed_share: Type.Number({ minimum: 0, maximum: 1, description: 'Share of the rate and concurrency reserved for this lane.' }),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          description:
            "How the account's rate and worker concurrency split between purposes. Default: auth (otp, alert) with 20% guaranteed, bulk (the rest) with none. Every purpose in exactly one lane; shares sum to at most 1.",
        },
      ),
    ),
    evidence_window_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2_592_000,
        description: 'How long an unknown submission waits for evidence before terminal/unresolved. Default 3600 (the kind may set another).',
      }),
    ),
    lookup_grace_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 86_400,
        description: "How long after a submission went unknown a look-up's not-found counts as authoritative. Default 30.",
      }),
    ),
    otp_sms_format: Type.Optional(
      section(
        {
          webotp_domain: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: "The site's domain, e.g. example.com (no scheme)." })),
          app_hash: Type.Optional(Type.String({ minLength: 11, maxLength: 11, description: 'The 11-character SMS Retriever app hash.' })),
        },
        {
          description:
            "SMS: how a one-time code is marked up when a notification gives its code (content.otp): a last line `@<webotp_domain> #<code>` for WebOTP, and the Android app's SMS Retriever hash. A notification's own choices win.",
        },
      ),
    ),
    max_html_bytes: Type.Optional(
      Type.Integer({
        minimum: 1024,
        maximum: 52_428_800,
        description:
          "E-mail: the largest HTML part (UTF-8 bytes) this account takes; intake refuses a larger one with 422 content_too_large. Default: the kind's limit, if it has one.",
      }),
    ),
    keyword_replies: Type.Optional(
      section(
        {
          help: Type.Optional(
            Type.String({
              maxLength: 480,
              description: 'The answer to HELP (and its synonyms). An empty string sends none. Default: how to stop and restart.',
            }),
          ),
          stop: Type.Optional(
            Type.String({
              maxLength: 480,
              description: 'The confirmation of a STOP (and its synonyms). An empty string sends none. Default: no more messages, and how to restart.',
            }),
          ),
        },
        {
          description:
            'SMS: the automatic replies to an incoming HELP and STOP on this account (docs/inbound.md): through a phone, one transactional SMS to the sender through the same device; through Twilio, one TwiML <Message> in the webhook answer. One reply per incoming message, never for a duplicate.',
        },
      ),
    ),
    arrival_allowance_ms: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 3_600_000,
        description:
          "How much of a message's validity its channel needs to arrive: no call starts, and no request is written, once expires_at is closer than this, and a retry that could only start later ends the delivery expired (docs/state-machine.md). Default: sms 1000, email 1000, push 500.",
      }),
    ),
    timeout_ms: withDefault(
      Type.Integer({
        minimum: 100,
        maximum: 120_000,
        description: 'Per-request timeout; a timeout is unknown, never failed (the kind may set another default).',
      }),
      10_000,
    ),
  });
}

export type ProviderAccountSchema = ReturnType<typeof providerAccountSchema>;

/** An account as a file may give it (before the kind's defaults and the defaults above). */
export type RawProviderAccount = Static<ProviderAccountSchema>;

/** One configured provider account, as read from configuration: the defaults above filled in. */
export type ProviderAccountConfig = Defaulted<ProviderAccountSchema>;
