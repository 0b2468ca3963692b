/**
 * What a push carries of its delivery's identity, the same on every attempt of one delivery and
 * different for every other delivery. Push services offer no idempotency key (FCM, APNs, Web Push:
 * docs/providers/<kind>.md); what they offer is collapsing: a second push with the same collapse
 * key (FCM `collapse_key` and notification `tag`, APNs `apns-collapse-id`, Web Push `Topic`)
 * replaces the first instead of adding to it. Derived from Herald's idempotency key, never from a
 * destination or a body. Pure.
 */
import { createHash } from 'node:crypto';
import { deliveryKeyOfReference } from '../../domain/index.js';

/**
 * The key a push's identity is derived from: the delivery key, also when a move to another account
 * of its route sends it under that account's own key (docs/routing.md, "When a delivery moves").
 * Collapsing is done on the device, whichever account sent: a push moved to another account of
 * the same app then replaces the first one instead of adding to it.
 */
export function pushIdentityKey(idempotencyKey: string, accountId: string): string {
  return deliveryKeyOfReference(idempotencyKey, accountId);
}

/**
 * 32 hex digits (128 bits of the hash): Web Push's `Topic` takes at most 32 characters of the
 * base64url alphabet (RFC 8030 §5.4), and Mozilla's push service documents only [A-Za-z0-9]
 * (autopush errno 113); APNs's `apns-collapse-id` takes at most 64 bytes. Hex fits all three.
 */
const COLLAPSE_ID_LENGTH = 32;

/** Herald's namespace for name-based (version 5) UUIDs of push deliveries; a random UUID, fixed forever. */
const PUSH_UUID_NAMESPACE = Buffer.from('5b0c7f3ad2e14f0c9a4e8d1b6c2f7a90', 'hex');

/** The collapse identity of one delivery: 32 lower-case hex digits, stable for its idempotency key. */
export function pushCollapseId(idempotencyKey: string): string {
  return createHash('sha256').update(`herald-push-collapse:${idempotencyKey}`).digest('hex').slice(0, COLLAPSE_ID_LENGTH);
}

/** A name-based UUID (RFC 9562 §5.5, version 5: SHA-1 of the namespace's 16 bytes and the name), canonical lower-case form. */
export function nameBasedUuid(namespace: Buffer, name: string): string {
  const bytes = createHash('sha1').update(namespace).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50; // version 5
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A UUID stable for one delivery, as APNs takes it in `apns-id`: name-based on the idempotency key. */
export function pushDeliveryUuid(idempotencyKey: string): string {
  return nameBasedUuid(PUSH_UUID_NAMESPACE, idempotencyKey);
}
