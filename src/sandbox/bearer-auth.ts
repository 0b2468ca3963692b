/**
 * The sandbox's one credential rule, shared by sends and look-ups: with an API key configured,
 * a request must carry `Authorization: Bearer <key>`, compared in constant time.
 */
import { timingSafeEqual } from 'node:crypto';

/** True when no key is configured, or the header is exactly `Bearer <apiKey>`. */
export function authorized(header: string | undefined, apiKey: string | undefined): boolean {
  if (apiKey === undefined) return true;
  if (header === undefined) return false;
  const expected = Buffer.from(`Bearer ${apiKey}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
