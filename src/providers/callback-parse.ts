/**
 * The pieces of a CallbackParse every provider's callback verifier answers with: the two
 * refusals (400 `callback_malformed` for a body or header that cannot be read, 401
 * `callback_signature_invalid` for a signature that does not verify) and the one header
 * lookup (names compared lower-cased, a repeated header's first value).
 */
import type { CallbackParse, CallbackRequest } from './provider.js';

/** A refused callback (or inbound webhook): its status, code and why. */
type CallbackRefusal = Extract<CallbackParse, { ok: false }>;

/** 400 `callback_malformed`: the request cannot be read as this provider's callback. */
export function malformed(detail: string): CallbackRefusal {
  return { ok: false, status: 400, code: 'callback_malformed', detail };
}

/** 401 `callback_signature_invalid`: the request is not proven to come from the provider. */
export function refused(detail: string): CallbackRefusal {
  return { ok: false, status: 401, code: 'callback_signature_invalid', detail };
}

/** The first value of header `name` (lower-case), whatever case the request used; undefined when absent. */
export function header(headers: CallbackRequest['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** A callback body parsed as a JSON object, or the `callback_malformed` refusal saying why it is not one (never quoting it). */
export function jsonObjectBody(rawBody: Buffer): { ok: true; body: Record<string, unknown> } | { ok: false; refusal: CallbackParse } {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return { ok: false, refusal: malformed('body is not JSON') };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, refusal: malformed('body is not an object') };
  return { ok: true, body: body as Record<string, unknown> };
}
