/**
 * Whether a recipient may be sent a message of one purpose on one channel: their opt-outs
 * and the tenant's suppression list, checked by the worker before every attempt (not only at
 * intake), so an unsubscribe that arrives while a campaign is queued stops what is left.
 *
 * The rules, in order:
 * 1. A **bounced** or **manual** suppression of the address blocks every purpose, `otp`
 *    included: a hard bounce says the address does not exist (another send only bounces
 *    again and costs sender reputation), and a manual entry is an operator's explicit "never".
 *    There is no per-notification bypass; removing the entry (DELETE /v1/suppressions) is how
 *    an address becomes sendable again.
 * 2. A **complained** suppression blocks the optional purposes only (`marketing`,
 *    `conversational`): the recipient called our mail spam, which is a refusal of mail they did
 *    not ask for; the login code or receipt they are waiting for still goes.
 * 3. **Opt-outs** exist only for the optional purposes. An opt-out names a channel (or every
 *    channel) and a purpose (or every optional purpose): a channel-wide opt-out stops marketing
 *    and conversational messages on that channel, never `otp`, `transactional` or `alert`.
 *
 * When both a suppression and an opt-out apply, the answer is `suppressed` (the address, not
 * the person's choice, is the stronger fact).
 */
import type { Channel, Purpose } from './vocabulary.js';

/** Purposes a recipient may opt out of; the others (codes, receipts, alerts) always go. */
export const OPTIONAL_PURPOSES = ['marketing', 'conversational'] as const;
export type OptionalPurpose = (typeof OPTIONAL_PURPOSES)[number];

/** Why an address is on the tenant's suppression list. */
export const SUPPRESSION_REASONS = ['bounced', 'complained', 'manual'] as const;
export type SuppressionCause = (typeof SUPPRESSION_REASONS)[number];

/** One opt-out of a recipient; `null` means "every": every channel, or every optional purpose. */
export interface OptOut {
  channel: Channel | null;
  purpose: OptionalPurpose | null;
}

/**
 * The verdict for one delivery: send it, or end it with the matching terminal reason
 * (`stopped`: the number replied STOP, ended `suppressed`).
 */
export type Sendability = 'send' | 'unsubscribed' | 'suppressed' | 'stopped';

/** True for the purposes an opt-out can stop (marketing, conversational). */
export function isOptionalPurpose(purpose: Purpose): purpose is OptionalPurpose {
  return (OPTIONAL_PURPOSES as readonly string[]).includes(purpose);
}

/** True when the opt-out covers this channel and purpose (a null field covers every value). */
export function optOutCovers(o: OptOut, purpose: Purpose, channel: Channel): boolean {
  return isOptionalPurpose(purpose) && (o.channel === null || o.channel === channel) && (o.purpose === null || o.purpose === purpose);
}

/**
 * Decides whether a message of `purpose` on `channel` may go, given the recipient's opt-outs, the
 * address's suppression (null: none) and whether the number replied STOP. A STOP stops every
 * purpose, codes included: it is the carrier-level opt-out of the number, which no purpose is
 * exempt from unless an operator says so (docs/inbound.md), and START lifts it.
 */
export function sendability(
  purpose: Purpose,
  channel: Channel,
  optOuts: readonly OptOut[],
  suppression: SuppressionCause | null,
  keywordStop = false,
): Sendability {
  if (keywordStop) return 'stopped';
  if (suppression === 'bounced' || suppression === 'manual') return 'suppressed';
  if (suppression === 'complained' && isOptionalPurpose(purpose)) return 'suppressed';
  if (optOuts.some((o) => optOutCovers(o, purpose, channel))) return 'unsubscribed';
  return 'send';
}

/** The same opt-outs without repeats, in a stable order (channel, then purpose; "every" first). */
export function normalizeOptOuts(optOuts: readonly OptOut[]): OptOut[] {
  const key = (o: OptOut) => `${o.channel ?? ''}|${o.purpose ?? ''}`;
  const seen = new Map<string, OptOut>();
  for (const o of optOuts) seen.set(key(o), { channel: o.channel, purpose: o.purpose });
  return [...seen.values()].sort((a, b) => key(a).localeCompare(key(b)));
}
