/**
 * How opt-outs are spelled in rows, suppression rows, and the send-time check's rows turned
 * into verdicts; shared by both drivers. "Every channel" and "every optional purpose" are
 * stored as `*`, so (tenant, recipient, channel, purpose) can be the primary key (NULLs are
 * never equal in a key).
 */
import { normalizeOptOuts, sendability, type Channel, type OptOut, type OptionalPurpose, type Purpose, type SuppressionCause } from '../domain/index.js';
import type { SendCheck, StoredOptOut, Suppression, SuppressionReason } from './preference-store.js';
import { num, strOrNull, type Row } from './rows.js';

/** The stored spelling of "every". */
export const EVERY = '*';

/** An opt-out's columns: `*` for a null channel or purpose. */
export function optOutColumns(o: OptOut): { channel: string; purpose: string } {
  return { channel: o.channel ?? EVERY, purpose: o.purpose ?? EVERY };
}

/** The key of an opt-out among a recipient's (channel|purpose), as the replace statement compares them. */
export function optOutKey(o: OptOut): string {
  const c = optOutColumns(o);
  return `${c.channel}|${c.purpose}`;
}

function toOptOut(channel: unknown, purpose: unknown): OptOut {
  return {
    channel: channel === EVERY ? null : (channel as Channel),
    purpose: purpose === EVERY ? null : (purpose as OptionalPurpose),
  };
}

/** A `recipient_preferences` row as a StoredOptOut. */
export function toStoredOptOut(r: Row): StoredOptOut {
  return { ...toOptOut(r.channel, r.purpose), source: r.source as StoredOptOut['source'], optedOutAt: Number(r.opted_out_at) };
}

/** Stored opt-outs in the contract's order (channel, then purpose; "every" first). */
export function sortStored(rows: StoredOptOut[]): StoredOptOut[] {
  const order = normalizeOptOuts(rows).map(optOutKey);
  return [...rows].sort((a, b) => order.indexOf(optOutKey(a)) - order.indexOf(optOutKey(b)));
}

/**
 * Rows of `sendability_of` (one per delivery and matching opt-out, or one with no opt-out)
 * as one verdict per delivery, in the order the deliveries first appear.
 */
export function toSendChecks(rows: Row[]): SendCheck[] {
  const byId = new Map<
    string,
    {
      recipientId: string;
      purpose: Purpose;
      channel: Channel;
      suppression: SuppressionCause | null;
      keywordStop: boolean;
      timeZone: string | null;
      optOuts: OptOut[];
    }
  >();
  for (const r of rows) {
    const id = String(r.id);
    let d = byId.get(id);
    if (!d) {
      d = {
        recipientId: String(r.recipient_id),
        purpose: r.purpose as Purpose,
        channel: r.channel as Channel,
        suppression: (r.suppression ?? null) as SuppressionCause | null,
        keywordStop: r.keyword_stop !== null && r.keyword_stop !== undefined,
        timeZone: typeof r.time_zone === 'string' ? r.time_zone : null,
        optOuts: [],
      };
      byId.set(id, d);
    }
    if (r.opt_channel !== null && r.opt_channel !== undefined) d.optOuts.push(toOptOut(r.opt_channel, r.opt_purpose));
  }
  return [...byId].map(([deliveryId, d]) => ({
    deliveryId,
    recipientId: d.recipientId,
    timeZone: d.timeZone,
    verdict: sendability(d.purpose, d.channel, d.optOuts, d.suppression, d.keywordStop),
  }));
}

/** A suppressions row. */
export function toSuppression(r: Row): Suppression {
  return {
    tenantId: String(r.tenant_id),
    channel: r.channel as Channel,
    destination: String(r.destination),
    reason: r.reason as SuppressionReason,
    sourceDeliveryId: strOrNull(r.source_delivery_id),
    createdAt: num(r.created_at),
  };
}
