/** Row mapping shared by both drivers' push-subscription parts. */
import { createHash } from 'node:crypto';
import type { PushDeactivationReason, PushSubscriptionView } from './push-store.js';
import type { Row } from './rows.js';
import { strOrNull } from './rows.js';

/** The SHA-256 (hex) of an encoded target: how a delivery's destination finds its subscription. */
export function pushTargetHash(target: string): string {
  return createHash('sha256').update(target).digest('hex');
}

/** A `push_subscriptions` row as the contract's view. */
export function toPushSubscriptionView(r: Row): PushSubscriptionView {
  return {
    id: String(r.id),
    recipientId: String(r.recipient_id),
    type: r.type as PushSubscriptionView['type'],
    target: String(r.target),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    deactivatedAt: r.deactivated_at === null ? null : Number(r.deactivated_at),
    deactivatedReason: (r.deactivated_reason ?? null) as PushDeactivationReason | null,
    deactivatedCode: strOrNull(r.deactivated_code),
  };
}
