/**
 * The purpose retry ladders, driven through `decide` the way a worker does (claim, a failed
 * outcome, wait until next_attempt_at, claim again) with an advancing clock, plus the docs
 * that render them: README.md's "## Retry ladders" tables and docs/retry-ladders.md are
 * parsed and compared with `plannedOffsetsMs` / `decide`, so docs and code cannot drift.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  LADDERS,
  LADDER_NAMES,
  PURPOSES,
  decide,
  defaultLadderFor,
  isLadderName,
  nextDelayMs,
  plannedDelayMs,
  plannedOffsetsMs,
  type DeliverySnapshot,
  type Ladder,
  type LadderName,
  type Random,
  type RetryPolicy,
  type SubmitOutcome,
  type Transition,
} from '../../src/domain/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const T0 = 1_700_000_000_000;
const SECOND = 1_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;
/** Far enough that no ladder meets it: 10,000 alert attempts take at most ~83 h. */
const FAR = 30 * 24 * HOUR;
/** Random's contract is [0, 1): the largest value it may return. */
const ALMOST_ONE = 1 - Number.EPSILON;
const constant =
  (r: number): Random =>
  () =>
    r;

const RETRYABLE: SubmitOutcome = { kind: 'retryable', code: 'http_503', message: 'unavailable' };
const THROTTLED_90S: SubmitOutcome = { kind: 'throttled', code: 'http_429', message: 'slow down', retryAfterMs: 90_000 };
const PERMANENT: SubmitOutcome = { kind: 'permanent', reason: 'invalid_destination', code: '21211', message: 'invalid number' };

const OTP_OFFSETS_S = [0, 1, 3, 7, 13, 22, 35, 53, 78, 113, 163, 233, 328];

interface DriveOptions {
  random: Random;
  /** expires_at, absolute. */
  expiresAt: number;
  /** When the first claim happens (default T0). */
  start?: number;
  /** The outcome of attempt n (1-based); a retryable failure unless said otherwise. */
  outcomeOf?: (attempt: number) => SubmitOutcome;
}

interface DriveResult {
  /** Absolute start time of every attempt (the claim that began a submission). */
  starts: number[];
  /** Every next_attempt_at decide() wrote. */
  scheduled: number[];
  /** The decision that ended the delivery. */
  end: Transition;
  /** `now` when it ended. */
  endedAt: number;
}

/**
 * Drives one delivery through decide(): claim when due (exactly at next_attempt_at), the
 * attempt fails at once, repeat until a decision makes it terminal. Every decision must apply.
 */
function drive(policy: RetryPolicy, o: DriveOptions): DriveResult {
  const start = o.start ?? T0;
  let d: DeliverySnapshot = { state: 'ready', terminalReason: null, attemptCount: 0, expiresAt: o.expiresAt, nextAttemptAt: null };
  let now = start;
  const starts: number[] = [];
  const scheduled: number[] = [];
  const ctx = () => ({ now, policy, random: o.random });
  for (let guard = 0; guard < 20_000; guard++) {
    if (d.nextAttemptAt !== null) now = Math.max(now, d.nextAttemptAt);
    const claim = decide(d, { type: 'claim' }, ctx());
    if (!claim.ok) throw new Error(`claim refused at attempt ${d.attemptCount + 1}: ${claim.reason}`);
    if (claim.to === 'terminal') return { starts, scheduled, end: claim, endedAt: now };
    d = { ...d, state: 'submitting', attemptCount: d.attemptCount + 1, nextAttemptAt: null };
    starts.push(now);
    const outcome = decide(d, { type: 'outcome', outcome: (o.outcomeOf ?? (() => RETRYABLE))(d.attemptCount) }, ctx());
    if (!outcome.ok) throw new Error(`outcome refused: ${outcome.reason}`);
    if (outcome.to === 'terminal') return { starts, scheduled, end: outcome, endedAt: now };
    if (outcome.to !== 'retryable' || outcome.nextAttemptAt === null) throw new Error(`unexpected ${outcome.to}`);
    scheduled.push(outcome.nextAttemptAt);
    d = { ...d, state: 'retryable', nextAttemptAt: outcome.nextAttemptAt };
  }
  throw new Error('the ladder never ended');
}

