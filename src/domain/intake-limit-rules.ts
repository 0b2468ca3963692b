/**
 * The limits on the way in (docs/abuse-limits.md), as values and pure arithmetic: how many
 * requests one API key may make per fixed window, how many codes one destination or recipient
 * may be sent per sliding window and purpose, and which countries SMS may go to. The store
 * keeps the counts; intake and the HTTP layer decide with these functions, time passed in.
 */
import type { Purpose } from './vocabulary.js';

/** What a refusal names: the limit that applied. Also the label values of the refusal counter. */
export const INTAKE_LIMIT_NAMES = ['request_rate', 'destination_velocity', 'recipient_velocity', 'sms_country', 'sms_number_type'] as const;
export type IntakeLimitName = (typeof INTAKE_LIMIT_NAMES)[number];

/** What a velocity rule counts: codes to one destination (phone number, address) or to one recipient id. */
export const VELOCITY_SUBJECTS = ['destination', 'recipient'] as const;
export type VelocitySubject = (typeof VELOCITY_SUBJECTS)[number];

/** At most `max` notifications of a purpose per `subject` in any `windowMs` (sliding). */
export interface VelocityRule {
  subject: VelocitySubject;
  max: number;
  windowMs: number;
}

/** At most `limit` requests per fixed window of `windowS` seconds, per API key (or dashboard user). */
export interface RequestQuota {
  limit: number;
  windowS: number;
}

/** The whole policy, resolved from config `limits` (src/config/limits-config.ts). */
export interface IntakeLimitsPolicy {
  /** The default per-key quota; null: no request limit. */
  requests: RequestQuota | null;
  /** Per API key id (or dashboard user id): its own quota instead of the default. */
  requestOverrides: Readonly<Record<string, RequestQuota>>;
  /** Per purpose, the velocity rules its notifications pass at intake (a purpose not listed has none). */
  velocity: Readonly<Partial<Record<Purpose, readonly VelocityRule[]>>>;
  /** ISO 3166-1 alpha-2 codes SMS may be sent to; null: every country (not configured, warned at startup). */
  smsCountries: readonly string[] | null;
  /** libphonenumber number types SMS is never sent to (e.g. PREMIUM_RATE). */
  smsRefusedNumberTypes: readonly string[];
}

/** No limits at all: what a caller that configures none (most tests) gets. */
export const NO_INTAKE_LIMITS: IntakeLimitsPolicy = Object.freeze({
  requests: null,
  requestOverrides: {},
  velocity: {},
  smsCountries: null,
  smsRefusedNumberTypes: [],
});

/** The quota that applies to one key: its override, else the default (null: unlimited). */
export function quotaFor(policy: IntakeLimitsPolicy, subjectId: string): RequestQuota | null {
  return policy.requestOverrides[subjectId] ?? policy.requests;
}

/** The fixed window `now` falls in: its start (epoch ms, a multiple of the window) and when it ends. */
export function fixedWindow(now: number, windowS: number): { start: number; resetAt: number } {
  const ms = windowS * 1000;
  const start = Math.floor(now / ms) * ms;
  return { start, resetAt: start + ms };
}

/** What one counted request may do: allowed while its count is within the quota; what is left; whole seconds to the reset (≥ 1). */
export function requestVerdict(quota: RequestQuota, count: number, now: number): { allowed: boolean; remaining: number; resetS: number } {
  const { resetAt } = fixedWindow(now, quota.windowS);
  return { allowed: count <= quota.limit, remaining: Math.max(0, quota.limit - count), resetS: Math.max(1, Math.ceil((resetAt - now) / 1000)) };
}

/**
 * A velocity rule's answer given the times (epoch ms) of the events it counts, newest first,
 * at most `max` of them inside the window: refused when `max` are, until the oldest of those
 * leaves the window (then one more fits).
 */
export function velocityVerdict(
  rule: VelocityRule,
  recentNewestFirst: readonly number[],
  now: number,
): { allowed: true } | { allowed: false; retryAt: number } {
  const inWindow = recentNewestFirst.filter((t) => t > now - rule.windowMs);
  if (inWindow.length < rule.max) return { allowed: true };
  return { allowed: false, retryAt: inWindow[rule.max - 1]! + rule.windowMs };
}

/** The limit name a velocity rule's refusal carries. */
export function velocityLimitName(subject: VelocitySubject): IntakeLimitName {
  return subject === 'destination' ? 'destination_velocity' : 'recipient_velocity';
}
