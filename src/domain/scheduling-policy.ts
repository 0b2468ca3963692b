/**
 * A tenant's time-aware sending policy (docs/scheduling.md "The tenant's policy"): its default
 * time zone, quiet hours per purpose, frequency caps per purpose. What a tenant leaves out takes
 * the install's defaults. Pure: parsing, checking and resolving; the store keeps the JSON.
 */
import { CAP_ACTIONS, DEFAULT_FREQUENCY_CAPS, type CapAction, type PurposeCaps } from './frequency-caps.js';
import { DEFAULT_QUIET_HOURS, HOLDABLE_PURPOSES, formatClockTime, isTimeZone, parseClockTime, type QuietWindow } from './quiet-hours.js';
import { PURPOSES, type Purpose } from './vocabulary.js';

/** The policy as the API shows and takes it (snake_case, clock times as `HH:MM`, periods in seconds). */
export interface SchedulingPolicyJson {
  time_zone?: string | null;
  quiet_hours?: Partial<Record<Purpose, { start: string; end: string } | null>>;
  frequency_caps?: Partial<Record<Purpose, { caps: { max: number; period_seconds: number }[]; action: CapAction } | null>>;
}

/** The policy in force for one tenant: every purpose resolved. */
export interface SchedulingPolicy {
  timeZone: string;
  quietHours: Record<Purpose, QuietWindow | null>;
  frequencyCaps: Record<Purpose, PurposeCaps | null>;
}

/** The install's defaults: UTC, the windows and caps. */
export const DEFAULT_SCHEDULING_POLICY: SchedulingPolicy = {
  timeZone: 'UTC',
  quietHours: { ...DEFAULT_QUIET_HOURS },
  frequencyCaps: { ...DEFAULT_FREQUENCY_CAPS },
};

/** One problem with a policy body: the dotted field and what is wrong. */
export interface PolicyProblem {
  field: string;
  message: string;
}

const MAX_PERIOD_S = 90 * 86_400;

/** The problems of a policy body (empty when it is good). A schema has checked its shape; these are the rules it cannot say. */
export function policyProblems(p: SchedulingPolicyJson): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  if (p.time_zone != null && !isTimeZone(p.time_zone)) out.push({ field: 'time_zone', message: 'must be an IANA time zone name, e.g. Europe/Berlin' });
  for (const [purpose, w] of Object.entries(p.quiet_hours ?? {})) {
    if (w == null) continue;
    if (!(HOLDABLE_PURPOSES as readonly string[]).includes(purpose)) {
      out.push({
        field: `quiet_hours.${purpose}`,
        message: 'codes, alerts and receipts are never held: only marketing and conversational may have quiet hours',
      });
      continue;
    }
    const start = parseClockTime(w.start);
    const end = parseClockTime(w.end);
    if (start === null) out.push({ field: `quiet_hours.${purpose}.start`, message: 'must be a 24-hour time, e.g. 21:00' });
    if (end === null) out.push({ field: `quiet_hours.${purpose}.end`, message: 'must be a 24-hour time, e.g. 08:00' });
    if (start !== null && start === end) out.push({ field: `quiet_hours.${purpose}.end`, message: 'must differ from start (null turns quiet hours off)' });
  }
  for (const [purpose, c] of Object.entries(p.frequency_caps ?? {})) {
    if (c == null) continue;
    // The send-time check never reads a policy for a code (a held code is a failed sign-in), so a
    // cap on `otp` would be accepted and never applied: refused instead.
    if (purpose === 'otp') {
      out.push({
        field: 'frequency_caps.otp',
        message: 'codes are never held or capped (a code held back is a failed sign-in); limit how often codes are requested with limits.velocity instead',
      });
      continue;
    }
    if (!(CAP_ACTIONS as readonly string[]).includes(c.action)) out.push({ field: `frequency_caps.${purpose}.action`, message: 'must be defer or suppress' });
    c.caps.forEach((cap, i) => {
      if (!Number.isSafeInteger(cap.max) || cap.max < 1) out.push({ field: `frequency_caps.${purpose}.caps[${i}].max`, message: 'must be a whole number ≥ 1' });
      if (!Number.isSafeInteger(cap.period_seconds) || cap.period_seconds < 60 || cap.period_seconds > MAX_PERIOD_S) {
        out.push({ field: `frequency_caps.${purpose}.caps[${i}].period_seconds`, message: 'must be a whole number of seconds from 60 to 90 days' });
      }
    });
  }
  return out;
}

/** The policy in force: the tenant's choices over the install's defaults (a purpose set to null has none). */
export function resolvePolicy(p: SchedulingPolicyJson | null, defaults: SchedulingPolicy = DEFAULT_SCHEDULING_POLICY): SchedulingPolicy {
  const quietHours = { ...defaults.quietHours };
  const frequencyCaps = { ...defaults.frequencyCaps };
  for (const purpose of PURPOSES) {
    const w = p?.quiet_hours?.[purpose];
    if (w === null) quietHours[purpose] = null;
    else if (w !== undefined) quietHours[purpose] = { startMinute: parseClockTime(w.start) ?? 0, endMinute: parseClockTime(w.end) ?? 0 };
    const c = p?.frequency_caps?.[purpose];
    if (c === null) frequencyCaps[purpose] = null;
    else if (c !== undefined) frequencyCaps[purpose] = { caps: c.caps.map((x) => ({ max: x.max, periodMs: x.period_seconds * 1000 })), action: c.action };
  }
  return { timeZone: p?.time_zone ?? defaults.timeZone, quietHours, frequencyCaps };
}

/** A resolved policy as the API shows it: every purpose present. */
export function policyJson(p: SchedulingPolicy): Required<SchedulingPolicyJson> {
  return {
    time_zone: p.timeZone,
    quiet_hours: Object.fromEntries(
      PURPOSES.map((purpose) => {
        const w = p.quietHours[purpose];
        return [purpose, w ? { start: formatClockTime(w.startMinute), end: formatClockTime(w.endMinute) } : null];
      }),
    ),
    frequency_caps: Object.fromEntries(
      PURPOSES.map((purpose) => {
        const c = p.frequencyCaps[purpose];
        return [purpose, c ? { caps: c.caps.map((x) => ({ max: x.max, period_seconds: x.periodMs / 1000 })), action: c.action } : null];
      }),
    ),
  };
}
