/**
 * The automatic reply to a HELP or STOP that came in through a phone: one transactional SMS to
 * the sender, on the same account and pinned to the same device and SIM (the number the person
 * texted), written as an ordinary notification so it is claimed, paced, offered, reported and
 * shown like any delivery.
 *
 * Its group is `inb:<incoming message id>` (a prefix intake refuses from producers), so there is
 * at most one reply per incoming message, and the send-time check knows it: the STOP
 * confirmation passes the keyword suppression of the very STOP it confirms (`sendability_of`
 * skips a keyword suppression whose incoming message is the notification's group) and nothing
 * else does. A HELP answer still waiting when a STOP arrives is stopped like any other message,
 * so no reply is retried into a suppression.
 */
import { deriveDeliveryKey, type KeywordAction } from '../domain/index.js';
import { newId } from '../ids.js';
import type { NewNotification } from '../store/store.js';

/** A reply is about the message it answers: one not sent within an hour is not sent at all. */
export const KEYWORD_REPLY_TTL_MS = 3_600_000;

/** The group of the reply to incoming message `inboundId` (also read by the send-time check's SQL). */
export function keywordReplyGroup(inboundId: string): string {
  return `inb:${inboundId}`;
}

export interface KeywordReplyInput {
  tenantId: string;
  providerAccount: string;
  deviceId: string;
  simNumber: number | null;
  /** The incoming message answered. */
  inboundId: string;
  keyword: KeywordAction;
  /** The sender, as the phone reported it: the reply's destination. */
  sender: string;
  /** The keyed hash of the sender: the reply's recipient id, so no number is used as an id. */
  senderHash: string;
  text: string;
  now: number;
}

/** The reply's notification, with its one SMS delivery. */
export function keywordReplyNotification(r: KeywordReplyInput): NewNotification {
  const groupKey = keywordReplyGroup(r.inboundId);
  const recipientId = `sms-sender:${r.senderHash.slice(0, 32)}`;
  return {
    id: newId('ntf', r.now),
    tenantId: r.tenantId,
    recipient: { id: recipientId, phone: r.sender },
    purpose: 'transactional',
    channels: ['sms'],
    content: { text: r.text },
    groupKey,
    generation: 1,
    metadata: {
      herald_reply_to_inbound: r.inboundId,
      herald_keyword: r.keyword,
      herald_device_id: r.deviceId,
      ...(r.simNumber === null ? {} : { herald_sim_number: r.simNumber }),
    },
    expiresAt: r.now + KEYWORD_REPLY_TTL_MS,
    createdAt: r.now,
    pinnedChannels: ['sms'],
    deliveries: [
      {
        id: newId('dlv', r.now),
        channel: 'sms',
        providerAccount: r.providerAccount,
        destination: r.sender,
        idempotencyKey: deriveDeliveryKey({ tenantId: r.tenantId, recipientId, groupKey, generation: 1, channel: 'sms', purpose: 'transactional' }),
      },
    ],
  };
}
