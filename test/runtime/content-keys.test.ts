/**
 * The runtime's content keys: SQLite without a configured key generates one in data_dir (once,
 * mode 0600, the same on every later start); PostgreSQL without one refuses to start; a bad or
 * missing key is a ConfigError naming the field; and `rotateContent` re-seals stored content so
 * an old key can be dropped (both drivers).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config/config.js';
import { contentCipherFor, GENERATED_KEY_FILE, rotateContent } from '../../src/runtime/content-keys.js';
import { ContentCipher, ContentKeyError } from '../../src/store/content-cipher.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { freshSchema, pgUrl } from '../helpers/postgres.js';
import { buildNotification, T0 } from '../store/fixtures.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'herald-keys-'));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('content keys from the config', () => {
  it('SQLite without a key generates one in data_dir once, mode 0600, and reuses it', async () => {
    const dir = await tempDir();
    const cfg = resolveConfig({ data_dir: dir });
    const a = contentCipherFor(cfg, 'sqlite', {});
    const file = join(dir, GENERATED_KEY_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const before = readFileSync(file, 'utf8');
    const b = contentCipherFor(cfg, 'sqlite', {});
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(b.open(a.seal('{"text":"hi"}'))).toBe('{"text":"hi"}');
  });

  it('PostgreSQL without a key refuses to start', async () => {
    const cfg = resolveConfig({ data_dir: await tempDir() });
    expect(() => contentCipherFor(cfg, 'postgres', {})).toThrow(ConfigError);
    // HERALD_CONTENT_KEY stands in for an encryption section (key id k1).
    const c = contentCipherFor(cfg, 'postgres', { HERALD_CONTENT_KEY: randomBytes(32).toString('base64') });
    expect(c.primaryId).toBe('k1');
  });

  it('reads key_env and previous keys; refuses an unset variable, a short key, two sources', async () => {
    const k1 = randomBytes(32).toString('base64');
    const k0 = randomBytes(32).toString('base64');
    const cfg = resolveConfig({ data_dir: await tempDir(), encryption: { id: 'k2', key_env: 'HERALD_CK', previous_keys: [{ id: 'k1', key: k0 }] } });
    const c = contentCipherFor(cfg, 'postgres', { HERALD_CK: k1 });
    expect(c.primaryId).toBe('k2');
    const old = new ContentCipher([{ id: 'k1', key: Buffer.from(k0, 'base64') }]);
    expect(c.open(old.seal('x'))).toBe('x');
    expect(() => contentCipherFor(cfg, 'postgres', {})).toThrow(/HERALD_CK, which is not set/);
    expect(() => contentCipherFor(cfg, 'postgres', { HERALD_CK: 'c2hvcnQ=' })).toThrow(/32 bytes/);
    expect(() => resolveConfig({ encryption: { key: k1, key_env: 'X' } })).toThrow(/exactly one of key, key_env, key_file/);
  });

  it('a tampered ciphertext or an unknown key id does not open', () => {
    const c = new ContentCipher([{ id: 'a', key: randomBytes(32) }]);
    const sealed = c.seal('secret');
    const flipped = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'B' : 'A') + sealed.slice(-1);
    expect(() => c.open(flipped)).toThrow(ContentKeyError);
    expect(() => c.open(sealed.replace('hc1:a:', 'hc1:b:'))).toThrow(/not configured/);
  });
});

const oldKey = { id: 'old', key: randomBytes(32) };
const newKey = { id: 'new', key: randomBytes(32) };

describe.each(['sqlite', 'postgres'] as const)('%s: rotate-content', (driver) => {
  it('re-seals every content with the primary, after which the old key can go', async () => {
    const dir = await tempDir();
    const schema = freshSchema();
    const open = (keys: ContentCipher): Store =>
      driver === 'sqlite'
        ? openSqliteStore({ path: join(dir, 'herald.db'), contentCipher: keys })
        : openPostgresStore({ connectionString: pgUrl(), schema, maxConnections: 2, contentCipher: keys });
    let store = open(new ContentCipher([oldKey]));
    await store.migrate();
    await store.ensureTenant({ id: 'acme', name: 'Acme' }, T0);
    const ns = [0, 1, 2].map(() => buildNotification({ tenantId: 'acme', createdAt: T0 }));
    for (const n of ns) await store.createNotification(n);
    await store.close();
    store = open(new ContentCipher([newKey, oldKey]));
    expect(await rotateContent(store, 2)).toEqual({ scanned: 3, resealed: 3 });
    expect(await rotateContent(store, 2)).toEqual({ scanned: 3, resealed: 0 });
    await store.close();
    store = open(new ContentCipher([newKey]));
    try {
      for (const n of ns) expect((await store.getNotification('acme', n.id))!.content).toEqual(n.content);
    } finally {
      await store.close();
      if (driver === 'postgres') {
        const c = new pg.Client({ connectionString: pgUrl() });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await c.end();
      }
    }
  });
});
