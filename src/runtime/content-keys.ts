/**
 * The content keys of this process (docs/retention.md, "Encryption at rest"): read from the
 * config's `encryption:` section (a literal, an environment variable or a file, each 32 bytes
 * base64), or, on SQLite without one, generated once into `<data_dir>/content-key` (mode 0600)
 * and read from there on every later start. PostgreSQL without a key refuses to start: its
 * processes run on several machines, and a key made up by one of them would be a key the others
 * cannot read with, so the operator must hand every process the same key.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type HeraldConfig } from '../config/config.js';
import type { ContentKeySource } from '../config/retention-config.js';
import { ContentCipher, type ContentKey } from '../store/content-cipher.js';
import type { Store } from '../store/store.js';

/** Read when the config names no key: the conventional place for a container's secret (key id k1). */
export const DEFAULT_KEY_ENV = 'HERALD_CONTENT_KEY';

/** The file SQLite's generated key lives in, inside the data directory. */
export const GENERATED_KEY_FILE = 'content-key';

/** The cipher for `driver`: every configured key, the primary first; throws ConfigError for a missing or malformed key. */
export function contentCipherFor(config: HeraldConfig, driver: 'sqlite' | 'postgres', env: NodeJS.ProcessEnv = process.env): ContentCipher {
  const { primary, previous } = config.encryption;
  const keys: ContentKey[] = [];
  if (primary) keys.push(readKey(primary, 'encryption', env));
  else if (env[DEFAULT_KEY_ENV]) keys.push(readKey({ id: 'k1', key: null, key_env: DEFAULT_KEY_ENV, key_file: null }, 'encryption', env));
  else if (driver === 'postgres')
    throw new ConfigError(
      'encryption.key_env (or key, key_file, or HERALD_CONTENT_KEY in the environment) is required on PostgreSQL: message content is encrypted at rest, and every Herald process must use the same key (docs/retention.md)',
      'encryption.key_env',
    );
  else keys.push({ id: 'generated', key: generatedKey(config.data_dir) });
  previous.forEach((p, i) => keys.push(readKey(p, `encryption.previous_keys[${i}]`, env)));
  return new ContentCipher(keys);
}

/** 32 random bytes, base64: what `herald keys generate` prints and a key file holds. */
export function newContentKey(): string {
  return randomBytes(32).toString('base64');
}

function readKey(s: ContentKeySource, field: string, env: NodeJS.ProcessEnv): ContentKey {
  let text: string;
  if (s.key !== null) text = s.key;
  else if (s.key_env !== null) {
    const v = env[s.key_env];
    if (!v) throw new ConfigError(`${field}.key_env names ${s.key_env}, which is not set in the environment`, `${field}.key_env`);
    text = v;
  } else {
    try {
      text = readFileSync(s.key_file!, 'utf8');
    } catch (cause) {
      throw Object.assign(new ConfigError(`${field}.key_file ${s.key_file} cannot be read`, `${field}.key_file`), { cause });
    }
  }
  return { id: s.id, key: decodeKey(text.trim(), field) };
}

function decodeKey(text: string, field: string): Buffer {
  const key = Buffer.from(text, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || key.length !== 32)
    throw new ConfigError(`${field}: a content key is 32 bytes in base64 (44 characters; e.g. openssl rand -base64 32)`, field);
  return key;
}

/** The data directory's generated key, created on first use (never overwritten: it opens what it sealed). */
function generatedKey(dataDir: string): Buffer {
  const file = join(dataDir, GENERATED_KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    // flag wx: two processes starting at once cannot both write a key; the loser reads the winner's.
    try {
      writeFileSync(file, `${newContentKey()}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return decodeKey(readFileSync(file, 'utf8').trim(), `${file}`);
}

/**
 * Re-seals every stored content value with the primary key (`herald keys rotate-content`), in
 * batches of `batchSize` rows, each write guarded by the value read: safe while Herald runs.
 * After it, a previous key can be removed from the config.
 */
export async function rotateContent(store: Store, batchSize = 500): Promise<{ scanned: number; resealed: number }> {
  let scanned = 0;
  let resealed = 0;
  for (const table of ['notifications', 'campaigns'] as const) {
    let after: string | null = '';
    while (after !== null) {
      const r = await store.retention.resealContent(table, after, batchSize);
      scanned += r.scanned;
      resealed += r.resealed;
      after = r.lastId;
    }
  }
  // Audience rows' template data (campaigns with a template), sealed like content.
  let after: string | null = '';
  while (after !== null) {
    const r = await store.retention.resealAudienceData(after, batchSize);
    scanned += r.scanned;
    resealed += r.resealed;
    after = r.lastId;
  }
  return { scanned, resealed };
}
