/**
 * How the sandbox behaves when nothing is wrong: whether it deduplicates by Idempotency-Key
 * (like Resend and Telnyx) and how its delivery callbacks behave (delays, duplicates,
 * reordering, bounces, complaints). One validator serves `startSandbox({ behaviour })` and
 * `PUT /behaviour`, and the snake-case names are the wire names of both.
 */
import { SpecError, specBody } from './spec-error.js';

/** The full behaviour, as `GET /behaviour` lists it. */
export interface SandboxBehaviour {
  /** A repeated Idempotency-Key (same channel, within 24 h) replays the original acceptance. */
  dedupe_by_key: boolean;
  /** Emit a message's first callback, and wait for its delivery, before answering the send. */
  emit_before_response: boolean;
  /** Callback bodies carry `data.reference` (the Idempotency-Key). */
  include_reference: boolean;
  /** Per event: the probability that it is delivered a second time, with the same event id. */
  duplicate_probability: number;
  /** Per pair of consecutive events of a message: the probability that they are swapped. */
  reorder_probability: number;
  /** Per message: the probability that it ends `bounced` (email) or `failed` (sms, push) instead of `delivered`. */
  bounce_probability: number;
  /** Per delivered e-mail: the probability of a `complained` event after `delivered`. */
  complaint_probability: number;
  /** Wait before each emission, drawn uniformly from min..max (inclusive). */
  delay_ms: { min: number; max: number };
  /** Waits before the 2nd, 3rd... delivery attempt of one emission after a network error or 5xx. */
  retry_delays_ms: number[];
  /** Budget for one delivery attempt; running out counts as a network error. */
  delivery_timeout_ms: number;
}

/** Any subset of the behaviour: what `PUT /behaviour` and the start option take. */
export type BehaviourPatch = Partial<SandboxBehaviour>;

/** Returns the built-in behaviour: a well-behaved provider that does not deduplicate. */
export function defaultBehaviour(): SandboxBehaviour {
  return {
    dedupe_by_key: false,
    emit_before_response: false,
    include_reference: true,
    duplicate_probability: 0,
    reorder_probability: 0,
    bounce_probability: 0,
    complaint_probability: 0,
    delay_ms: { min: 0, max: 0 },
    // Three retries over ~2.6 s: "a few tries, like a real provider", short enough for tests.
    retry_delays_ms: [100, 500, 2_000],
    delivery_timeout_ms: 5_000,
  };
}

// Ten minutes: the longest a test could reasonably want one callback to wait.
const MAX_DELAY_MS = 600_000;
const MAX_RETRIES = 10;

/** A behaviour setting that cannot be applied; `field` names the offending field. */
export class BehaviourSpecError extends SpecError {
  override readonly name = 'BehaviourSpecError';
}

const BOOLEAN_FIELDS = ['dedupe_by_key', 'emit_before_response', 'include_reference'] as const;
const PROBABILITY_FIELDS = ['duplicate_probability', 'reorder_probability', 'bounce_probability', 'complaint_probability'] as const;
const KNOWN_FIELDS = new Set<string>([...BOOLEAN_FIELDS, ...PROBABILITY_FIELDS, 'delay_ms', 'retry_delays_ms', 'delivery_timeout_ms']);

function milliseconds(value: unknown, field: string, min = 0): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > MAX_DELAY_MS) {
    throw new BehaviourSpecError(field, `${field} must be an integer from ${min} to ${MAX_DELAY_MS}`);
  }
  return value;
}

/** Validates untrusted input into a BehaviourPatch, or throws BehaviourSpecError naming the bad field. */
export function parseBehaviourPatch(input: unknown): BehaviourPatch {
  const raw = specBody(input, BehaviourSpecError, KNOWN_FIELDS);
  const patch: BehaviourPatch = {};
  for (const field of BOOLEAN_FIELDS) {
    if (raw[field] === undefined) continue;
    if (typeof raw[field] !== 'boolean') throw new BehaviourSpecError(field, `${field} must be true or false`);
    patch[field] = raw[field];
  }
  for (const field of PROBABILITY_FIELDS) {
    const p = raw[field];
    if (p === undefined) continue;
    if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > 1) {
      throw new BehaviourSpecError(field, `${field} must be a number from 0 to 1`);
    }
    patch[field] = p;
  }
  if (raw.delay_ms !== undefined) {
    const d = raw.delay_ms;
    if (typeof d !== 'object' || d === null || Array.isArray(d)) {
      throw new BehaviourSpecError('delay_ms', 'delay_ms must be an object {min, max}');
    }
    const { min, max, ...rest } = d as Record<string, unknown>;
    if (Object.keys(rest).length > 0) throw new BehaviourSpecError('delay_ms', 'delay_ms takes only min and max');
    const lo = milliseconds(min ?? 0, 'delay_ms.min');
    const hi = milliseconds(max ?? lo, 'delay_ms.max');
    if (hi < lo) throw new BehaviourSpecError('delay_ms.max', 'delay_ms.max must not be below delay_ms.min');
    patch.delay_ms = { min: lo, max: hi };
  }
  if (raw.retry_delays_ms !== undefined) {
    const list = raw.retry_delays_ms;
    if (!Array.isArray(list) || list.length > MAX_RETRIES) {
      throw new BehaviourSpecError('retry_delays_ms', `retry_delays_ms must be a list of at most ${MAX_RETRIES} waits`);
    }
    patch.retry_delays_ms = list.map((ms) => milliseconds(ms, 'retry_delays_ms'));
  }
  if (raw.delivery_timeout_ms !== undefined) {
    patch.delivery_timeout_ms = milliseconds(raw.delivery_timeout_ms, 'delivery_timeout_ms', 1);
  }
  return patch;
}

function copy(behaviour: SandboxBehaviour): SandboxBehaviour {
  return { ...behaviour, delay_ms: { ...behaviour.delay_ms }, retry_delays_ms: [...behaviour.retry_delays_ms] };
}

/** The behaviour of one sandbox; the same object backs `/behaviour` and the in-process API. */
export class BehaviourController {
  readonly #initial: SandboxBehaviour;
  #current: SandboxBehaviour;

  /** Starts from the defaults with `initial` applied; throws BehaviourSpecError on bad input. */
  constructor(initial: BehaviourPatch = {}) {
    this.#initial = { ...defaultBehaviour(), ...parseBehaviourPatch(initial) };
    this.#current = copy(this.#initial);
  }

  /** Returns a copy of the behaviour in force. */
  get(): SandboxBehaviour {
    return copy(this.#current);
  }

  /** Applies the given fields, leaving the others as they are; throws BehaviourSpecError (changing nothing) on bad input. */
  set(patch: BehaviourPatch): SandboxBehaviour {
    this.#current = { ...this.#current, ...parseBehaviourPatch(patch) };
    return this.get();
  }

  /** Returns to the behaviour the sandbox started with. */
  reset(): SandboxBehaviour {
    this.#current = copy(this.#initial);
    return this.get();
  }
}
