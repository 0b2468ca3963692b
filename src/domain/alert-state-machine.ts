/**
 * The operator alert state machine, pure: from this evaluation's observations (alert-rules.ts)
 * and the stored state of each alert (rule, subject), what fires, what resolves, and what one
 * message (a "round") says. Rules it keeps:
 *
 * - **Once per episode.** An alert is announced `firing` once; while it keeps firing nothing
 *   more is said, unless a reminder interval is configured. `resolved` is announced only for an
 *   alert whose firing was announced, after its condition has been clear for the hold (0: the
 *   first evaluation that finds it clear).
 * - **A minimum gap between rounds.** Every round goes to every target, so the gap between two
 *   rounds is the gap between two messages to one target. Announcements that fall inside the
 *   gap wait and go out together in the next round; an alert that fires and resolves inside
 *   it is never announced at all (nothing is lost: nothing was ever said).
 * - **The caller commits with a compare-and-set.** Every changed state carries the version it
 *   was read at; a store that finds another version refuses the whole evaluation, so two
 *   processes evaluating at once send one round, not two.
 */
import {
  ALERT_RULES,
  alertKey,
  observe,
  resolvedLine,
  utcTime,
  type AlertObservation,
  type AlertRulesConfig,
  type AlertSignals,
  type QueueSample,
} from './alert-rules.js';

export type AlertStatus = 'firing' | 'clear';
export const ALERT_STATUSES: readonly AlertStatus[] = ['firing', 'clear'];

/** What a round said about an alert. A reminder is a `firing` announcement again. */
export type AnnouncementKind = 'firing' | 'resolved';
export const ANNOUNCEMENT_KINDS: readonly AnnouncementKind[] = ['firing', 'resolved'];

/** The stored state of one alert (rule, subject). */
export interface AlertState {
  rule: string;
  subject: string;
  status: AlertStatus;
  /** When the current status began (firing: when the condition was first seen). */
  since: number;
  /** While firing, when its condition was first seen clear again (the hold runs from here); else null. */
  clearSince: number | null;
  /** The latest firing line (also what the resolve line repeats). */
  line: string;
  value: number;
  /** What the last round that mentioned it said, or null when none did. */
  announced: AnnouncementKind | null;
  announcedAt: number | null;
  /** Rule memory between evaluations (the review rule's queue samples, JSON), else null. */
  memory: string | null;
  /** The stored version this state was read at; 0 for one never stored. */
  version: number;
}

export interface AlertPolicy {
  /** How long a condition must stay clear before the alert resolves; 0 resolves on the first clear evaluation. */
  resolveHoldMs: number;
  /** The minimum time between two rounds (so between two messages to one target). */
  minGapMs: number;
  /** Repeat a firing announcement this long after the last one while it keeps firing; null: never. */
  reminderMs: number | null;
}

export interface Announcement {
  rule: string;
  subject: string;
  kind: AnnouncementKind;
  /** True for a repeated firing announcement. */
  reminder: boolean;
  line: string;
}

/** One message to every target. */
export interface AlertRound {
  announcements: Announcement[];
  /** One line per announcement, then how many alerts fire in all. */
  lines: string[];
  /** A subject line for e-mail: `[Herald] 2 firing, 1 resolved`. */
  title: string;
}

export interface EvaluationInput {
  signals: AlertSignals;
  rules: AlertRulesConfig;
  policy: AlertPolicy;
  states: readonly AlertState[];
  now: number;
}

export interface Evaluation {
  /** Changed states, each with the version it was read at (the compare-and-set); empty when nothing changed. */
  changes: AlertState[];
  /** The round to send once `changes` committed, or null. */
  round: AlertRound | null;
  /** Every state after this evaluation (what GET /v1/alerts/active reads from the store). */
  states: AlertState[];
}

/** The state the review rule keeps its samples in: (review_queue_growing, all). */
const REVIEW_KEY = alertKey('review_queue_growing', 'all');

function parseSamples(memory: string | null): QueueSample[] {
  if (memory === null) return [];
  try {
    const v = JSON.parse(memory) as unknown;
    if (!Array.isArray(v)) return [];
    return (v as unknown[]).filter((s): s is QueueSample => {
      const r = s as Partial<QueueSample> | null;
      return typeof r?.at === 'number' && typeof r.size === 'number';
    });
  } catch {
    return [];
  }
}

/** The time of the last round: the latest announcement of any alert. */
export function lastRoundAt(states: readonly AlertState[]): number | null {
  let last: number | null = null;
  for (const s of states) if (s.announcedAt !== null && (last === null || s.announcedAt > last)) last = s.announcedAt;
  return last;
}

/**
 * One evaluation: observes the signals, moves each alert's state, and decides the round.
 * Deterministic in its input; `now` is the only time it knows.
 */
