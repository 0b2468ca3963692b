/**
 * One send request through the sandbox, in a fixed order: read the body, check the API key,
 * the Idempotency-Key and the body (including magic destinations), then the channel's quota,
 * then apply faults, then replay (dedupe_by_key) or record, schedule callbacks and answer.
 * Quota and faults come after validation so a refused request never consumes a fault. The
 * ledger is written only where the sandbox decides to accept, immediately before it answers
 * (or, for lose_response_after_accept, before it drops the connection); with
 * `emit_before_response` the first callback is delivered between the two.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AcceptanceMemory } from './acceptance-memory.js';
import type { BehaviourController } from './behaviour.js';
import { authorized } from './bearer-auth.js';
import type { CallbackDispatcher } from './callback-dispatcher.js';
import type { FaultController, ThrottleHeaderSet } from './faults.js';
import { readBody, writeJson } from './http-messages.js';
import type { Ledger } from './ledger.js';
import type { QuotaController } from './quota.js';
import { buildAcceptance, expectedContentType, invalidDestinationBody, validateSend, type SendEndpoint, type ValidSend } from './send-requests.js';

export interface SendContext {
  ledger: Ledger;
  faults: FaultController;
  behaviour: BehaviourController;
  memory: AcceptanceMemory;
  quota: QuotaController;
  callbacks: CallbackDispatcher;
  apiKey: string | undefined;
  /** Resolves true after `ms`, or false if the sandbox closed first (then do nothing more). */
  delay(ms: number): Promise<boolean>;
  now(): Date;
}

/** Resend documents 256 characters as the longest idempotency key it takes. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256;

/** The headers of a 429 that asks the client to wait `seconds` from `nowMs`, in the given set. */
function throttleHeaders(set: ThrottleHeaderSet, seconds: number, nowMs: number): Record<string, string> {
  switch (set) {
    case 'retry_after':
      return { 'retry-after': String(seconds) };
    case 'retry_after_date':
      // IMF-fixdate has whole seconds: the date names an instant up to 999 ms before now + seconds.
      return { 'retry-after': new Date(nowMs + seconds * 1000).toUTCString() };
    case 'ratelimit':
      // Resend's header set: the IETF draft ratelimit-* names beside Retry-After.
      return { 'retry-after': String(seconds), 'ratelimit-remaining': '0', 'ratelimit-reset': String(seconds) };
    case 'none':
      return {};
  }
}

/** Answers 429 if the channel's quota for this second is spent; true when it did. */
function refusedByQuota(res: ServerResponse, send: ValidSend, ctx: SendContext): boolean {
  const nowMs = ctx.now().getTime();
  const decision = ctx.quota.admit(send.channel, nowMs, ctx.ledger);
  if (decision.ok) return false;
  writeJson(
    res,
    429,
    { error: 'rate_limited' },
    {
      ...throttleHeaders('ratelimit', decision.retryAfterSeconds, nowMs),
      'ratelimit-limit': String(decision.limit),
    },
  );
  return true;
}

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Answers one send request according to validation, faults and the ledger rules above. */
export async function handleSend(req: IncomingMessage, res: ServerResponse, endpoint: SendEndpoint, ctx: SendContext): Promise<void> {
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

  if (refusedByQuota(res, validation.send, ctx)) return;

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
      writeJson(res, 429, { error: 'rate_limited' }, throttleHeaders(plan.action.headers, plan.action.retryAfterSeconds, ctx.now().getTime()));
      return;
    case 'reject_permanent':
      writeJson(res, 400, invalidDestinationBody(validation.send.destination));
      return;
    case 'lose_response_after_accept':
    case 'none': {
      // Checked again: a latency fault may have let other sends in since the first check.
      if (refusedByQuota(res, validation.send, ctx)) return;
      const lose = plan.action.mode === 'lose_response_after_accept';
      const { channel, destination } = validation.send;
      if (ctx.behaviour.get().dedupe_by_key) {
        const original = ctx.memory.recall(channel, key, ctx.now().getTime());
        if (original !== null) {
          // The original answer, not a new message: no ledger entry, no callbacks.
          if (lose) req.socket.destroy();
          else writeJson(res, original.status, original.body, { 'idempotent-replayed': 'true' });
          return;
        }
      }
      const acceptance = buildAcceptance(endpoint, validation.send);
      const receivedAt = ctx.now();
      ctx.ledger.record({
        idempotency_key: key,
        channel,
        destination,
        provider_message_id: acceptance.providerMessageId,
        received_at: receivedAt.toISOString(),
        ...(validation.send.headers ? { headers: validation.send.headers } : {}),
      });
      ctx.memory.remember(channel, key, acceptance, receivedAt.getTime());
      // Resolves at once, or once the first callback was delivered with emit_before_response.
      await ctx.callbacks.schedule({ providerMessageId: acceptance.providerMessageId, reference: key, channel });
      if (lose) {
        // Accepted and recorded, but the client never hears back: the canonical ambiguity.
        req.socket.destroy();
        return;
      }
      writeJson(res, acceptance.status, acceptance.body);
      return;
    }
  }
}
