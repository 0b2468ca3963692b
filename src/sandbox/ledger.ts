/**
 * The sandbox's ground truth: one entry per submission it decided to accept, including those
 * whose response it then deliberately lost. It never deduplicates, so a duplicate send by
 * Herald shows up as two entries with the same idempotency key.
 */
import type { Channel } from '../domain/index.js';

/** One accepted submission. Snake case because this is also the `GET /ledger` wire shape. */
export interface LedgerEntry {
  idempotency_key: string;
  channel: Channel;
  destination: string;
  provider_message_id: string;
  /** ISO 8601. */
  received_at: string;
}

export interface LedgerFilter {
  idempotency_key?: string;
  channel?: Channel;
}

/** The in-process ledger: append-only while running, cleared only on request. */
export class Ledger {
  readonly #entries: LedgerEntry[] = [];

  /** Appends one accepted submission; called by the sandbox only. */
  record(entry: LedgerEntry): void {
    this.#entries.push({ ...entry });
  }

  /** Returns copies of the entries in acceptance order, optionally filtered. */
  entries(filter: LedgerFilter = {}): LedgerEntry[] {
    return this.#entries
      .filter(
        (entry) =>
          (filter.idempotency_key === undefined ||
            entry.idempotency_key === filter.idempotency_key) &&
          (filter.channel === undefined || entry.channel === filter.channel),
      )
      .map((entry) => ({ ...entry }));
  }

  /** Returns how many accepted submissions carried this idempotency key (2+ means a duplicate). */
  countByKey(idempotencyKey: string): number {
    let count = 0;
    for (const entry of this.#entries) {
      if (entry.idempotency_key === idempotencyKey) count += 1;
    }
    return count;
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.length = 0;
  }
}