export function evaluateAlerts(input: EvaluationInput): Evaluation {
  const { now, policy } = input;
  const byKey = new Map(input.states.map((s) => [alertKey(s.rule, s.subject), s] as const));
  const firing = new Set([...byKey].filter(([, s]) => s.status === 'firing').map(([k]) => k));
  const review = byKey.get(REVIEW_KEY);
  const { observations, queueSamples } = observe({
    signals: input.signals,
    rules: input.rules,
    now,
    firing,
    queueSamples: parseSamples(review?.memory ?? null),
  });
  const seen = new Map<string, AlertObservation>(observations.map((o) => [alertKey(o.rule, o.subject), o]));

  const next = new Map<string, AlertState>();
  for (const [key, s] of byKey) next.set(key, { ...s });
  // 1. Status: what holds fires; what no longer holds clears once the hold has passed.
  for (const [key, o] of seen) {
    const s = next.get(key);
    if (!s) {
      next.set(key, {
        rule: o.rule,
        subject: o.subject,
        status: 'firing',
        since: now,
        clearSince: null,
        line: o.line,
        value: o.value,
        announced: null,
        announcedAt: null,
        memory: null,
        version: 0,
      });
    } else if (s.status === 'clear') {
      Object.assign(s, { status: 'firing', since: now, clearSince: null, line: o.line, value: o.value });
    } else {
      Object.assign(s, { clearSince: null, line: o.line, value: o.value });
    }
  }
  for (const [key, s] of next) {
    if (seen.has(key) || s.status !== 'firing') continue;
    const clearSince = s.clearSince ?? now;
    // The line becomes what the resolve announcement says, while the firing time is still known.
    if (now - clearSince >= policy.resolveHoldMs) Object.assign(s, { status: 'clear', since: now, clearSince: null, line: resolvedLine(s.line, s.since, now) });
    else s.clearSince = clearSince;
  }
  // The review rule's memory lives on its state whether or not it fires.
  const samples = JSON.stringify(queueSamples);
  const reviewState = next.get(REVIEW_KEY);
  if (reviewState) reviewState.memory = samples;
  else if (input.rules.review_queue_growing.enabled) {
    next.set(REVIEW_KEY, {
      rule: 'review_queue_growing',
      subject: 'all',
      status: 'clear',
      since: now,
      clearSince: null,
      line: '',
      value: 0,
      announced: null,
      announcedAt: null,
      memory: samples,
      version: 0,
    });
  }

  // 2. What is owed an announcement, and whether the gap lets a round go now.
  const owed: Announcement[] = [];
  for (const s of next.values()) {
    if (s.status === 'firing' && s.announced !== 'firing') owed.push({ rule: s.rule, subject: s.subject, kind: 'firing', reminder: false, line: s.line });
    else if (s.status === 'firing' && policy.reminderMs !== null && s.announcedAt !== null && now - s.announcedAt >= policy.reminderMs) {
      owed.push({ rule: s.rule, subject: s.subject, kind: 'firing', reminder: true, line: `still firing since ${utcTime(s.since, now)}: ${s.line}` });
    } else if (s.status === 'clear' && s.announced === 'firing') {
      owed.push({ rule: s.rule, subject: s.subject, kind: 'resolved', reminder: false, line: s.line });
    }
  }
  const last = lastRoundAt(input.states);
  let round: AlertRound | null = null;
  if (owed.length > 0 && (last === null || now - last >= policy.minGapMs)) {
    owed.sort(announcementOrder);
    for (const a of owed) Object.assign(next.get(alertKey(a.rule, a.subject))!, { announced: a.kind, announcedAt: now });
    round = composeRound(owed, [...next.values()].filter((s) => s.status === 'firing').length);
  }

  const changes = [...next].filter(([key, s]) => !sameState(byKey.get(key), s)).map(([, s]) => s);
  return { changes, round, states: [...next.values()] };
}

const RULE_ORDER: readonly string[] = ALERT_RULES;

/** Firing first, then resolved; within each, rule order, then subject. */
function announcementOrder(a: Announcement, b: Announcement): number {
  if (a.kind !== b.kind) return a.kind === 'firing' ? -1 : 1;
  return RULE_ORDER.indexOf(a.rule) - RULE_ORDER.indexOf(b.rule) || a.subject.localeCompare(b.subject);
}

function composeRound(announcements: Announcement[], firingCount: number): AlertRound {
  const fired = announcements.filter((a) => a.kind === 'firing').length;
  const resolved = announcements.length - fired;
  const parts = [fired > 0 ? `${fired} firing` : null, resolved > 0 ? `${resolved} resolved` : null].filter(Boolean);
  const lines = announcements.map((a) => a.line);
  lines.push(firingCount === 0 ? 'Nothing is firing now.' : `${firingCount} alert${firingCount === 1 ? '' : 's'} firing now.`);
  return { announcements, lines, title: `[Herald] ${parts.join(', ')}` };
}

function sameState(a: AlertState | undefined, b: AlertState): boolean {
  if (!a) return false;
  return (
    a.status === b.status &&
    a.since === b.since &&
    a.clearSince === b.clearSince &&
    a.line === b.line &&
    a.value === b.value &&
    a.announced === b.announced &&
    a.announcedAt === b.announcedAt &&
    a.memory === b.memory
  );
}

/**
 * The states to write back when no target took a round: the announcements are owed again, so
 * the next round carries them (each state at its new version, as the store returned it).
 */
export function unannounce(committed: readonly AlertState[], before: readonly AlertState[], round: AlertRound): AlertState[] {
  const prior = new Map(before.map((s) => [alertKey(s.rule, s.subject), s] as const));
  const announced = new Set(round.announcements.map((a) => alertKey(a.rule, a.subject)));
  return committed
    .filter((s) => announced.has(alertKey(s.rule, s.subject)))
    .map((s) => {
      const p = prior.get(alertKey(s.rule, s.subject));
      return { ...s, announced: p?.announced ?? null, announcedAt: p?.announcedAt ?? null };
    });
}
