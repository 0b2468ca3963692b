/**
 * The runtime's content keys: SQLite without a configured key generates one in data_dir (once,
 * mode 0600, the same on every later start); PostgreSQL without one refuses to start; a bad or
 * missing key is a ConfigError naming the field; and `rotateContent` re-seals stored content so
 * an old key can be dropped (both drivers).
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config/config.js';
import { contentCipherFor, GENERATED_KEY_FILE, rotateContent } from '../../src/runtime/content-keys.js';
import { bindTo, ContentCipher, ContentKeyError } from '../../src/store/content-cipher.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { freshSchema, pgUrl } from '../helpers/postgres.js';
import { buildNotification, T0 } from '../store/fixtures.js';

const dirs: string[] = [];
const AT = bindTo('notifications', 'content_json', 'ntf_1');
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
    expect(b.open(a.seal('{"text":"hi"}', AT), AT)).toBe('{"text":"hi"}');
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
    expect(c.open(old.seal('x', AT), AT)).toBe('x');
    expect(() => contentCipherFor(cfg, 'postgres', {})).toThrow(/HERALD_CK, which is not set/);
    expect(() => contentCipherFor(cfg, 'postgres', { HERALD_CK: 'c2hvcnQ=' })).toThrow(/32 bytes/);
    expect(() => resolveConfig({ encryption: { key: k1, key_env: 'X' } })).toThrow(/exactly one of key, key_env, key_file/);
  });

  it('a tampered ciphertext or an unknown key id does not open', () => {
    const c = new ContentCipher([{ id: 'a', key: randomBytes(32) }]);
    const sealed = c.seal('secret', AT);
    const flipped = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'B' : 'A') + sealed.slice(-1);
    expect(() => c.open(flipped, AT)).toThrow(ContentKeyError);
    expect(() => c.open(sealed.replace('hc2:a:', 'hc2:b:'), AT)).toThrow(/not configured/);
  });

  it('an hc2 ciphertext opens only at the row and column it was sealed for', () => {
    const c = new ContentCipher([{ id: 'a', key: randomBytes(32) }]);
    const sealed = c.seal('{"text":"123456"}', AT);
    expect(sealed.startsWith('hc2:a:')).toBe(true);
    expect(c.open(sealed, AT)).toBe('{"text":"123456"}');
    expect(() => c.open(sealed, bindTo('notifications', 'content_json', 'ntf_2'))).toThrow(/does not authenticate/);
    expect(() => c.open(sealed, bindTo('campaigns', 'content_json', 'ntf_1'))).toThrow(ContentKeyError);
    expect(() => c.open(sealed, bindTo('notifications', 'data_json', 'ntf_1'))).toThrow(ContentKeyError);
  });

  it('an hc1 value (sealed before rows were bound) still opens, and needs a re-seal', () => {
    const key = { id: 'a', key: randomBytes(32) };
    const c = new ContentCipher([key]);
    const v1 = sealV1(key.key, 'a', '{"text":"old"}');
    expect(c.open(v1, AT)).toBe('{"text":"old"}');
    expect(c.needsReseal(v1)).toBe(true);
    expect(c.needsReseal(c.seal('x', AT))).toBe(false);
  });
});

/** The first envelope, exactly as the previous ContentCipher wrote it (additional data without the row). */
function sealV1(key: Buffer, keyId: string, plain: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from('herald:content:v1'));
  const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return `hc1:${keyId}:${iv.toString('base64url')}:${c.getAuthTag().toString('base64url')}:${ct.toString('base64url')}`;
}

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
    // Audience rows' template data is sealed too: two rows with data (re-sealed), one without (not scanned).
    await store.campaigns.createAudience({ id: 'aud_1', tenantId: 'acme', source: 'ndjson', now: T0 });
    const rows = [1, 2, 3].map((p) => ({
      position: p,
      line: p,
      recipient: { id: `u${p}`, email: `u${p}@example.com` },
      ...(p === 2 ? {} : { data: { name: `N${p}` } }),
    }));
    await store.campaigns.appendAudienceRows('aud_1', rows);
    await store.close();
    store = open(new ContentCipher([newKey, oldKey]));
    expect(await rotateContent(store, 2)).toEqual({ scanned: 5, resealed: 5 });
    expect(await rotateContent(store, 2)).toEqual({ scanned: 5, resealed: 0 });
    await store.close();
    store = open(new ContentCipher([newKey]));
    try {
      for (const n of ns) expect((await store.getNotification('acme', n.id))!.content).toEqual(n.content);
      expect(await store.campaigns.readAudienceRows('aud_1', 0, 10)).toEqual(rows);
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
