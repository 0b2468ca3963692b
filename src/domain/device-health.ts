/**
 * A phone's own health, pure: what the SMSGate app's `system:ping` says (its `HealthResponse`,
 * app `domain/HealthResponse.kt`, `modules/health/`), read into one sample, and the thresholds
 * Herald acts on (device choice, operator alerts). The app reports, as checks named
 * `<module>:<check>` with an integer `observedValue`:
 *
 * - `battery:level` percent; `battery:charging` flags: 1 = charging, 2 = on AC, 4 = on USB
 *   (`BatteryMonitor.kt`; a full battery on its charger is 2 or 4 without 1);
 * - `connection:status` 1/0 (Internet available), `connection:transport` flags: 1 unknown,
 *   2 cellular, 4 Wi-Fi, 8 Ethernet, `connection:cellular` the index of None, Unknown, 2G, 3G,
 *   4G, 5G (`ConnectionService.kt`, `CellularNetworkType.kt`, `TransportType.kt`);
 * - `messages:failed` messages failed in the last hour;
 * - `version` (the app's version name) and `releaseId`.
 *
 * No signal strength: the app does not report one (null here, shown as "not reported").
 */

export interface DeviceHealthSample {
  batteryPercent: number | null;
  /** On power: charging, or plugged in (a full battery on its charger). */
  charging: boolean | null;
  internet: boolean | null;
  /** `wifi`, `cellular`, `ethernet` (several at once possible), empty when none. */
  transports: string[] | null;
  /** `none`, `unknown`, `2g` … `5g`. */
  cellular: string | null;
  /** Not reported by the app today; kept for a report that has it. */
  signal: number | null;
  failedLastHour: number | null;
  appVersion: string | null;
}

const CELLULAR = ['none', 'unknown', '2g', '3g', '4g', '5g'] as const;
const TRANSPORT_BITS: ReadonlyArray<[number, string]> = [
  [2, 'cellular'],
  [4, 'wifi'],
  [8, 'ethernet'],
];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function observed(checks: Json, name: string): number | null {
  const c = checks[name];
  if (!isObject(c)) return null;
  const v = c.observedValue;
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Reads a `system:ping` payload's `health`; null when it carries no check Herald knows. */
export function readPingHealth(health: unknown): DeviceHealthSample | null {
  if (!isObject(health)) return null;
  const checks = isObject(health.checks) ? health.checks : {};
  const level = observed(checks, 'battery:level');
  const charging = observed(checks, 'battery:charging');
  const status = observed(checks, 'connection:status');
  const transport = observed(checks, 'connection:transport');
  const cellular = observed(checks, 'connection:cellular');
  const failed = observed(checks, 'messages:failed');
  const version = typeof health.version === 'string' && health.version.length <= 64 ? health.version : null;
  const sample: DeviceHealthSample = {
    batteryPercent: level === null ? null : Math.max(0, Math.min(100, Math.round(level))),
    charging: charging === null ? null : (charging & 7) !== 0,
    internet: status === null ? null : status === 1,
    transports: transport === null ? null : TRANSPORT_BITS.filter(([bit]) => (transport & bit) !== 0).map(([, name]) => name),
    cellular: cellular === null ? null : (CELLULAR[cellular] ?? 'unknown'),
    signal: null,
    failedLastHour: failed === null ? null : Math.max(0, Math.trunc(failed)),
    appVersion: version,
  };
  const known = Object.entries(sample).some(([k, v]) => k !== 'signal' && v !== null);
  return known ? sample : null;
}

/** Below this battery level, not charging, a phone is low: an alert, and chosen last. */
export const LOW_BATTERY_PERCENT = 15;
/** A phone that has not pinged for its interval times this is overdue. */
export const PING_OVERDUE_FACTOR = 3;

/** Battery below 15 % and not on power (an unknown charging state counts as not charging). */
export function isLowBattery(s: Pick<DeviceHealthSample, 'batteryPercent' | 'charging'> | null): boolean {
  return s !== null && s.batteryPercent !== null && s.batteryPercent < LOW_BATTERY_PERCENT && s.charging !== true;
}

/** No ping for longer than `intervalSeconds` × 3 (false when the device never pinged: nothing was promised). */
export function isPingOverdue(lastPingAt: number | null, intervalSeconds: number, now: number): boolean {
  return lastPingAt !== null && now - lastPingAt > intervalSeconds * PING_OVERDUE_FACTOR * 1000;
}

/** The phone says it has no Internet while Herald still holds offers for it. */
export function isOfflineWithQueue(s: Pick<DeviceHealthSample, 'internet'> | null, queuedOffers: number): boolean {
  return s !== null && s.internet === false && queuedOffers > 0;
}

/**
 * Where a device stands in the choice by its health: 0 fine (or nothing reported), 1 low
 * battery and not charging (used last: the phone may die mid-send, and sending drains it).
 */
export function healthChoiceRank(s: Pick<DeviceHealthSample, 'batteryPercent' | 'charging'> | null): 0 | 1 {
  return isLowBattery(s) ? 1 : 0;
}
