/**
 * Fault injection for the sandbox. A fault is armed either for the next N sends that reach it
 * (`count`) or with a per-send `probability` drawn from the seeded PRNG. Faults apply only to
 * sends that passed authentication and validation: a request the sandbox refuses on its own
 * never consumes one, so "count: 1" always means "the next valid send". `lookup_unavailable`
 * is the one mode that look-ups (`GET /v1/messages`) consume instead of sends.
 */
import type { RandomSource } from './random.js';
import { SpecError, specBody } from './spec-error.js';

/** Evaluated in this order after `latency`; the first that triggers decides the answer. */
export const DECISIVE_FAULT_MODES = ['timeout_before_accept', 'server_error', 'rate_limit', 'reject_permanent', 'lose_response_after_accept'] as const;

/** Consumed by valid look-ups only: answers 503 (no authoritative answer). */
export const LOOKUP_FAULT_MODES = ['lookup_unavailable'] as const;

export const FAULT_MODES = ['latency', ...DECISIVE_FAULT_MODES, ...LOOKUP_FAULT_MODES] as const;

export type FaultMode = (typeof FAULT_MODES)[number];

/**
 * How a `rate_limit` answer says when to come back, as the providers the sandbox imitates do:
 * `retry_after` (the default) `Retry-After: <seconds>`; `retry_after_date` the same instant as
 * an HTTP-date (RFC 9110 allows both forms); `ratelimit` Retry-After beside the IETF draft's
 * `RateLimit-Remaining`/`RateLimit-Reset`, the set Resend sends and the quota answers with;
 * `none` no hint at all (Twilio and Postmark document none).
 */
export const THROTTLE_HEADER_SETS = ['retry_after', 'retry_after_date', 'ratelimit', 'none'] as const;

export type ThrottleHeaderSet = (typeof THROTTLE_HEADER_SETS)[number];
export type DecisiveFaultMode = (typeof DECISIVE_FAULT_MODES)[number];

/** A fault as set by `POST /faults` or `faults.set()`, and as listed by `GET /faults`. */
export interface FaultSpec {
  mode: FaultMode;
  /** Applies to the next `count` sends that reach it; 0 clears the mode. */
  count?: number;
  /** Applies to each send with this probability; 0 clears the mode. */
  probability?: number;
  /** `rate_limit` only; default 1. */
  retry_after_seconds?: number;
  /** `rate_limit` only; default `retry_after`. */
  throttle_headers?: ThrottleHeaderSet;
  /** `latency` only; required. */
  latency_ms?: number;
}

/** What the sandbox should do with one valid send. */
export interface SendFaultPlan {
  latencyMs: number;
  action: { mode: 'none' } | { mode: 'rate_limit'; retryAfterSeconds: number; headers: ThrottleHeaderSet } | { mode: Exclude<DecisiveFaultMode, 'rate_limit'> };
}

/** A fault request that cannot be applied; `field` names the offending field. */
export class FaultSpecError extends SpecError {
  override readonly name = 'FaultSpecError';
}

const KNOWN_FIELDS = new Set(['mode', 'count', 'probability', 'retry_after_seconds', 'throttle_headers', 'latency_ms']);
const MAX_COUNT = 1_000_000;
// A day: enough for any test, small enough that a typo does not wedge a client forever.
const MAX_RETRY_AFTER_SECONDS = 86_400;
// Ten minutes, the longest a test could reasonably want to wait for one answer.
const MAX_LATENCY_MS = 600_000;

function isFaultMode(value: unknown): value is FaultMode {
  return typeof value === 'string' && (FAULT_MODES as readonly string[]).includes(value);
}

