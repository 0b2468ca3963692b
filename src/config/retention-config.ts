/**
 * The `encryption:` and `retention:` sections (docs/retention.md). Kept beside config.ts, like
 * alerts-config.ts, so the main file only names the sections. Reading key material (a file, an
 * environment variable) happens in runtime/content-keys.ts; here is only shape and defaults.
 */
import { PURPOSES, type Purpose } from '../domain/index.js';

/** Where one content key comes from: exactly one of a literal, an environment variable, a file (each 32 bytes, base64). */
export interface ContentKeySource {
  id: string;
  key: string | null;
  key_env: string | null;
  key_file: string | null;
}

/** Encryption at rest of message content. */
export interface EncryptionConfig {
  /** The primary key (new writes), or null: SQLite generates one in data_dir, PostgreSQL refuses to start. */
  primary: ContentKeySource | null;
  /** Older keys, kept to read what they sealed until `herald keys rotate-content` has re-sealed it. */
  previous: ContentKeySource[];
}

/** What the retention job keeps, per purpose. */
export interface RetentionConfig {
  /** Days rendered content is kept after the notification was created, per purpose; otp: see otp_erase_after_settled. */
  content_days: Record<Purpose, number>;
  /** Days after which a delivery's destination is masked (its keyed hash is kept for suppression). */
  destination_days: number;
  /** One-time codes are erased as soon as every delivery is settled and the notification has expired. Default true. */
  otp_erase_after_settled: boolean;
  /** Rows per batch, one transaction each. Default 500. */
  batch_size: number;
  /** How often the job runs. Default 60 000 (a minute). */
  interval_ms: number;
}

export interface RawKeySource {
  id?: string;
  key?: string;
  key_env?: string;
  key_file?: string;
}

export interface RawEncryptionConfig extends RawKeySource {
  previous_keys?: RawKeySource[];
}

export interface RawRetentionConfig {
  content_days?: Partial<Record<Purpose, number>>;
  destination_days?: number;
  otp_erase_after_settled?: boolean;
  batch_size?: number;
  interval_ms?: number;
}

/** 30 days of rendered content: long enough to answer "what did we send?" for a support ticket or a dispute. */
export const DEFAULT_CONTENT_DAYS = 30;
/** 90 days of destinations: a quarter of delivery history to investigate bounces and complaints per address. */
export const DEFAULT_DESTINATION_DAYS = 90;

function source(r: RawKeySource, fallbackId: string): ContentKeySource {
  return { id: r.id ?? fallbackId, key: r.key ?? null, key_env: r.key_env ?? null, key_file: r.key_file ?? null };
}

/** The encryption section with its defaults; throws a message naming the field for a key with no or two sources. */
export function resolveEncryption(r: RawEncryptionConfig | undefined, resolvePath: (p: string) => string): EncryptionConfig {
  const withPath = (s: ContentKeySource): ContentKeySource => ({ ...s, key_file: s.key_file === null ? null : resolvePath(s.key_file) });
  const hasPrimary = r !== undefined && (r.key !== undefined || r.key_env !== undefined || r.key_file !== undefined);
  return {
    primary: hasPrimary ? withPath(source(r, 'k1')) : null,
    previous: (r?.previous_keys ?? []).map((p, i) => withPath(source(p, `previous-${i + 1}`))),
  };
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

/** The retention section with its defaults. */
export function resolveRetention(r: RawRetentionConfig | undefined): RetentionConfig {
  const days = Object.fromEntries(PURPOSES.map((p) => [p, r?.content_days?.[p] ?? DEFAULT_CONTENT_DAYS])) as Record<Purpose, number>;
  return {
    content_days: days,
    destination_days: r?.destination_days ?? DEFAULT_DESTINATION_DAYS,
    otp_erase_after_settled: r?.otp_erase_after_settled ?? true,
    batch_size: r?.batch_size ?? 500,
    interval_ms: r?.interval_ms ?? 60_000,
  };
}