const offsets = (r: DriveResult): number[] => r.starts.map((t) => t - (r.starts[0] ?? 0));
const waits = (r: DriveResult): number[] => r.starts.slice(1).map((t, i) => t - (r.starts[i] as number));
const ladderList = (): Ladder[] => LADDER_NAMES.map((n) => LADDERS[n]);
const CAPPED: LadderName[] = ['otp', 'transactional', 'conversational', 'marketing'];
/** Ladders whose planned waits may decrease somewhere, with the reason documented. None today. */
const NON_MONOTONIC = new Set<LadderName>();

/** The wait jitter gives for planned wait d at random 0 and at random → 1 (no Retry-After). */
function jitterBounds(jitter: RetryPolicy['jitter'], d: number): { atZero: number; atOne: [number, number] } {
  switch (jitter) {
    case 'none':
      return { atZero: d, atOne: [d, d] };
    case 'up10':
      // d + 10 % of d, to the ms (d is a whole number of 10 ms on every ladder).
      return { atZero: d, atOne: [(d * 11) / 10 - 1, (d * 11) / 10] };
    case 'equal':
      return { atZero: d / 2, atOne: [d, d] };
    case 'full':
      return { atZero: Math.min(SECOND, d), atOne: [d, d] };
  }
}

// Any sequence of values in [0, 1), the extremes included.
const unitArb = fc.oneof(fc.constant(0), fc.constant(ALMOST_ONE), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }));
const randomArb: fc.Arbitrary<Random> = fc.array(unitArb, { minLength: 1, maxLength: 32 }).map((values) => {
  let i = 0;
  return () => values[i++ % values.length] as number;
});

describe('the ladders', () => {
  it('are one per purpose, each named for it', () => {
    expect([...LADDER_NAMES]).toEqual([...PURPOSES]);
    for (const p of PURPOSES) {
      expect(defaultLadderFor(p)).toBe(p);
      expect(LADDERS[p].name).toBe(p);
      expect(isLadderName(p)).toBe(true);
    }
    expect(isLadderName('bulk')).toBe(false);
  });

  it('otp: 13 attempts at the documented offsets, jitter up10', () => {
    expect(LADDERS.otp).toMatchObject({ maxAttempts: 13, jitter: 'up10' });
    expect(plannedOffsetsMs(LADDERS.otp)).toEqual(OTP_OFFSETS_S.map((s) => s * SECOND));
  });

  it('marketing: full jitter, a 6 h cap on the wait, 8 attempts', () => {
    expect(LADDERS.marketing).toMatchObject({ maxAttempts: 8, jitter: 'full', maxDelayMs: 6 * HOUR });
    expect(plannedDelayMs(LADDERS.marketing, 7)).toBe(320 * MINUTE);
    for (const n of [8, 9, 20, 1_000]) expect(plannedDelayMs(LADDERS.marketing, n)).toBe(6 * HOUR);
  });

  it('plannedOffsetsMs: a limit takes a prefix, never more than the cap', () => {
    for (const l of ladderList()) {
      const full = plannedOffsetsMs(l);
      expect(full).toHaveLength(l.maxAttempts);
      expect(plannedOffsetsMs(l, 3)).toEqual(full.slice(0, 3));
      expect(plannedOffsetsMs(l, l.maxAttempts + 5)).toEqual(full);
    }
  });
});