function integerIn(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new FaultSpecError(field, `${field} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** Validates untrusted input into a FaultSpec, or throws FaultSpecError naming the bad field. */
export function parseFaultSpec(input: unknown): FaultSpec {
  const raw = specBody(input, FaultSpecError, KNOWN_FIELDS);
  if (!isFaultMode(raw.mode)) {
    throw new FaultSpecError('mode', `mode must be one of ${FAULT_MODES.join(', ')}`);
  }
  const spec: FaultSpec = { mode: raw.mode };
  const hasCount = raw.count !== undefined;
  const hasProbability = raw.probability !== undefined;
  if (hasCount === hasProbability) {
    throw new FaultSpecError('count', 'give exactly one of count or probability');
  }
  if (hasCount) spec.count = integerIn(raw.count, 'count', 0, MAX_COUNT);
  if (hasProbability) {
    const p = raw.probability;
    if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > 1) {
      throw new FaultSpecError('probability', 'probability must be a number from 0 to 1');
    }
    spec.probability = p;
  }
  if (raw.retry_after_seconds !== undefined) {
    if (spec.mode !== 'rate_limit') {
      throw new FaultSpecError('retry_after_seconds', 'retry_after_seconds applies to rate_limit only');
    }
    spec.retry_after_seconds = integerIn(raw.retry_after_seconds, 'retry_after_seconds', 0, MAX_RETRY_AFTER_SECONDS);
  }
  if (raw.throttle_headers !== undefined) {
    if (spec.mode !== 'rate_limit') {
      throw new FaultSpecError('throttle_headers', 'throttle_headers applies to rate_limit only');
    }
    const headers = raw.throttle_headers;
    if (typeof headers !== 'string' || !(THROTTLE_HEADER_SETS as readonly string[]).includes(headers)) {
      throw new FaultSpecError('throttle_headers', `throttle_headers must be one of ${THROTTLE_HEADER_SETS.join(', ')}`);
    }
    spec.throttle_headers = headers as ThrottleHeaderSet;
  }
  if (raw.latency_ms !== undefined && spec.mode !== 'latency') {
    throw new FaultSpecError('latency_ms', 'latency_ms applies to latency only');
  }
  if (spec.mode === 'latency') {
    if (raw.latency_ms === undefined) {
      throw new FaultSpecError('latency_ms', 'latency_ms is required for latency');
    }
    spec.latency_ms = integerIn(raw.latency_ms, 'latency_ms', 0, MAX_LATENCY_MS);
  }
  return spec;
}

interface ArmedFault {
  spec: FaultSpec;
  /** Remaining sends for a count fault; null for a probability fault. */
  remaining: number | null;
}

/** The armed faults of one sandbox; the same object backs `/faults` and the in-process API. */
export class FaultController {
  readonly #random: RandomSource;
  readonly #armed = new Map<FaultMode, ArmedFault>();

  constructor(random: RandomSource) {
    this.#random = random;
  }

  /** Arms (or with count/probability 0, clears) one mode, replacing its previous setting; throws FaultSpecError on bad input. */
  set(input: FaultSpec): void {
    const spec = parseFaultSpec(input);
    if (spec.count === 0 || spec.probability === 0) {
      this.#armed.delete(spec.mode);
      return;
    }
    this.#armed.set(spec.mode, { spec, remaining: spec.count ?? null });
  }

  /** Clears one mode, or every mode when called without one. */
  clear(mode?: FaultMode): void {
    if (mode === undefined) this.#armed.clear();
    else this.#armed.delete(mode);
  }

  /** Lists the armed faults in evaluation order; a count fault shows its remaining count. */
  list(): FaultSpec[] {
    const listed: FaultSpec[] = [];
    for (const mode of FAULT_MODES) {
      const armed = this.#armed.get(mode);
      if (armed === undefined) continue;
      const spec: FaultSpec = { ...armed.spec };
      if (armed.remaining !== null) spec.count = armed.remaining;
      if (mode === 'rate_limit' && spec.retry_after_seconds === undefined) {
        spec.retry_after_seconds = 1;
      }
      listed.push(spec);
    }
    return listed;
  }

  /** Decides the faults for one valid send, consuming count faults that trigger (and only those). */
  planSend(): SendFaultPlan {
    const latency = this.#trigger('latency');
    const latencyMs = latency?.latency_ms ?? 0;
    for (const mode of DECISIVE_FAULT_MODES) {
      const spec = this.#trigger(mode);
      if (spec === null) continue;
      if (mode === 'rate_limit') {
        return {
          latencyMs,
          action: {
            mode,
            retryAfterSeconds: spec.retry_after_seconds ?? 1,
            headers: spec.throttle_headers ?? 'retry_after',
          },
        };
      }
      return { latencyMs, action: { mode } };
    }
    return { latencyMs, action: { mode: 'none' } };
  }

  /** Decides whether one valid look-up fails with 503, consuming a `lookup_unavailable` count if it triggers. */
  planLookup(): 'unavailable' | 'none' {
    return this.#trigger('lookup_unavailable') === null ? 'none' : 'unavailable';
  }

  #trigger(mode: FaultMode): FaultSpec | null {
    const armed = this.#armed.get(mode);
    if (armed === undefined) return null;
    if (armed.remaining !== null) {
      armed.remaining -= 1;
      if (armed.remaining <= 0) this.#armed.delete(mode);
      return armed.spec;
    }
    // Draw only for armed probability faults, so arming a count fault never shifts the draws.
    return this.#random() < (armed.spec.probability ?? 0) ? armed.spec : null;
  }
}
