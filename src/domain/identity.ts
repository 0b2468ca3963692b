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
