/**
 * The first step of every push adapter's submit (APNs, FCM, Web Push): the request's channel is
 * checked (a mismatch is a routing bug in the caller, so it throws and nothing is sent) and its
 * destination read as a target of this adapter's push service; any other destination is a
 * permanent `invalid_destination` that says what it is instead.
 */
import { parsePushTarget, type PushTarget, type SubmitOutcome } from '../../domain/index.js';
import type { ProviderAccountConfig, SubmitRequest } from '../provider.js';

export type TargetRead<T extends PushTarget['type']> = { ok: true; target: Extract<PushTarget, { type: T }> } | { ok: false; outcome: SubmitOutcome };

/** The request's destination as a `type` target, or the outcome refusing it (`code`, and `who` as the message's subject). */
export function readPushTarget<T extends PushTarget['type']>(
  account: ProviderAccountConfig,
  request: SubmitRequest,
  type: T,
  refusal: { code: string; who: string },
): TargetRead<T> {
  if (request.channel !== account.channel) {
    // A routing bug in the caller, not a provider failure: nothing was sent.
    throw new Error(`provider account ${account.id} serves ${account.channel}, not ${request.channel}`);
  }
  const target = parsePushTarget(request.destination);
  if (target !== null && target.type === type) return { ok: true, target: target as Extract<PushTarget, { type: T }> };
  return {
    ok: false,
    outcome: {
      kind: 'permanent',
      reason: 'invalid_destination',
      code: refusal.code,
      message: `${refusal.who} cannot send to ${target === null ? 'this destination' : `a ${target.type} target`}`,
    },
  };
}
