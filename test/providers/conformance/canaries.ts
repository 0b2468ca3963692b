/**
 * Distinctive values the conformance suites put where private data goes (destination, body,
 * one-time code, credentials), and the check that none of them comes back in what an adapter
 * reports. Outcomes and callback failures end up in logs, the dashboard and webhooks.
 */
import { expect } from 'vitest';

/** A one-time code no id, status or error code contains by chance. */
export const CANARY_CODE = '73190482';
export const CANARY_SUBJECT = 'Sign-in code for canary-heron';
export const CANARY_TEXT = `Use ${CANARY_CODE} to sign in, canary-wren. It expires in 10 minutes.`;

/**
 * The canaries to look for given a destination and the subject's credentials: each value, an
 * E.164 number also without its `+`, and the body's distinctive words on their own.
 */
export function leakCanaries(destination: string, credentials: readonly string[]): string[] {
  const values = [destination, CANARY_CODE, CANARY_SUBJECT, CANARY_TEXT, 'canary-wren', 'canary-heron', ...credentials];
  if (/^\+\d{6,}$/.test(destination)) values.push(destination.slice(1));
  return values.filter((value) => value !== '');
}

/** Every string anywhere inside `value`, keys excluded. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}

/** Fails the test if any string in `reported` (an outcome, a callback failure) contains a canary. */
export function expectNoLeak(reported: unknown, canaries: readonly string[]): void {
  const leaks = stringsIn(reported).flatMap((text) =>
    canaries.filter((canary) => text.toLowerCase().includes(canary.toLowerCase())).map((canary) => ({ text, canary })),
  );
  expect(leaks, 'an adapter reported private data').toEqual([]);
}