describe('the otp ladder through decide', () => {
  it('random = 0: the 13 attempts start exactly at the documented offsets; the 13th failure is exhausted', () => {
    const r = drive(LADDERS.otp, { random: constant(0), expiresAt: T0 + FAR });
    expect(offsets(r)).toEqual(OTP_OFFSETS_S.map((s) => s * SECOND));
    expect(r.end).toMatchObject({ from: 'submitting', on: 'outcome', to: 'terminal', terminalReason: 'exhausted', nextAttemptAt: null });
    expect(r.endedAt).toBe(r.starts[12]);
  });

  it('random → 1: each attempt at most 10 % after its documented offset', () => {
    const r = drive(LADDERS.otp, { random: constant(ALMOST_ONE), expiresAt: T0 + FAR });
    expect(offsets(r)).toEqual(OTP_OFFSETS_S.map((s) => s * 1_100));
    expect(r.end).toMatchObject({ terminalReason: 'exhausted' });
  });

  it('property: with any random, never earlier than documented, never later than offset × 1.1, exhausted after 13', () => {
    fc.assert(
      fc.property(randomArb, (random) => {
        const r = drive(LADDERS.otp, { random, expiresAt: T0 + FAR });
        const got = offsets(r);
        expect(got).toHaveLength(13);
        got.forEach((t, i) => {
          const documented = (OTP_OFFSETS_S[i] as number) * SECOND;
          expect(t).toBeGreaterThanOrEqual(documented);
          expect(t).toBeLessThanOrEqual((documented * 11) / 10);
        });
        expect(r.end).toMatchObject({ to: 'terminal', terminalReason: 'exhausted' });
      }),
      { numRuns: 300 },
    );
  });

  it('a 10-minute code whose first attempt comes at minute 9: 8 attempts, then expired, nothing scheduled past expiry', () => {
    const expiresAt = T0 + 10 * MINUTE;
    for (const r of [0, 0.5, ALMOST_ONE]) {
      const run = drive(LADDERS.otp, { random: constant(r), start: T0 + 9 * MINUTE, expiresAt });
      // 0, 1, 3, 7, 13, 22, 35, 53 s after minute 9 fit; the 9th (+78 s) would not.
      expect(run.starts).toHaveLength(8);
      if (r === 0) expect(offsets(run)).toEqual(OTP_OFFSETS_S.slice(0, 8).map((s) => s * SECOND));
      expect(run.end).toMatchObject({ on: 'outcome', to: 'terminal', terminalReason: 'expired', nextAttemptAt: null });
      for (const t of [...run.starts, ...run.scheduled]) expect(t).toBeLessThan(expiresAt);
    }
  });
});

