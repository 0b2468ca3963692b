/**
 * What `dedupe_by_key` replays: the first acceptance of each (channel, Idempotency-Key), kept
 * for 24 hours as Resend and Telnyx document. Every acceptance is remembered whether or not
 * the mode is on, so turning it on mid-run covers keys already accepted; a replay never
 * reaches the ledger, which stays one entry per message the sandbox accepted.
 */
import type { Channel } from '../domain/index.js';
import type { Acceptance } from './send-requests.js';

/** Resend and Telnyx keep idempotency keys for 24 hours. */
export const DEDUPE_WINDOW_MS = 24 * 60 * 60 * 1000;

interface Remembered {
  acceptance: Acceptance;
  atMs: number;
}

/** The first acceptance per (channel, key), forgotten after DEDUPE_WINDOW_MS. */
export class AcceptanceMemory {
  // Insertion order is acceptance order, so expired entries are always at the front.
  readonly #byKey = new Map<string, Remembered>();

  /** Remembers an acceptance unless the key already has a live one (the first one wins). */
  remember(channel: Channel, key: string, acceptance: Acceptance, atMs: number): void {
    this.#prune(atMs);
    const id = `${channel}\n${key}`;
    if (!this.#byKey.has(id)) this.#byKey.set(id, { acceptance, atMs });
  }

  /** Returns the live first acceptance for the key on this channel, or null. */
  recall(channel: Channel, key: string, nowMs: number): Acceptance | null {
    this.#prune(nowMs);
    return this.#byKey.get(`${channel}\n${key}`)?.acceptance ?? null;
  }

  /** Forgets everything (with the ledger). */
  clear(): void {
    this.#byKey.clear();
  }

  #prune(nowMs: number): void {
    for (const [id, remembered] of this.#byKey) {
      if (nowMs - remembered.atMs < DEDUPE_WINDOW_MS) return;
      this.#byKey.delete(id);
    }
  }
}
