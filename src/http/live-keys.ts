/**
 * The API keys this process has recently seen live, kept for at most a second. Every request
 * names its key; reading the key's row each time was one statement per request on the hottest
 * path (a third of an otp POST's reads). A key found live is trusted for `maxAgeMs` from the
 * moment its read began, so a key revoked on any process (another API process, the CLI) is
 * refused by every process within that time: the read that found it started before the revoke,
 * so its entry expires no later than `maxAgeMs` after the revoke. A revoke or rotate through this
 * process forgets the key at once. Unknown and expired keys are never kept (a guessing client
 * cannot grow the map), and the map is bounded.
 */
import type { ApiKeyRecord, Store } from '../store/store.js';
import { hashApiKey } from '../tenants/api-keys.js';

/** How long a live key is trusted without reading its row again: the revocation bound on other processes. */
export const LIVE_KEY_MAX_AGE_MS = 1_000;
/** How many keys one process keeps; past it the oldest read goes first. */
const MAX_KEPT = 10_000;
/**
 * Last-used is written at most once a minute per key: a busy key costs one UPDATE a minute
 * instead of one per request (one fsync each on SQLite).
 */
const TOUCH_KEY_EVERY_MS = 60_000;

interface Kept {
  record: ApiKeyRecord;
  /** When the read that found it began. */
  readAt: number;
}

/** Is the key usable at `now`: not expired. (Revoked keys are not found by the store at all.) */
const usable = (k: ApiKeyRecord, now: number): boolean => k.expiresAt === null || k.expiresAt > now;

/**
 * The live key a request's secret names, or null: unknown, revoked or expired, read from the
 * store now (no cache). Records the use at most once a minute.
 */
export async function liveApiKey(store: Store, key: string, now: number): Promise<ApiKeyRecord | null> {
  const found = await store.findApiKey(hashApiKey(key));
  if (!found || !usable(found, now)) return null;
  await touchIfDue(store, found, now);
  return found;
}

async function touchIfDue(store: Store, k: ApiKeyRecord, now: number): Promise<void> {
  if (k.lastUsedAt !== null && now - k.lastUsedAt < TOUCH_KEY_EVERY_MS) return;
  await store.tenants.touchKey(k.id, now);
  k.lastUsedAt = now;
}

export class LiveKeys {
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly store: Store,
    private readonly maxAgeMs: number = LIVE_KEY_MAX_AGE_MS,
  ) {}

  /** As `liveApiKey`, answering from a read that began less than `maxAgeMs` before `now`. */
  async find(key: string, now: number): Promise<ApiKeyRecord | null> {
    const hash = hashApiKey(key);
    const hit = this.kept.get(hash);
    if (hit !== undefined && now - hit.readAt < this.maxAgeMs && now >= hit.readAt) {
      if (!usable(hit.record, now)) return null;
      await touchIfDue(this.store, hit.record, now);
      return hit.record;
    }
    this.kept.delete(hash);
    const found = await this.store.findApiKey(hash);
    if (!found || !usable(found, now)) return null;
    await touchIfDue(this.store, found, now);
    if (this.maxAgeMs > 0) {
      if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
      this.kept.set(hash, { record: found, readAt: now });
    }
    return found;
  }

  /** Forgets a key this process revoked or rotated, so its next request here reads the row. */
  forget(keyId: string): void {
    for (const [hash, k] of this.kept) if (k.record.id === keyId) this.kept.delete(hash);
  }
}
