/**
 * Encryption at rest for message content (the `content_json` of notifications and campaigns:
 * subjects, bodies, one-time codes, push data). AES-256-GCM through node:crypto, a fresh
 * 96-bit IV per value (NIST SP 800-38D's recommended length), the 128-bit tag kept whole.
 *
 * A sealed value is text, so both drivers keep their TEXT column:
 *   `hc2:<key id>:<iv base64url>:<tag base64url>:<ciphertext base64url>`
 * The key id says which key opens it, so several keys can be configured at once: new writes use
 * the primary, reads use whichever key the value names (rotation, docs/retention.md). A value
 * without a prefix is read as it is: rows written before encryption was configured, and the
 * erasure marker the retention job leaves (it carries no content).
 *
 * Envelope versions. `hc2` binds each ciphertext to its place: the GCM additional data is
 * `herald:content:v2:<table>.<column>:<row id>`, so a ciphertext copied into another row (or
 * another column) fails to authenticate instead of showing one recipient another's message.
 * `hc1` (the first form, additional data `herald:content:v1` for every value) is still read, so
 * rows written before stay readable; `herald keys rotate-content` re-seals them as `hc2`.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'hc2:';
const PREFIX_V1 = 'hc1:';
/** The additional data of every `hc1` value: it names no row, which is why `hc2` replaced it. */
const AAD_V1 = Buffer.from('herald:content:v1');

/** Where a sealed value lives: its table, column and row id (a composite key joined with `/`). */
export interface SealBinding {
  table: string;
  column: string;
  rowId: string;
}

/** The binding of a value in `table.column` of the row `rowId`. */
export function bindTo(table: string, column: string, rowId: string): SealBinding {
  return { table, column, rowId };
}

function aadFor(b: SealBinding): Buffer {
  return Buffer.from(`herald:content:v2:${b.table}.${b.column}:${b.rowId}`);
}

/** One content key: an id (stored with each ciphertext) and 32 bytes. */
export interface ContentKey {
  id: string;
  key: Buffer;
}

/** Thrown when a stored value cannot be opened: its key is not configured, or it was altered. */
export class ContentKeyError extends Error {
  constructor(
    message: string,
    readonly keyId: string | null,
  ) {
    super(message);
    this.name = 'ContentKeyError';
  }
}

/** Seals and opens content; `null` in a store's options means content is written in clear. */
export class ContentCipher {
  private readonly keys = new Map<string, Buffer>();
  readonly primaryId: string;

  /** `keys[0]` is the primary (new writes); the others only open what they sealed. */
  constructor(keys: readonly ContentKey[]) {
    if (keys.length === 0) throw new Error('a content cipher needs at least one key');
    for (const k of keys) {
      if (!/^[A-Za-z0-9_.-]{1,64}$/.test(k.id)) throw new Error(`content key id ${JSON.stringify(k.id)}: use 1-64 of A-Z a-z 0-9 _ . -`);
      if (k.key.length !== 32) throw new Error(`content key ${k.id}: AES-256 needs 32 bytes, got ${k.key.length}`);
      if (this.keys.has(k.id)) throw new Error(`content key ${k.id} is listed twice`);
      this.keys.set(k.id, k.key);
    }
    this.primaryId = keys[0]!.id;
  }

  /** The sealed form (`hc2`) of `plain` under the primary key, bound to the row it is written to. */
  seal(plain: string, binding: SealBinding): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.keys.get(this.primaryId)!, iv);
    c.setAAD(aadFor(binding));
    const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return `${PREFIX}${this.primaryId}:${iv.toString('base64url')}:${c.getAuthTag().toString('base64url')}:${ct.toString('base64url')}`;
  }

  /**
   * The plain text of a stored value (sealed with any configured key, or never sealed); throws
   * ContentKeyError. An `hc2` value opens only at the row it was sealed for; an `hc1` value
   * (written before rows were bound) opens anywhere, until rotate-content re-seals it.
   */
  open(stored: string, binding: SealBinding): string {
    if (!isSealed(stored)) return stored;
    const v1 = stored.startsWith(PREFIX_V1);
    const [keyId, iv, tag, ct] = stored.slice(PREFIX.length).split(':');
    const key = keyId === undefined ? undefined : this.keys.get(keyId);
    if (!key || iv === undefined || tag === undefined || ct === undefined)
      throw new ContentKeyError(`content sealed with key ${keyId ?? '?'}, which is not configured`, keyId ?? null);
    try {
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      d.setAAD(v1 ? AAD_V1 : aadFor(binding));
      d.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
    } catch (cause) {
      // Altered, or (hc2) copied from another row: either way it is not this row's content.
      throw Object.assign(
        new ContentKeyError(`content sealed with key ${keyId} does not authenticate for ${binding.table}.${binding.column} ${binding.rowId}`, keyId ?? null),
        { cause },
      );
    }
  }

  /** True when `stored` is not sealed as `hc2` with the primary key (a rotation job re-seals it). */
  needsReseal(stored: string): boolean {
    return !stored.startsWith(`${PREFIX}${this.primaryId}:`);
  }
}

/** True for a value `ContentCipher.seal` produced, in either envelope version. */
export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX) || stored.startsWith(PREFIX_V1);
}

/** The id of the key a stored value was sealed with, or null for a value in clear. */
export function sealedKeyId(stored: string): string | null {
  return isSealed(stored) ? (stored.slice(PREFIX.length).split(':')[0] ?? null) : null;
}

/** Content as the drivers write it: sealed when a cipher is configured, else the JSON itself. */
export function sealContent(cipher: ContentCipher | null, content: unknown, binding: SealBinding): string {
  const text = JSON.stringify(content);
  return cipher ? cipher.seal(text, binding) : text;
}

/** Content as the drivers read it back (parsed JSON); a sealed value without a cipher is a ContentKeyError. */
export function openContent<T>(cipher: ContentCipher | null, stored: unknown, binding: SealBinding): T {
  const s = String(stored);
  if (!cipher && isSealed(s)) throw new ContentKeyError(`content sealed with key ${sealedKeyId(s)}, but no content key is configured`, sealedKeyId(s));
  return JSON.parse(cipher ? cipher.open(s, binding) : s) as T;
}
