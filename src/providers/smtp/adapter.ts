/**
 * Herald's adapter for an SMTP relay. Each submission builds one message (build-message.ts),
 * takes a pooled session (session-pool.ts), sends it once and classifies what came back
 * (classify.ts). SMTP offers no look-up and no callbacks, and no server deduplicates by
 * Message-ID at SMTP time: capabilities are `lookup: false, dedupesByKey: false`, so an
 * `unknown` is settled only by the account's ambiguity policy.
 */
import type { SubmitOutcome } from '../../domain/index.js';
import type { AdapterCapabilities, ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../provider.js';
import { buildMessage } from './build-message.js';
import { acceptedMessageId, classifyFailure, redactionsFor, type SmtpFailure } from './classify.js';
import { SessionPool, type Lease } from './session-pool.js';
import { readSmtpSettings, type SmtpSettings } from './settings.js';
import { sendOnce, type CallLimits } from './smtp-session.js';
import { describeUnexpected } from '../outbound-http/transport-failure.js';

export const SMTP_CAPABILITIES: AdapterCapabilities = { lookup: false, dedupesByKey: false };

/**
 * A failure on a reused session before the server invited the body is most likely the server
 * having closed the idle connection: nothing of the message was sent, so it may go out once
 * more on a fresh session within the same call (nodemailer's pool does the same).
 */
function staleSession(lease: Lease, failure: SmtpFailure): boolean {
  return lease.reused && failure.kind === 'transport' && failure.cause === 'error' && failure.step === 'envelope';
}

/** Creates the adapter for one smtp account; throws for a configuration error (settings, credentials). */
export function createSmtpAdapter(account: ProviderAccountConfig, env: NodeJS.ProcessEnv = process.env): ProviderAdapter {
  const settings: SmtpSettings = readSmtpSettings(account, env);
  const pool = new SessionPool(settings);

  const attempt = async (request: SubmitRequest, limits: CallLimits, redact: string[]): Promise<SubmitOutcome> => {
    const built = await buildMessage(request, settings, account.max_html_bytes);
    if (!built.ok) return built.outcome;
    for (let fresh = false; ; fresh = true) {
      const acquired = await pool.acquire(limits);
      if (!acquired.ok) return classifyFailure(acquired.failure, redact);
      const { lease } = acquired;
      // The challenge clock at the moment the message would leave: the wait for a session can
      // outlast the time the caller had left. Nothing is written at or after sendBy.
      if (request.sendBy !== undefined && Date.now() >= request.sendBy) {
        await pool.release(lease, 'clean');
        return { kind: 'retryable', code: 'expired_before_send', message: 'sendBy passed before the message could be sent; nothing was sent' };
      }
      const result = await sendOnce(lease.session, built.message, limits);
      // RSET within what is left of the call: the outcome is known, the call still ends by its deadline.
      await pool.release(lease, result.ok ? 'clean' : result.reusable ? 'reset' : 'close', Math.max(1, limits.until - Date.now()));
      if (result.ok) return { kind: 'accepted', providerMessageId: acceptedMessageId(result.reply, result.serverMessageId) };
      if (!fresh && staleSession(lease, result.failure)) continue;
      return classifyFailure(result.failure, redact);
    }
  };

  const submit = async (request: SubmitRequest, signal?: AbortSignal): Promise<SubmitOutcome> => {
    if (request.channel !== 'email') {
      // A routing bug in the caller, not a provider failure: nothing was sent.
      throw new Error(`provider account ${account.id} sends email, not ${request.channel}`);
    }
    const limits: CallLimits = { until: Date.now() + account.timeout_ms, signal };
    try {
      return await attempt(request, limits, redactionsFor(request.destination));
    } catch (error) {
      // The message may or may not have left: the one safe answer is unknown.
      return { kind: 'unknown', code: 'adapter_error', message: describeUnexpected(error) };
    }
  };

  return {
    kind: 'smtp',
    capabilities: SMTP_CAPABILITIES,
    submit,
    close: () => pool.close(),
  };
}
