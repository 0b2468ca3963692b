/**
 * The sandbox's ground truth: one entry per submission it decided to accept, including those
 * whose response it then deliberately lost. It never deduplicates, so a duplicate send by
 * Herald shows up as two entries with the same idempotency key (with `dedupe_by_key` on, a
 * repeated key is answered from memory and never reaches the ledger). Beside the entries it
 * keeps the delivery statuses the sandbox emitted per message, and counts per second.
 */
import { mergeDownstream, type Channel, type DownstreamStatus } from '../domain/index.js';

/** One accepted submission. Snake case because this is also the `GET /ledger` wire shape. */
export interface LedgerEntry {
  idempotency_key: string;
  channel: Channel;
  destination: string;
  provider_message_id: string;
  /** ISO 8601. */
  received_at: string;
  /** Email only, when the request had them: the extra header fields it carried (e.g. List-Unsubscribe). */
  headers?: Record<string, string>;
  /**
   * The delivery statuses the sandbox's callbacks emitted for this message, in emission
   * order, first emissions only (a reordered pair shows reordered; a duplicate does not
   * repeat). Empty when no callback was emitted. Filled by the ledger; `record` ignores it.
   */
  statuses: DownstreamStatus[];
}

/** What the send route hands to `record`: an entry without the statuses emitted later. */
export type NewLedgerEntry = Omit<LedgerEntry, 'statuses'>;

export interface LedgerFilter {
  idempotency_key?: string;
  channel?: Channel;
}

/** Accepted submissions in one epoch second; the `GET /ledger/per-second` wire shape. */
export interface SecondCount {
  second: number;
  count: number;
}

/** The in-process ledger: append-only while running, cleared only on request. */
export class Ledger {
  readonly #entries: NewLedgerEntry[] = [];
  readonly #byKey = new Map<string, NewLedgerEntry[]>();
  readonly #statuses = new Map<string, DownstreamStatus[]>();
  readonly #perSecond = new Map<Channel, Map<number, number>>();

  /** Appends one accepted submission; called by the sandbox only. */
  record(entry: NewLedgerEntry): void {
    const copy: NewLedgerEntry = {
      idempotency_key: entry.idempotency_key,
      channel: entry.channel,
      destination: entry.destination,
      provider_message_id: entry.provider_message_id,
      received_at: entry.received_at,
      ...(entry.headers ? { headers: { ...entry.headers } } : {}),
    };
    this.#entries.push(copy);
    const sameKey = this.#byKey.get(copy.idempotency_key);
    if (sameKey === undefined) this.#byKey.set(copy.idempotency_key, [copy]);
    else sameKey.push(copy);
    const second = Math.floor(Date.parse(copy.received_at) / 1000);
    let seconds = this.#perSecond.get(copy.channel);
    if (seconds === undefined) {
      seconds = new Map();
      this.#perSecond.set(copy.channel, seconds);
    }
    seconds.set(second, (seconds.get(second) ?? 0) + 1);
  }

  /** Returns copies of the entries in acceptance order, optionally filtered. */
  entries(filter: LedgerFilter = {}): LedgerEntry[] {
    const pool = filter.idempotency_key === undefined ? this.#entries : (this.#byKey.get(filter.idempotency_key) ?? []);
    return pool
      .filter((entry) => filter.channel === undefined || entry.channel === filter.channel)
      .map((entry) => ({ ...entry, statuses: this.statuses(entry.provider_message_id) }));
  }

  /** Returns how many accepted submissions carried this idempotency key (2+ means a duplicate). */
  countByKey(idempotencyKey: string): number {
    return this.#byKey.get(idempotencyKey)?.length ?? 0;
  }

  /** Notes that the sandbox emitted a delivery event with this status for the message (first emissions only). */
  recordStatus(providerMessageId: string, status: DownstreamStatus): void {
    const seen = this.#statuses.get(providerMessageId);
    if (seen === undefined) this.#statuses.set(providerMessageId, [status]);
    else seen.push(status);
  }

  /** Returns the statuses emitted for a message, in emission order (a reordered pair shows reordered). */
  statuses(providerMessageId: string): DownstreamStatus[] {
    return [...(this.#statuses.get(providerMessageId) ?? [])];
  }

  /**
   * Returns the message's status as a provider would report it: the furthest emitted status
   * on the downstream lattice (a reordered `sent` after `delivered` still reads `delivered`),
   * or `accepted` when nothing was emitted.
   */
  currentStatus(providerMessageId: string): DownstreamStatus {
    let status: DownstreamStatus = 'accepted';
    for (const seen of this.#statuses.get(providerMessageId) ?? []) status = mergeDownstream(status, seen);
    return status;
  }

  /** Returns how many submissions on `channel` were accepted within the epoch second `second`. */
  countInSecond(channel: Channel, second: number): number {
    return this.#perSecond.get(channel)?.get(second) ?? 0;
  }

  /** Returns accepted submissions per epoch second, ascending, for one channel or summed over all. */
  perSecond(channel?: Channel): SecondCount[] {
    const totals = new Map<number, number>();
    for (const [entryChannel, seconds] of this.#perSecond) {
      if (channel !== undefined && entryChannel !== channel) continue;
      for (const [second, count] of seconds) totals.set(second, (totals.get(second) ?? 0) + count);
    }
    return [...totals].sort(([a], [b]) => a - b).map(([second, count]) => ({ second, count }));
  }

  /** Returns the most submissions accepted in any one epoch second (0 when empty). */
  maxPerSecond(channel?: Channel): number {
    let max = 0;
    for (const { count } of this.perSecond(channel)) max = Math.max(max, count);
    return max;
  }

  /** Forgets every entry, emitted status and per-second count. */
  clear(): void {
    this.#entries.length = 0;
    this.#byKey.clear();
    this.#statuses.clear();
    this.#perSecond.clear();
  }
}
