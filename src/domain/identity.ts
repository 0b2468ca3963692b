/**
 * The logical identity of a delivery. Retries reuse the key; a new challenge generation
 * gets a new one. The key is what a provider (and the sandbox ledger) sees, so it carries
 * no personal data: it is a hash.
 */
import { createHash } from 'node:crypto';
import type { Channel, Purpose } from './vocabulary.js';

export interface DeliveryIdentity {
  tenantId: string;
  recipientId: string;
  /** The challenge group; a notification without one is its own group. */
  groupKey: string;
  generation: number;
  channel: Channel;
  purpose: Purpose;
  /**
   * The push subscription the delivery goes to, when a recipient's push channel fans out to
   * each of their devices: one delivery, and so one key, per device. Absent otherwise (so the
   * keys of every other delivery are what they always were).
   */
  subscriptionId?: string;
}

/** Derives the stable idempotency key `hk_<43 chars>` for one delivery identity. */
export function deriveDeliveryKey(id: DeliveryIdentity): string {
  // Length-prefixed fields: no choice of values can make two identities collide by concatenation.
  const parts = [id.tenantId, id.recipientId, id.groupKey, String(id.generation), id.channel, id.purpose];
  if (id.subscriptionId !== undefined) parts.push(`subscription:${id.subscriptionId}`);
  const h = createHash('sha256');
  for (const p of parts) h.update(`${Buffer.byteLength(p)}:${p};`);
  return `hk_${h.digest('base64url')}`;
}

/** The account part of an account's own key: `_` and 16 hex characters (letters, digits, `_` and `-` only, as Resend's and SES's tags and Telnyx's keys require). */
function accountSuffix(account: string): string {
  return `_${createHash('sha256').update(`herald-account:${account}`).digest('hex').slice(0, 16)}`;
}

/**
 * The idempotency key of a delivery's attempt on `account` (docs/routing.md, "When a delivery
 * moves"): the delivery key itself on the account it was created on (`originAccount`, null while
 * it never moved), so nothing already sent there changes; on any other account of its route the
 * delivery key with a suffix of that account's own. Two accounts of one provider that deduplicate
 * by key across accounts then do not take the moved send for the first one again, and a send back
 * on the first account is deduplicated against its first. Stable: every retry on an account reuses
 * its key, and `deliveryKeyOfReference` gives the delivery key back.
 */
export function accountIdempotencyKey(deliveryKey: string, account: string, originAccount: string | null): string {
  return originAccount === null || originAccount === account ? deliveryKey : `${deliveryKey}${accountSuffix(account)}`;
}

/**
 * The delivery key a provider's reference on `account` names: the reference without the account's
 * own suffix (`accountIdempotencyKey`), or the reference as it is. Callbacks, phone reports and
 * look-ups on a moved delivery's account carry that account's key; Herald finds the delivery by
 * its one delivery key and the account.
 */
export function deliveryKeyOfReference(reference: string, account: string): string {
  const suffix = accountSuffix(account);
  return reference.endsWith(suffix) && reference.length > suffix.length ? reference.slice(0, -suffix.length) : reference;
}
