/**
 * Look-up by reference, `GET /v1/messages?reference=<Idempotency-Key>`, the question Herald's
 * reconciler asks about an `unknown` submission (modelled on Postmark's metadata query). The
 * answer lists every accepted message with that reference, so a duplicate shows as two; an
 * empty `data` is the authoritative "not found". Same credential rule as sends; the
 * `lookup_unavailable` fault answers 503 (no authoritative answer).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authorized } from './bearer-auth.js';
import type { FaultController } from './faults.js';
import { writeJson } from './http-messages.js';
import type { Ledger } from './ledger.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './send-route.js';

export const LOOKUP_PATH = '/v1/messages';

export interface LookupContext {
  ledger: Ledger;
  faults: FaultController;
  apiKey: string | undefined;
}

/** Answers one look-up request; the caller has matched LOOKUP_PATH. */
export function handleLookup(req: IncomingMessage, res: ServerResponse, url: URL, ctx: LookupContext): void {
  if (req.method !== 'GET') {
    writeJson(res, 405, { error: 'method_not_allowed' }, { allow: 'GET' });
    return;
  }
  // A GET has no body worth reading; drain whatever came so the socket stays usable.
  req.resume();
  if (!authorized(req.headers.authorization, ctx.apiKey)) {
    writeJson(res, 401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer' });
    return;
  }
  const reference = url.searchParams.get('reference');
  if (reference === null || reference.trim() === '' || reference.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    writeJson(res, 400, {
      error: 'invalid_request',
      message: `reference is required, at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
    });
    return;
  }
  if (ctx.faults.planLookup() === 'unavailable') {
    writeJson(res, 503, { error: 'server_error' });
    return;
  }
  const data = ctx.ledger.entries({ idempotency_key: reference }).map((entry) => ({
    id: entry.provider_message_id,
    reference: entry.idempotency_key,
    channel: entry.channel,
    status: ctx.ledger.currentStatus(entry.provider_message_id),
    received_at: entry.received_at,
  }));
  writeJson(res, 200, { data });
}
