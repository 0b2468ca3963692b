/**
 * The `encryption:` and `retention:` sections (docs/retention.md). Kept beside config.ts, like
 * alerts-config.ts, so the main file only names the sections. Reading key material (a file, an
 * environment variable) happens in runtime/content-keys.ts; here is only shape and defaults.
 */
import { Type } from '@sinclair/typebox';
import { PURPOSES, type Purpose } from '../domain/index.js';
import { section, withDefault, type Settled } from '../schema/setting.js';

/** Where one content key comes from: exactly one of a literal, an environment variable, a file (each 32 bytes, base64). */
export interface ContentKeySource {
  id: string;
  key: string | null;
  key_env: string | null;
  key_file: string | null;
}

/** Encryption at rest of message content: the section's key sources, sorted into the primary and the older ones. */
export interface EncryptionConfig {
  /** The primary key (new writes), or null: SQLite generates one in data_dir, PostgreSQL refuses to start. */
  primary: ContentKeySource | null;
  /** Older keys, kept to read what they sealed until `herald keys rotate-content` has re-sealed it. */
  previous: ContentKeySource[];
}

const KEY_ID = '^[A-Za-z0-9_.-]{1,64}$';
const KEY = '^[A-Za-z0-9+/]{43}=$';
const ENV_NAME = '^[A-Za-z_][A-Za-z0-9_]*$';

/** An older content key in `encryption.previous_keys`. */
const KeySource = section({
  id: Type.Optional(Type.String({ pattern: KEY_ID, description: 'Stored with each ciphertext; names the key that opens it.' })),
  key: Type.Optional(Type.String({ pattern: KEY, description: '32 bytes, base64. Prefer key_env or key_file.' })),
  key_env: Type.Optional(Type.String({ pattern: ENV_NAME, description: 'Environment variable holding the key (32 bytes, base64).' })),
  key_file: Type.Optional(Type.String({ minLength: 1, description: 'File holding the key (32 bytes, base64).' })),
});

/** The `encryption:` section's shape (resolveEncryption gives its effective form). */
export const EncryptionSection = section(
  {
    id: Type.Optional(Type.String({ pattern: KEY_ID, description: "The primary key's id, stored with each ciphertext. Default k1." })),
    key: Type.Optional(Type.String({ pattern: KEY, description: 'The primary key: 32 bytes, base64. Prefer key_env or key_file.' })),
    key_env: Type.Optional(Type.String({ pattern: ENV_NAME, description: 'Environment variable holding the primary key (32 bytes, base64).' })),
    key_file: Type.Optional(Type.String({ minLength: 1, description: 'File holding the primary key (32 bytes, base64).' })),
    previous_keys: Type.Optional(
      Type.Array(KeySource, {
        maxItems: 16,
        description: 'Older keys: they only open what they sealed, until herald keys rotate-content re-seals it with the primary.',
      }),
    ),
  },
  {
    description:
      'Message content (subjects, bodies, one-time codes, push data) encrypted at rest with AES-256-GCM (docs/retention.md). Without a key, SQLite generates content-key in data_dir on first start; PostgreSQL refuses to start.',
  },
);

/** 30 days of rendered content: long enough to answer "what did we send?" for a support ticket or a dispute. */
const CONTENT_DAYS = 30;
/** 90 days of destinations: a quarter of delivery history to investigate bounces and complaints per address. */
const DESTINATION_DAYS = 90;

/** The `retention:` section's shape and defaults. */
export const RetentionSection = section(
  {
    content_days: withDefault(
      section(
        Object.fromEntries(
          PURPOSES.map((p) => [
            p,
            withDefault(Type.Integer({ minimum: 0, maximum: 3650, description: `Days ${p} content is kept (settled notifications only).` }), CONTENT_DAYS),
          ]),
        ) as Record<Purpose, ReturnType<typeof withDefault<ReturnType<typeof Type.Integer>>>>,
        { description: 'Days rendered content is kept after the notification was created, per purpose.' },
      ),
      {},
    ),
    destination_days: withDefault(
      Type.Integer({
        minimum: 1,
        maximum: 3650,
        description: "Days after which a delivery's destination is masked; its keyed hash is kept so suppression still applies.",
      }),
      DESTINATION_DAYS,
    ),
    otp_erase_after_settled: withDefault(
      Type.Boolean({
        description: 'Erase a one-time code once every delivery is settled (terminal or accepted) and the notification has expired.',
      }),
      true,
    ),
    batch_size: withDefault(Type.Integer({ minimum: 1, maximum: 10_000, description: 'Rows erased per transaction.' }), 500),
    interval_ms: withDefault(Type.Integer({ minimum: 1000, maximum: 86_400_000, description: 'How often the retention job runs.' }), 60_000),
  },
  { description: 'How long rendered content and destinations are kept (docs/retention.md).' },
);

/** The encryption section (settled) as key sources: the primary (id k1 unless named) and the older keys, files resolved by `resolvePath`. */
export function resolveEncryption(r: Settled<typeof EncryptionSection>, resolvePath: (p: string) => string): EncryptionConfig {
  const source = (s: Settled<typeof KeySource>, fallbackId: string): ContentKeySource => ({
    id: s.id ?? fallbackId,
    key: s.key,
    key_env: s.key_env,
    key_file: s.key_file === null ? null : resolvePath(s.key_file),
  });
  const hasPrimary = r.key !== null || r.key_env !== null || r.key_file !== null;
  return { primary: hasPrimary ? source(r, 'k1') : null, previous: (r.previous_keys ?? []).map((p, i) => source(p, `previous-${i + 1}`)) };
}

/** Problems the schema cannot see: two sources for one key, a repeated id. */
export function checkEncryption(e: EncryptionConfig): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  const all = [...(e.primary ? [{ s: e.primary, field: 'encryption' }] : []), ...e.previous.map((s, i) => ({ s, field: `encryption.previous_keys[${i}]` }))];
  const seen = new Set<string>();
  for (const { s, field } of all) {
    const n = [s.key, s.key_env, s.key_file].filter((v) => v !== null).length;
    if (n !== 1) problems.push({ field, message: 'needs exactly one of key, key_env, key_file' });
    if (seen.has(s.id)) problems.push({ field: `${field}.id`, message: `"${s.id}" is used twice` });
    seen.add(s.id);
  }
  if (!e.primary && e.previous.length > 0) problems.push({ field: 'encryption.key', message: 'is required when previous_keys are listed' });
  return problems;
}
