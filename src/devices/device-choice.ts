/**
 * Which device of an account gets a message: a pure ranking by health. A device is online when
 * it was seen within the away threshold (every call, SSE keep-alive included, counts); among
 * online devices, one that reports a SIM comes first, then fewer recent failures before
 * sending, then a shorter queue, then the most recently seen. Pacing (device-pacing.ts) then
 * walks the ranking until a device has a permit.
 */
import type { DeviceLoad, DeviceRecord } from '../store/store.js';

export interface DeviceHealth {
  device: DeviceRecord;
  online: boolean;
  /** When the device went quiet, if it is away now. */
  awaySince: number | null;
  queueDepth: number;
  recentFailures: number;
  /** False only when the app reported no SIM at all (null: it did not say). */
  hasSim: boolean;
}

/** A device's health at `now`: online within `awayMs` of its last call. */
export function deviceHealth(device: DeviceRecord, load: DeviceLoad | undefined, now: number, awayMs: number): DeviceHealth {
  const online = now - device.lastSeenAt <= awayMs;
  return {
    device,
    online,
    awaySince: online ? null : device.lastSeenAt,
    queueDepth: load?.queueDepth ?? 0,
    recentFailures: load?.recentFailures ?? 0,
    hasSim: device.simCards === null || device.simCards.length > 0,
  };
}

/** The online devices, best first. */
export function rankDevices(health: readonly DeviceHealth[]): DeviceHealth[] {
  return health
    .filter((h) => h.online)
    .sort(
      (a, b) =>
        Number(b.hasSim) - Number(a.hasSim) ||
        a.recentFailures - b.recentFailures ||
        a.queueDepth - b.queueDepth ||
        b.device.lastSeenAt - a.device.lastSeenAt ||
        a.device.id.localeCompare(b.device.id),
    );
}
