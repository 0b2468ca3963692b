/**
 * How long a push is worth delivering, and how urgently, as the push services take it: every
 * adapter derives its TTL / expiration from the delivery's `expiresAt` on every attempt (a retry
 * ten minutes later carries ten minutes less), so a push service never holds a message past the
 * moment it stops being useful. Pure: time is passed in.
 */
import type { Purpose } from '../../domain/index.js';

/**
 * Whole seconds from `nowMs` until `expiresAt`, rounded down so the provider never holds the
 * message past it, never below 0 ("deliver now or never"), at most `maxSeconds` (the service's
 * own ceiling, e.g. FCM's 4 weeks).
 */
export function remainingSeconds(expiresAt: number, nowMs: number, maxSeconds: number): number {
  const left = Math.floor((expiresAt - nowMs) / 1000);
  if (!Number.isFinite(left) || left <= 0) return 0;
  return Math.min(left, maxSeconds);
}

/**
 * The purposes a push service should deliver at once, waking the device (FCM priority HIGH,
 * APNs priority 10, Web Push Urgency high): one-time codes and alerts, which are useless late.
 * Everything else may wait for the device's own schedule, which saves its battery.
 */
export function isUrgentPurpose(purpose: Purpose): boolean {
  return purpose === 'otp' || purpose === 'alert';
}

/** `apns-expiration` for `expiresAt`: its epoch second (rounded down, never past it), or 0 ("once, not stored") when nothing is left. */
export function apnsExpiration(expiresAt: number, nowMs: number): string {
  return remainingSeconds(expiresAt, nowMs, Number.MAX_SAFE_INTEGER) > 0 ? String(Math.floor(expiresAt / 1000)) : '0';
}

/** Web Push `Urgency` (RFC 8030 §5.3) for a purpose: high for urgent ones, low for marketing, else normal. */
export function webPushUrgency(purpose: Purpose): 'high' | 'normal' | 'low' {
  if (isUrgentPurpose(purpose)) return 'high';
  return purpose === 'marketing' ? 'low' : 'normal';
}
