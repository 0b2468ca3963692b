/**
 * Look-up by reference against the sandbox: `GET /v1/messages?reference=<idempotency key>`.
 * Only a 200 with a well-formed `data` list is authoritative; an empty list is `not_found`.
 * Everything else (a timeout, a transport error, 429, 5xx, an auth failure, a 404 from a
 * sandbox without the endpoint, a body that does not parse) is `error`: "not found" must
 * never be inferred from silence, because the reconciler acts on it.
 */
import type { Channel } from '../../domain/index.js';
import type { LookupResult } from '../provider.js';
import type { ExchangeResult } from '../outbound-http/exchange.js';
import { classifyLookupFailure } from '../outbound-http/transport-failure.js';

/** The look-up path, relative to the account's base URL. */
export const LOOKUP_PATH = '/v1/messages';

function errorCode(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const error = (body as Record<string, unknown>).error;
  return typeof error === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(error) ? error : null;
}

function errorForStatus(status: number, body: unknown): LookupResult {
  const detail = errorCode(body);
  const message = detail === null ? `provider answered HTTP ${status}` : `provider answered HTTP ${status} (${detail})`;
  if (status === 429) return { kind: 'error', code: 'rate_limited', message };
  if (status === 401 || status === 403) return { kind: 'error', code: 'provider_auth_failed', message };
  if (status >= 500) return { kind: 'error', code: 'server_error', message };
  return { kind: 'error', code: 'unexpected_status', message };
}

/**
 * Classifies a look-up answer for `reference` on `channel`: found (the earliest matching
 * message's id), not_found (a well-formed empty answer), or error. Items for another
 * reference or channel are ignored; an item without a string id is malformed.
 */
export function classifyLookup(result: ExchangeResult, reference: string, channel: Channel): LookupResult {
  if (result.kind === 'failure') return classifyLookupFailure(result.failure);
  if (result.status !== 200) return errorForStatus(result.status, result.body);
  const data = (result.body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) {
    return { kind: 'error', code: 'malformed_response', message: 'look-up answer has no data list' };
  }
  for (const item of data) {
    if (typeof item !== 'object' || item === null) {
      return { kind: 'error', code: 'malformed_response', message: 'look-up answer has a non-object item' };
    }
    const { id, reference: itemReference, channel: itemChannel } = item as Record<string, unknown>;
    if (itemReference !== undefined && itemReference !== reference) continue;
    if (itemChannel !== undefined && itemChannel !== channel) continue;
    if (typeof id !== 'string' || id === '') {
      return { kind: 'error', code: 'malformed_response', message: 'look-up answer has an item without an id' };
    }
    return { kind: 'found', providerMessageId: id };
  }
  return { kind: 'not_found' };
}
