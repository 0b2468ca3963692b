/**
 * A provider's send quota per channel: at most R accepted sends per clock-aligned epoch second
 * (FCM and Telnyx publish per-second or per-minute caps; aligned seconds make the ledger's
 * per-second counts the exact measure of compliance). Above it the sandbox answers 429 with
 * Retry-After and records nothing. Counts come from the ledger, so replays and refused sends
 * never use quota.
 */
import { isChannel, type Channel } from '../domain/index.js';
import type { Ledger } from './ledger.js';
import { SpecError, specBody } from './spec-error.js';

export type QuotaSetting = Partial<Record<Channel, number>>;

/** A quota setting that cannot be applied; `field` names the offending channel. */
export class QuotaSpecError extends SpecError {
  override readonly name = 'QuotaSpecError';
}

// A million a second: far above anything one machine sends, and a guard against typos.
const MAX_RATE = 1_000_000;

/**
 * Validates a quota change: channel → sends per second (a positive integer) or null to lift
 * that channel's quota; throws QuotaSpecError naming the bad channel.
 */
export function parseQuotaPatch(input: unknown): Partial<Record<Channel, number | null>> {
  const raw = specBody(input, QuotaSpecError, undefined, 'a JSON object of channel: sends per second');
  const patch: Partial<Record<Channel, number | null>> = {};
  for (const [field, value] of Object.entries(raw)) {
    if (!isChannel(field)) throw new QuotaSpecError(field, `unknown channel ${field}`);
    if (value !== null && (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_RATE)) {
      throw new QuotaSpecError(field, `${field} must be an integer from 1 to ${MAX_RATE}, or null`);
    }
    patch[field] = value;
  }
  return patch;
}

export type QuotaDecision = { ok: true } | { ok: false; limit: number; retryAfterSeconds: number };

/** The per-channel quota of one sandbox; the same object backs `/quota` and the in-process API. */
export class QuotaController {
  readonly #rates = new Map<Channel, number>();

  /** Starts with the given rates; throws QuotaSpecError on bad input. */
  constructor(initial: QuotaSetting = {}) {
    this.set(initial);
  }

  /** Sets the channels given (null lifts one), leaving the others; throws QuotaSpecError (changing nothing) on bad input. */
  set(patch: Partial<Record<Channel, number | null>>): QuotaSetting {
    for (const [channel, rate] of Object.entries(parseQuotaPatch(patch)) as Array<[Channel, number | null]>) {
      if (rate === null) this.#rates.delete(channel);
      else this.#rates.set(channel, rate);
    }
    return this.get();
  }

  /** Lifts every quota. */
  clear(): void {
    this.#rates.clear();
  }

  /** Returns the quotas in force, by channel. */
  get(): QuotaSetting {
    return Object.fromEntries(this.#rates);
  }

  /** Decides whether one more send on `channel` may be accepted at `nowMs`, given what the ledger holds. */
  admit(channel: Channel, nowMs: number, ledger: Ledger): QuotaDecision {
    const limit = this.#rates.get(channel);
    if (limit === undefined) return { ok: true };
    const second = Math.floor(nowMs / 1000);
    if (ledger.countInSecond(channel, second) < limit) return { ok: true };
    // The window ends at the next whole second; Retry-After is whole seconds, at least 1.
    const retryAfterSeconds = Math.max(1, Math.ceil(((second + 1) * 1000 - nowMs) / 1000));
    return { ok: false, limit, retryAfterSeconds };
  }
}