describe('every ladder through decide', () => {
  it.each(LADDER_NAMES)('%s: random = 0 and random → 1 give exactly the jitter bounds of each planned wait', (name) => {
    const l = LADDERS[name];
    const planned = Array.from({ length: l.maxAttempts - 1 }, (_, i) => plannedDelayMs(l, i + 1));
    const low = drive(l, { random: constant(0), expiresAt: T0 + FAR });
    const high = drive(l, { random: constant(ALMOST_ONE), expiresAt: T0 + FAR });
    for (const run of [low, high]) {
      expect(run.starts).toHaveLength(l.maxAttempts);
      expect(run.end).toMatchObject({ to: 'terminal', terminalReason: 'exhausted' });
    }
    expect(waits(low)).toEqual(planned.map((d) => jitterBounds(l.jitter, d).atZero));
    waits(high).forEach((w, i) => {
      const [min, max] = jitterBounds(l.jitter, planned[i] as number).atOne;
      expect(w).toBeGreaterThanOrEqual(min);
      expect(w).toBeLessThanOrEqual(max);
    });
  });

  it.each(LADDER_NAMES)('%s: plannedOffsetsMs is what decide schedules at random = 0 with jitter none and up10', (name) => {
    for (const jitter of ['none', 'up10'] as const) {
      const run = drive({ ...LADDERS[name], jitter }, { random: constant(0), expiresAt: T0 + FAR });
      expect(offsets(run)).toEqual(plannedOffsetsMs(LADDERS[name]));
    }
  });

  it.each(LADDER_NAMES)('%s: a throttled answer with Retry-After 90 s moves the next attempt at least 90 s out', (name) => {
    const l = LADDERS[name];
    for (const random of [constant(0), constant(0.5), constant(ALMOST_ONE)]) {
      // Directly, at every rung that still has a next one (the first 50 for alert).
      for (let n = 1; n < Math.min(l.maxAttempts, 50); n++) {
        const d: DeliverySnapshot = { state: 'submitting', attemptCount: n, expiresAt: T0 + FAR, nextAttemptAt: null };
        const r = decide(d, { type: 'outcome', outcome: THROTTLED_90S }, { now: T0, policy: l, random });
        expect(r).toMatchObject({ ok: true, to: 'retryable' });
        expect(r.ok && (r.nextAttemptAt as number)).toBeGreaterThanOrEqual(T0 + 90_000);
      }
      // And in a run: attempt 2 is throttled; the ladder then resumes at its next rung.
      const run = drive(l, { random, expiresAt: T0 + FAR, outcomeOf: (n) => (n === 2 ? THROTTLED_90S : RETRYABLE) });
      expect(waits(run)[1]).toBeGreaterThanOrEqual(90_000);
      expect(run.starts).toHaveLength(l.maxAttempts);
    }
  });

  it.each(LADDER_NAMES)('%s: a permanent answer stops at once, rejected, at any rung', (name) => {
    for (const at of [1, 3]) {
      const run = drive(LADDERS[name], { random: constant(0.5), expiresAt: T0 + FAR, outcomeOf: (n) => (n === at ? PERMANENT : RETRYABLE) });
      expect(run.starts).toHaveLength(at);
      expect(run.end).toMatchObject({ on: 'outcome', to: 'terminal', terminalReason: 'rejected', nextAttemptAt: null });
    }
  });

  it('alert keeps going until expiry: a 1-hour alert ends expired, never exhausted, its last attempt within one wait of expiry', () => {
    const l = LADDERS.alert;
    for (const r of [0, 0.5, ALMOST_ONE]) {
      const expiresAt = T0 + HOUR;
      const run = drive(l, { random: constant(r), expiresAt });
      expect(run.end).toMatchObject({ to: 'terminal', terminalReason: 'expired' });
      expect(run.starts.length).toBeGreaterThan(100);
      expect(run.starts.length).toBeLessThan(l.maxAttempts);
      expect(expiresAt - (run.starts.at(-1) as number)).toBeLessThanOrEqual(l.maxDelayMs);
      for (const t of run.scheduled) expect(t).toBeLessThan(expiresAt);
    }
  });

  it('property: with expires_at anywhere, no ladder schedules at or after it; a stop before the cap is expired, and the refused wait really reached expiry', () => {
    const ends = new Set<string>();
    fc.assert(
      fc.property(
        fc.constantFrom(...LADDER_NAMES),
        unitArb,
        // expires_at anywhere from just after the first attempt to past the ladder's planned end
        // (alert: up to 2 h), so runs stop at every rung.
        fc.double({ min: 0, max: 1.25, noNaN: true }),
        (name, r, fraction) => {
          const l = LADDERS[name];
          const span = name === 'alert' ? 2 * HOUR : (plannedOffsetsMs(l).at(-1) as number);
          const expiresAt = T0 + Math.max(1, Math.round(fraction * span));
          const run = drive(l, { random: constant(r), expiresAt });
          for (const t of [...run.starts, ...run.scheduled]) expect(t).toBeLessThan(expiresAt);
          const n = run.starts.length;
          if (n < l.maxAttempts) {
            expect(run.end).toMatchObject({ on: 'outcome', terminalReason: 'expired' });
            // The wait decide() would have proposed after attempt n lands at or after expiry.
            expect(run.endedAt + nextDelayMs(l, n, constant(r))).toBeGreaterThanOrEqual(expiresAt);
          } else {
            expect(run.end).toMatchObject({ terminalReason: 'exhausted' });
          }
          ends.add(`${name}/${run.end.terminalReason}`);
        },
      ),
      { numRuns: 500 },
    );
    // Non-vacuity: every ladder was stopped by expiry, and every capped one also ran out.
    expect([...ends].sort()).toEqual([...LADDER_NAMES.map((n) => `${n}/expired`), ...CAPPED.map((n) => `${n}/exhausted`)].sort());
  });

  it('property: marketing full jitter keeps every wait within [1 s, d]', () => {
    const l = LADDERS.marketing;
    fc.assert(
      fc.property(randomArb, (random) => {
        const run = drive(l, { random, expiresAt: T0 + FAR });
        expect(run.starts).toHaveLength(8);
        waits(run).forEach((w, i) => {
          expect(w).toBeGreaterThanOrEqual(SECOND);
          expect(w).toBeLessThanOrEqual(plannedDelayMs(l, i + 1));
          expect(w).toBeLessThanOrEqual(6 * HOUR);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('property: equal and full jitter never start an attempt later than planned; up10 never earlier', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CAPPED), randomArb, (name, random) => {
        const l = LADDERS[name];
        const planned = plannedOffsetsMs(l);
        offsets(drive(l, { random, expiresAt: T0 + FAR })).forEach((t, i) => {
          if (l.jitter === 'up10') expect(t).toBeGreaterThanOrEqual(planned[i] as number);
          else expect(t).toBeLessThanOrEqual(planned[i] as number);
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('ladder shape', () => {
  it.each(LADDER_NAMES)(
    '%s: planned waits are positive whole ms, non-decreasing, within maxDelayMs; every schedule entry is used and under the cap',
    (name) => {
      const l = LADDERS[name];
      let previous = 0;
      for (let n = 1; n <= l.maxAttempts + 5; n++) {
        const d = plannedDelayMs(l, n);
        expect(Number.isInteger(d)).toBe(true);
        expect(d).toBeGreaterThan(0);
        expect(d).toBeLessThanOrEqual(l.maxDelayMs);
        if (!NON_MONOTONIC.has(name)) expect(d, `wait after attempt ${n}`).toBeGreaterThanOrEqual(previous);
        previous = d;
      }
      if (l.scheduleMs) {
        // The documented schedule is what runs: no entry silently cut by maxDelayMs, none unreachable.
        for (const entry of l.scheduleMs) expect(entry).toBeLessThanOrEqual(l.maxDelayMs);
        expect(l.scheduleMs.length).toBeLessThanOrEqual(l.maxAttempts - 1);
      }
      expect(l.maxAttempts).toBeGreaterThanOrEqual(2);
    },
  );

  it("property: a jittered wait (no Retry-After) is positive and within its mode's bounds of the planned wait", () => {
    fc.assert(
      fc.property(fc.constantFrom(...LADDER_NAMES), fc.integer({ min: 1, max: 40 }), unitArb, (name, n, u) => {
        const l = LADDERS[name];
        const d = plannedDelayMs(l, n);
        const w = nextDelayMs(l, n, constant(u));
        expect(Number.isInteger(w)).toBe(true);
        expect(w).toBeGreaterThan(0);
        const { atZero, atOne } = jitterBounds(l.jitter, d);
        expect(w).toBeGreaterThanOrEqual(atZero);
        expect(w).toBeLessThanOrEqual(atOne[1]);
        // maxDelayMs caps the planned wait; only up10 may go past it, by at most 10 %.
        expect(w).toBeLessThanOrEqual(l.jitter === 'up10' ? (l.maxDelayMs * 11) / 10 : l.maxDelayMs);
      }),
      { numRuns: 1_000 },
    );
  });
});

// ---------------------------------------------------------------------------------------
// The docs. Durations are written "1 h 15 min 30 s", "2.5 s", "0 s".

function parseDuration(text: string): number {
  const m = /^(?:(\d+) h)? ?(?:(\d+) min)? ?(?:(\d+(?:\.\d+)?) s)?$/.exec(text.trim());
  if (!m || (m[1] === undefined && m[2] === undefined && m[3] === undefined)) throw new Error(`not a duration: "${text}"`);
  return Math.round(Number(m[1] ?? 0) * HOUR + Number(m[2] ?? 0) * MINUTE + Number(m[3] ?? 0) * SECOND);
}

const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim().replaceAll('`', ''));

/** The markdown tables in `text`, each as rows of cells (separator row dropped). */
function tables(text: string): string[][][] {
  const out: string[][][] = [];
  let current: string[][] | null = null;
  for (const line of text.split('\n')) {
    if (line.trim().startsWith('|')) {
      if (!current) out.push((current = []));
      if (!/^\|(\s*:?-+:?\s*\|)+$/.test(line.trim())) current.push(cells(line));
    } else current = null;
  }
  return out;
}

/** The text between a heading line `heading` and the next heading of the same or a higher level. */
function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const level = heading.indexOf(' ');
  const starts = lines.flatMap((l, i) => (l.trim() === heading ? [i] : []));
  expect(starts, `exactly one "${heading}"`).toHaveLength(1);
  const start = starts[0] as number;
  let end = start + 1;
  while (end < lines.length && !new RegExp(`^#{1,${level}} `).test(lines[end] as string)) end++;
  return lines.slice(start + 1, end).join('\n');
}

/** Sub-sections `### name` (or `## name`) of `text` whose name is a ladder, in order. */
function ladderSections(text: string, level: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const parts = text.split(new RegExp(`^${level} `, 'm')).slice(1);
  for (const part of parts) {
    const [title, ...rest] = part.split('\n');
    const name = (title ?? '').trim().replaceAll('`', '');
    if (isLadderName(name)) out.push([name, rest.join('\n')]);
  }
  return out;
}

/**
 * Checks a documented sequence of per-attempt values against the code: `listed[i]` is the
 * value for attempt i+1. A trailing "every X" entry stands for all further attempts, and each
 * of the ladder's remaining planned waits must be X; otherwise every attempt up to the cap is listed.
 */
function expectMatchesLadder(l: Ladder, listed: number[], every: number | null, where: string): void {
  expect(listed, `${where}: listed start times`).toEqual(plannedOffsetsMs(l, listed.length));
  if (every === null) {
    expect(listed, `${where}: every attempt up to the cap`).toHaveLength(l.maxAttempts);
  } else {
    expect(listed.length, `${where}: "every" comes before the cap`).toBeLessThan(l.maxAttempts);
    for (let n = listed.length; n < l.maxAttempts; n++) expect(plannedDelayMs(l, n), `${where}: wait after attempt ${n}`).toBe(every);
  }
}

describe('README.md "## Retry ladders"', () => {
  const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const SECTION = section(README, '## Retry ladders');

  it('comes right after "## The six delivery states"', () => {
    const h2 = README.split('\n').filter((l) => l.startsWith('## '));
    expect(h2[h2.indexOf('## Retry ladders') - 1]).toBe('## The six delivery states');
  });

  it('states the two rules above every ladder', () => {
    expect(SECTION).toMatch(/Retry-After`? from the provider is a \*\*lower bound\*\*/);
    expect(SECTION).toMatch(/No attempt is scheduled at or after `expires_at`/);
  });

  it('has one sub-section per ladder, in order, each with its jitter, cap and longest wait', () => {
    const subs = ladderSections(SECTION, '###');
    expect(subs.map(([n]) => n)).toEqual([...LADDER_NAMES]);
    for (const [name, text] of subs) {
      const l = LADDERS[name as LadderName];
      expect(/\*\*Jitter:\*\* `(\w+)`/.exec(text)?.[1], `${name} jitter`).toBe(l.jitter);
      expect(Number(/\*\*Attempt cap:\*\* ([\d,]+)/.exec(text)?.[1]?.replaceAll(',', '')), `${name} cap`).toBe(l.maxAttempts);
      expect(parseDuration(/\*\*Longest wait:\*\* ([^.]+)\./.exec(text)?.[1] ?? ''), `${name} longest wait`).toBe(l.maxDelayMs);
    }
  });

  it("each ladder's table equals plannedOffsetsMs", () => {
    const subs = ladderSections(SECTION, '###');
    expect(subs).toHaveLength(LADDER_NAMES.length);
    for (const [name, text] of subs) {
      const l = LADDERS[name as LadderName];
      const ts = tables(text);
      expect(ts, `${name}: one table`).toHaveLength(1);
      const [header, row, ...rest] = ts[0] as string[][];
      expect(rest).toEqual([]);
      expect(header?.[0]).toBe('attempt');
      expect(row?.[0]).toBe('starts at');
      const attempts = (header ?? []).slice(1);
      const values = (row ?? []).slice(1);
      expect(values).toHaveLength(attempts.length);
      let every: number | null = null;
      if (attempts.at(-1) === '…') {
        attempts.pop();
        const m = /^every (.+)$/.exec(values.pop() ?? '');
        expect(m, `${name}: the "…" column says "every <wait>"`).not.toBeNull();
        every = parseDuration(m?.[1] ?? '');
      }
      expect(attempts).toEqual(attempts.map((_, i) => String(i + 1)));
      expectMatchesLadder(l, values.map(parseDuration), every, `README ${name}`);
    }
  });
});

describe('docs/retry-ladders.md', () => {
  const DOC = readFileSync(join(ROOT, 'docs/retry-ladders.md'), 'utf8');

  it('has one table per ladder: wait, planned start, and the earliest and latest start jitter allows', () => {
    const subs = ladderSections(DOC, '##');
    expect(subs.map(([n]) => n)).toEqual([...LADDER_NAMES]);
    for (const [name, text] of subs) {
      const l = LADDERS[name as LadderName];
      const ts = tables(text);
      expect(ts, `${name}: one table`).toHaveLength(1);
      const [header, ...rows] = ts[0] as string[][];
      expect(header).toEqual(['attempt', 'wait before it', 'starts at', 'earliest', 'latest']);
      let every: number | null = null;
      if (rows.at(-1)?.[0] === '…') {
        const m = /^every (.+)$/.exec(rows.pop()?.[1] ?? '');
        expect(m, `${name}: the "…" row says "every <wait>"`).not.toBeNull();
        every = parseDuration(m?.[1] ?? '');
      }
      expect(rows.map((r) => r[0])).toEqual(rows.map((_, i) => String(i + 1)));
      expect(rows[0]?.[1]).toBe('—');
      expect(rows.slice(1).map((r) => parseDuration(r[1] as string))).toEqual(rows.slice(1).map((_, i) => plannedDelayMs(l, i + 1)));
      expectMatchesLadder(
        l,
        rows.map((r) => parseDuration(r[2] as string)),
        every,
        `docs ${name}`,
      );
      // Earliest and latest: what decide() schedules at random = 0 and random → 1.
      const limit = rows.length;
      const earliest = offsets(drive(l, { random: constant(0), expiresAt: T0 + FAR })).slice(0, limit);
      const latest = offsets(drive(l, { random: constant(ALMOST_ONE), expiresAt: T0 + FAR })).slice(0, limit);
      expect(
        rows.map((r) => parseDuration(r[3] as string)),
        `${name} earliest`,
      ).toEqual(earliest);
      expect(
        rows.map((r) => parseDuration(r[4] as string)),
        `${name} latest`,
      ).toEqual(latest);
    }
  });
});
