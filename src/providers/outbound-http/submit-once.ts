/**
 * The two steps every HTTP adapter's submit shares: one POST whose answer the provider's own
 * classifier reads (a transport failure is classified by how far the request got), and a
 * submission that throws answered as `unknown`. Shared by the sandbox, Resend, Postmark, Twilio
 * and Telnyx adapters; the push adapters and SES use `unknownOnThrow` around their own exchange.
 */
import type { SubmitOutcome } from '../../domain/index.js';
import { postOnce, type ExchangeRequest, type ExchangeResult } from './exchange.js';
import { classifyTransportFailure, describeUnexpected } from './transport-failure.js';

export type ExchangeResponse = Extract<ExchangeResult, { kind: 'response' }>;

/** POSTs once; the answer goes to `classify` with the time it arrived, a transport failure to classifyTransportFailure. */
export async function postAndClassify(
  request: ExchangeRequest,
  classify: (response: ExchangeResponse, nowMs: number) => SubmitOutcome,
): Promise<SubmitOutcome> {
  const result = await postOnce(request);
  return result.kind === 'response' ? classify(result, Date.now()) : classifyTransportFailure(result.failure);
}

/** Runs one submission; a throw becomes `unknown` (named by describeUnexpected, so no body or destination is quoted). */
export async function unknownOnThrow(submit: () => Promise<SubmitOutcome>): Promise<SubmitOutcome> {
  try {
    return await submit();
  } catch (error) {
    // The request may or may not have left: the one safe answer is unknown.
    return { kind: 'unknown', code: 'adapter_error', message: describeUnexpected(error) };
  }
}
