/**
 * Look-up by Herald's reference: `GET /messages/outbound?count=…&offset=0&messagestream=<id>
 * &metadata_herald_reference=<key>` (https://postmarkapp.com/developer/api/messages-api; one
 * metadata field per query, https://postmarkapp.com/support/article/1125-custom-metadata-faq),
 * asked of both of the account's streams because the request does not say which one the
 * message went to. Only a 200 with a `Messages` list is authoritative; `not_found` needs both
 * streams to say so. Everything else is `error`, because the reconciler acts on "not found"
 * by sending again.
 */
import type { LookupResult } from '../provider.js';
import type { ExchangeResult } from '../outbound-http/exchange.js';
import { classifyLookupFailure } from '../outbound-http/transport-failure.js';
import { REFERENCE_FIELD } from './build-request.js';
import { postmarkErrorCode } from './classify.js';

/** Enough to see a message and a resend of it; far below Postmark's 500 per page. */
export const LOOKUP_PAGE_SIZE = 10;

/** The query of `GET /messages/outbound` for one stream. */
export function lookupQuery(reference: string, stream: string): URLSearchParams {
  return new URLSearchParams({ count: String(LOOKUP_PAGE_SIZE), offset: '0', messagestream: stream, [`metadata_${REFERENCE_FIELD}`]: reference });
}

function errorForStatus(status: number, body: unknown): LookupResult {
  const code = postmarkErrorCode(body);
  const message = code === null ? `Postmark answered HTTP ${status}` : `Postmark answered HTTP ${status} (ErrorCode ${code})`;
  if (status === 429) return { kind: 'error', code: 'rate_limited', message };
  if (status === 401) return { kind: 'error', code: 'provider_auth_failed', message };
  if (status >= 500) return { kind: 'error', code: 'server_error', message };
  return { kind: 'error', code: 'unexpected_status', message };
}

/**
 * Classifies one stream's answer for `reference`: found (the first message whose metadata
 * holds exactly this reference), not_found (a well-formed list with none), or error.
 */
export function classifyPostmarkLookup(result: ExchangeResult, reference: string): LookupResult {
  if (result.kind === 'failure') return classifyLookupFailure(result.failure);
  if (result.status !== 200) return errorForStatus(result.status, result.body);
  const messages = (result.body as { Messages?: unknown } | null)?.Messages;
  if (!Array.isArray(messages)) return { kind: 'error', code: 'malformed_response', message: 'look-up answer has no Messages list' };
  for (const item of messages) {
    if (typeof item !== 'object' || item === null) return { kind: 'error', code: 'malformed_response', message: 'look-up answer has a non-object message' };
    const { MessageID: id, Metadata: metadata } = item as Record<string, unknown>;
    // The filter is Postmark's; the exact match is Herald's, so a looser search never counts.
    const held = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>)[REFERENCE_FIELD] : undefined;
    if (held !== reference) continue;
    if (typeof id !== 'string' || id === '') return { kind: 'error', code: 'malformed_response', message: 'look-up answer has a message without a MessageID' };
    return { kind: 'found', providerMessageId: id };
  }
  return { kind: 'not_found' };
}

/** Combines the streams' answers: any found wins; not_found only when every stream says so; else the first error. */
export function combineLookups(results: readonly LookupResult[]): LookupResult {
  const found = results.find((r) => r.kind === 'found');
  if (found) return found;
  const error = results.find((r) => r.kind === 'error');
  return error ?? { kind: 'not_found' };
}
