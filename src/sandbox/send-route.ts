/**
 * One send request through the sandbox, in a fixed order: read the body, check the API key,
 * the Idempotency-Key and the body (including magic destinations), then apply faults, then
 * record and answer. Faults come after validation so a refused request never consumes one.
 * The ledger is written only where the sandbox decides to accept, immediately before it
 * answers (or, for lose_response_after_accept, before it drops the connection).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultController } from './faults.js';
import { readBody, writeJson } from './http-messages.js';
import type { Ledger } from './ledger.js';
import {
  buildAcceptance,
  expectedContentType,
  validateSend,
  type SendEndpoint,
} from './send-requests.js';

export interface SendContext {
  ledger: Ledger;
  faults: FaultController;
  apiKey: string | undefined;
  /** Resolves true after `ms`, or false if the sandbox closed first (then do nothing more). */
  delay(ms: number): Promise<boolean>;
  now(): Date;
}

// Resend documents 256 characters as the longest idempotency key it takes.
const MAX_IDEMPOTENCY_KEY_LENGTH = 256;

function authorized(header: string | undefined, apiKey: string | undefined): boolean {
  if (apiKey === undefined) return true;
  if (header === undefined) return false;
  const expected = Buffer.from(`Bearer ${apiKey}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Answers one send request according to validation, faults and the ledger rules above. */
export async function handleSend(
  req: IncomingMessage,
  res: ServerResponse,
  endpoint: SendEndpoint,
  ctx: SendContext,
): Promise<void> {
  const read = await readBody(req);
  if (!read.ok) {
    if (read.reason === 'too_large') {
      writeJson(res, 413, { error: 'payload_too_large' }, { connection: 'close' });
    }
    return;
  }
  if (!authorized(req.headers.authorization, ctx.apiKey)) {
    writeJson(res, 401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer' });
    return;
  }
  const key = req.headers['idempotency-key'];
  if (typeof key !== 'string' || key.trim() === '') {
    writeJson(res, 400, { error: 'missing_idempotency_key' });
    return;
  }
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    writeJson(res, 400, {
      error: 'invalid_request',
      message: `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
    });
    return;
  }
  const contentType = expectedContentType(endpoint);
  if (mediaType(req.headers['content-type']) !== contentType) {
    writeJson(res, 400, { error: 'invalid_request', message: `Content-Type must be ${contentType}` });
    return;
  }
  const validation = validateSend(endpoint, read.body);
  if (!validation.ok) {
    writeJson(res, validation.status, validation.body);
    return;
  }

  const plan = ctx.faults.planSend();
  if (plan.latencyMs > 0 && !(await ctx.delay(plan.latencyMs))) return;

  switch (plan.action.mode) {
    case 'timeout_before_accept':
      // Hold the socket: no answer until the client gives up or the sandbox closes.
      return;
    case 'server_error':
      writeJson(res, 503, { error: 'server_error' });
      return;
    case 'rate_limit':
      writeJson(
        res,
        429,
        { error: 'rate_limited' },
        { 'retry-after': String(plan.action.retryAfterSeconds) },
      );
      return;
    case 'reject_permanent':
      writeJson(res, 400, { error: 'invalid_destination' });
      return;
    case 'lose_response_after_accept':
    case 'none': {
      const acceptance = buildAcceptance(endpoint, validation.send);
      ctx.ledger.record({
        idempotency_key: key,
        channel: validation.send.channel,
        destination: validation.send.destination,
        provider_message_id: acceptance.providerMessageId,
        received_at: ctx.now().toISOString(),
      });
      if (plan.action.mode === 'lose_response_after_accept') {
        // Accepted and recorded, but the client never hears back: the canonical ambiguity.
        req.socket.destroy();
        return;
      }
      writeJson(res, acceptance.status, acceptance.body);
      return;
    }
  }
}
