/**
 * Parses the `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header):
 * an RFC 8941 sf-string (`"…"`), or a bare token as Stripe and most APIs accept. At most
 * one field; 1-255 printable ASCII characters; anything else is a 400.
 */
import { HeraldError } from '../errors.js';

const BARE = /^[A-Za-z0-9!#$%&'*+\-.^_`|~:/=]+$/;
const QUOTED = /^"((?:[\x20\x21\x23-\x5B\x5D-\x7E]|\\["\\])*)"$/;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

function invalid(detail: string): HeraldError {
  return new HeraldError('idempotency_key_invalid', detail, [{ field: 'Idempotency-Key', message: detail }]);
}

/**
 * Returns the key from the raw header list (`request.raw.rawHeaders`), null when absent,
 * or throws `idempotency_key_invalid`.
 */
export function parseIdempotencyKey(rawHeaders: string[]): string | null {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === 'idempotency-key') values.push(rawHeaders[i + 1]!);
  }
  if (values.length === 0) return null;
  if (values.length > 1) throw invalid('send exactly one Idempotency-Key header');
  const raw = values[0]!.trim();
  let key: string;
  const quoted = QUOTED.exec(raw);
  if (quoted) {
    key = quoted[1]!.replace(/\\(["\\])/g, '$1');
  } else if (BARE.test(raw)) {
    key = raw;
  } else {
    throw invalid('must be a quoted string or a token of printable ASCII, without commas, spaces or control characters');
  }
  if (key.length === 0) throw invalid('must not be empty');
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw invalid(`must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  return key;
}
