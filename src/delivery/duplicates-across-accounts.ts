/**
 * Duplicates across accounts (docs/routing.md): a delivery that moved along its route after an
 * `unknown` (under `accept_duplicate`), or after a refusal the first provider sent anyway, may be
 * reported delivered by both accounts. The callbacks merged into the delivery are the record
 * (each keeps its account); this reads them: the accounts whose delivered or read report was
 * merged, in the order they arrived. Two or more is a duplicate the recipient received.
 */
import type { CallbackEvidence } from '../store/evidence-store.js';

const ARRIVED: ReadonlySet<string> = new Set(['delivered', 'read']);

/** The accounts with a merged delivered (or read) callback, first report first; `skip` leaves out callbacks by `account + "\0" + event id`. */
export function deliveredAccounts(callbacks: readonly CallbackEvidence[], skip: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  const merged = callbacks
    .filter((c) => c.fate !== 'pending' && ARRIVED.has(c.status) && !skip.has(callbackKey(c.providerAccount, c.eventId)))
    .sort((a, b) => a.receivedAt - b.receivedAt);
  for (const c of merged) if (!out.includes(c.providerAccount)) out.push(c.providerAccount);
  return out;
}

/** How a callback is named across the pending list and the delivery's evidence. */
export function callbackKey(providerAccount: string, eventId: string): string {
  return `${providerAccount}\u0000${eventId}`;
}

/** Whether a status is a report of arrival (delivered or read). */
export function reportsArrival(status: string): boolean {
  return ARRIVED.has(status);
}
