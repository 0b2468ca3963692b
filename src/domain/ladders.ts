/**
 * Retry ladders by purpose: how a one-time code, a receipt, a chat message, a newsletter and
 * an incident alert are retried. Each is a named RetryPolicy; the README renders them as
 * tables of offsets (test/domain/ladders.test.ts keeps the two in step). Every ladder is
 * bounded twice: by its attempt cap and by the message's expires_at (decide() checks it).
 */
import { plannedDelayMs, type RetryPolicy } from './retry-policy.js';
import type { Purpose } from './vocabulary.js';

export const LADDER_NAMES = ['otp', 'transactional', 'conversational', 'marketing', 'alert'] as const;
export type LadderName = (typeof LADDER_NAMES)[number];

export interface Ladder extends RetryPolicy {
  name: LadderName;
  /** One line for the docs and the API. */
  summary: string;
}

const s = (n: number) => n * 1_000;
const m = (n: number) => n * 60_000;
const h = (n: number) => n * 3_600_000;

export const LADDERS: Readonly<Record<LadderName, Ladder>> = {
  // 13 attempts over 5 min 28 s: eight in the first minute, while the person is looking at the
  // screen, then thinning out. Jitter only ever delays (up to +10%), so no attempt comes
  // earlier than its documented offset; the code's expiry (default 10 min) ends it anyway.
  otp: {
    name: 'otp',
    summary: 'dense for the first minute, 13 attempts over about 5.5 minutes',
    maxAttempts: 13,
    scheduleMs: [s(1), s(2), s(4), s(6), s(9), s(13), s(18), s(25), s(35), s(50), s(70), s(95)],
    baseDelayMs: s(1),
    maxDelayMs: s(95),
    jitter: 'up10',
  },
  // Minutes of exponential backoff (a provider blip), then hours (an outage): a receipt is
  // still worth sending late. 10 attempts over at most 11 h 15 min 30 s, within the 24 h default expiry.
  transactional: {
    name: 'transactional',
    summary: 'exponential for minutes, then hourly steps up to 4 h; 10 attempts',
    maxAttempts: 10,
    scheduleMs: [s(30), m(1), m(2), m(4), m(8), h(1), h(2), h(4), h(4)],
    baseDelayMs: s(30),
    maxDelayMs: h(4),
    jitter: 'equal',
  },
  // A chat message loses its value within minutes: fast first retries, then a 1-minute cap.
  conversational: {
    name: 'conversational',
    summary: 'fast first retries (2 s, 5 s, 10 s, 30 s), then every minute; 10 attempts',
    maxAttempts: 10,
    scheduleMs: [s(2), s(5), s(10), s(30), m(1)],
    baseDelayMs: s(2),
    maxDelayMs: m(1),
    jitter: 'equal',
  },
  // Slow exponential from 5 minutes with full jitter, capped at 6 hours: a campaign's retries
  // spread out and never crowd the codes' lane.
  marketing: {
    name: 'marketing',
    summary: 'slow exponential from 5 min with full jitter, capped at 6 h; 8 attempts',
    maxAttempts: 8,
    baseDelayMs: m(5),
    maxDelayMs: h(6),
    jitter: 'full',
  },
  // Keeps trying until the alert expires: quickly at first, then every 30 seconds.
  alert: {
    name: 'alert',
    summary: 'persistent: 5 s, 10 s, 20 s, then every 30 s until the alert expires',
    maxAttempts: 10_000,
    scheduleMs: [s(5), s(10), s(20), s(30)],
    baseDelayMs: s(5),
    maxDelayMs: s(30),
    jitter: 'equal',
  },
};

/** The ladder a purpose uses unless a notification or provider account overrides it. */
export function defaultLadderFor(purpose: Purpose): LadderName {
  return purpose;
}

/**
 * The ladder a delivery retries on: the notification's own choice, else its provider
 * account's choice for the purpose, else the purpose's. Written once: the worker and the
 * reconciler both schedule retries with it.
 */
export function ladderFor(purpose: Purpose, notificationLadder: LadderName | null, accountLadders?: Partial<Record<Purpose, LadderName>>): Ladder {
  return LADDERS[notificationLadder ?? accountLadders?.[purpose] ?? defaultLadderFor(purpose)];
}

/** True when `value` names a ladder. */
export function isLadderName(value: unknown): value is LadderName {
  return typeof value === 'string' && (LADDER_NAMES as readonly string[]).includes(value);
}

/**
 * Offsets (ms after the first attempt) at which each attempt starts if every attempt fails
 * at once and jitter adds nothing: the ladder as the docs show it.
 */
export function plannedOffsetsMs(ladder: RetryPolicy, limit = ladder.maxAttempts): number[] {
  const out = [0];
  for (let attempt = 1; attempt < Math.min(limit, ladder.maxAttempts); attempt++) {
    out.push(out[out.length - 1]! + plannedDelayMs(ladder, attempt));
  }
  return out;
}
