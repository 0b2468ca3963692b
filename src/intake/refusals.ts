/**
 * The answers intake gives when the store refuses a notification's challenge generation or an
 * idempotency key, shared by POST /v1/notifications and each item of POST /v1/notifications/batch
 * so both say the same.
 */
import { HeraldError } from '../errors.js';
import { differsOnlyInSendAt } from './fingerprint.js';
import type { NewNotification } from '../store/store.js';

/** 409 `stale_generation`: a newer generation of the notification's group was accepted first. */
export function staleGeneration(n: NewNotification, cause: unknown): HeraldError {
  return new HeraldError(
    'stale_generation',
    `a newer generation of group ${JSON.stringify(n.groupKey)} was already accepted; generation ${n.generation} can no longer be sent`,
    [{ field: 'group.generation', message: 'is older than the newest accepted generation' }],
    { cause },
  );
}

/** 409 `duplicate_challenge`: this group and generation (or one of its delivery identities) were already accepted. */
export function duplicateChallenge(n: NewNotification, cause: unknown): HeraldError {
  return new HeraldError(
    'duplicate_challenge',
    `group ${JSON.stringify(n.groupKey)} generation ${n.generation} was already accepted; send a higher generation to supersede it`,
    [{ field: 'group.generation', message: 'was already accepted' }],
    { cause },
  );
}

/**
 * The refusal of a key used before with another request: `send_at_conflict` when only `send_at`
 * differs (the scheduled message is not moved, and the first answer is not replayed as if the new
 * time had been taken), else `idempotency_key_mismatch`.
 */
export function keyMismatch(stored: string, repeated: string): HeraldError {
  if (differsOnlyInSendAt(stored, repeated)) {
    return new HeraldError(
      'send_at_conflict',
      'this Idempotency-Key was already used with the same request and another send_at; a scheduled message is not moved',
      [{ field: 'send_at', message: 'differs from the send_at first sent with this key' }],
    );
  }
  return new HeraldError('idempotency_key_mismatch', 'this Idempotency-Key was already used with a different request body');
}
