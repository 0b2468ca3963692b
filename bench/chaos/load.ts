/**
 * The chaos run's load generator: N notifications over HTTP with bounded concurrency, a mix of
 * purposes and channel plans, and a fraction with TTLs of a few seconds so the challenge clock
 * runs out during the run. Each request carries its own Idempotency-Key, so a request whose
 * answer is lost (connection error, 5xx, 409 while the first copy is in flight) is retried with
 * the same key: the API replays the first 202 instead of creating a second notification.
 */

/** mulberry32: a small seeded PRNG (the same one the sandbox uses for its faults). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export type Channel = 'email' | 'sms' | 'push';
const PURPOSES = [
  ['otp', 0.3],
  ['transactional', 0.3],
  ['conversational', 0.1],
  ['marketing', 0.2],
  ['alert', 0.1],
] as const;

export interface PlannedNotification {
  index: number;
  idempotencyKey: string;
  body: Record<string, unknown>;
  channels: Channel[];
  shortTtl: boolean;
}

export interface LoadPlanOptions {
  seed: number;
  runId: string;
  /** Fraction of notifications with a TTL of `shortTtlSeconds` (default 0.1). */
  shortTtlFraction: number;
  /** [min, max] seconds for short TTLs (default [2, 5]). */
  shortTtlSeconds: [number, number];
  /** TTL of the rest, long enough to finish (default 3600). */
  longTtlSeconds: number;
}

function pick<T>(rnd: () => number, items: readonly T[]): T {
  return items[Math.floor(rnd() * items.length)]!;
}

function shuffle<T>(rnd: () => number, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** The i-th notification of a run: a pure function of (seed, i), whatever order requests go out in. */
export function planNotification(i: number, o: LoadPlanOptions): PlannedNotification {
  const rnd = mulberry32((o.seed ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0);
  let r = rnd();
  let purpose: string = PURPOSES[0][0];
  for (const [p, w] of PURPOSES) {
    if (r < w) {
      purpose = p;
      break;
    }
    r -= w;
  }
  let channels: Channel[];
  if (purpose === 'otp') channels = [pick(rnd, ['sms', 'sms', 'email'] as const)];
  else {
    const all = shuffle(rnd, ['email', 'sms', 'push'] as Channel[]);
    const size = rnd() < 0.45 ? 1 : rnd() < 0.6 ? 2 : 3;
    channels = all.slice(0, size);
  }
  const shortTtl = rnd() < o.shortTtlFraction;
  const [lo, hi] = o.shortTtlSeconds;
  const ttl = shortTtl ? lo + Math.floor(rnd() * (hi - lo + 1)) : o.longTtlSeconds;
  // 415-555-xxxx: fictional US numbers that libphonenumber accepts; never the sandbox's magic reject number.
  const phone = `+1415555${String(i % 10_000).padStart(4, '0')}`;
  const body: Record<string, unknown> = {
    recipient: { id: `chaos-${o.runId}-r${i}`, email: `user${i}@example.com`, phone, push_token: `chaos-token-${i}` },
    purpose,
    channels,
    content: { subject: `Chaos ${i}`, text: purpose === 'otp' ? `Your code is ${100_000 + (i % 900_000)}` : `Message ${i} of run ${o.runId}` },
    ttl_seconds: ttl,
    metadata: { chaos_run: o.runId, index: i },
  };
  return { index: i, idempotencyKey: `chaos-${o.runId}-${i}`, body, channels, shortTtl };
}

export interface IntakeRecord {
  index: number;
  /** Final HTTP status after retries; 0 when no answer was ever received. */
  status: number;
  /** The notification id from the 202 body. */
  id: string | null;
  channels: Channel[];
  shortTtl: boolean;
  /** Requests made for this notification (1 = no retry). */
  tries: number;
  /** Answers that were replays of an earlier 202 (Idempotent-Replayed: true). */
  replayed: boolean;
}

export interface LoadResult {
  records: IntakeRecord[];
  durationMs: number;
  latenciesMs: number[];
  retries: number;
  /** Statuses seen on individual tries, including ones retried away (e.g. 409, 503, network error = 0). */
  tryStatuses: Record<string, number>;
  /** True when the deadline stopped the generator before every notification was sent. */
  stoppedEarly: boolean;
}

export interface LoadOptions extends LoadPlanOptions {
  apiUrl: string;
  apiKey: string;
  count: number;
  concurrency: number;
  /** Stop issuing new requests after this epoch ms. */
  deadline: number;
  /** Called every `progressEvery` completed notifications. */
  onProgress?: (done: number, sent202: number) => void;
  progressEvery?: number;
  /** Checked before every request: true stops the generator (e.g. the API process died). */
  stop?: () => boolean;
}

const MAX_TRIES = 8;

function retriable(status: number): boolean {
  return status === 0 || status === 409 || status === 429 || status >= 500;
}

/** Sends the planned notifications; resolves when all have a final answer (or the deadline passed). */
export async function generateLoad(o: LoadOptions): Promise<LoadResult> {
  const started = Date.now();
  const records: IntakeRecord[] = [];
  const latenciesMs: number[] = [];
  const tryStatuses: Record<string, number> = {};
  let retries = 0;
  let next = 0;
  let done = 0;
  let sent202 = 0;
  let stoppedEarly = false;

  const sendOne = async (p: PlannedNotification): Promise<IntakeRecord> => {
    let status = 0;
    let id: string | null = null;
    let replayed = false;
    let tries = 0;
    const payload = JSON.stringify(p.body);
    while (tries < MAX_TRIES) {
      tries += 1;
      const t0 = performance.now();
      try {
        const res = await fetch(`${o.apiUrl}/v1/notifications`, {
          method: 'POST',
          headers: { authorization: `Bearer ${o.apiKey}`, 'content-type': 'application/json', 'idempotency-key': `"${p.idempotencyKey}"` },
          body: payload,
          signal: AbortSignal.timeout(30_000),
        });
        const json = (await res.json().catch(() => null)) as { id?: unknown } | null;
        status = res.status;
        if (status === 202 && json && typeof json.id === 'string') id = json.id;
        replayed = res.headers.get('idempotent-replayed') === 'true';
      } catch {
        status = 0; // no answer: the request may or may not have been committed; retry with the same key
      }
      latenciesMs.push(performance.now() - t0);
      tryStatuses[String(status)] = (tryStatuses[String(status)] ?? 0) + 1;
      if (!retriable(status) || Date.now() > o.deadline || o.stop?.()) break;
      retries += 1;
      await new Promise((r) => setTimeout(r, Math.min(2_000, 50 * 2 ** tries)));
    }
    return { index: p.index, status, id, channels: p.channels, shortTtl: p.shortTtl, tries, replayed };
  };

  const lane = async (): Promise<void> => {
    for (;;) {
      if (Date.now() > o.deadline || o.stop?.()) {
        stoppedEarly = next < o.count;
        return;
      }
      const i = next++;
      if (i >= o.count) return;
      const rec = await sendOne(planNotification(i, o));
      records.push(rec);
      done += 1;
      if (rec.status === 202) sent202 += 1;
      if (o.onProgress && done % (o.progressEvery ?? 1000) === 0) o.onProgress(done, sent202);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, lane));
  records.sort((a, b) => a.index - b.index);
  return { records, durationMs: Date.now() - started, latenciesMs, retries, tryStatuses, stoppedEarly };
}
