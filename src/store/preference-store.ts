/**
 * The preferences part of the Store contract (`store.preferences`): who may be sent what.
 * Recipients' opt-outs, the tenant's suppression list (every entry, whatever added it: an
 * operator here, a bounce or complaint through the evidence part's applyEvidence), the
 * worker's one-query-per-batch send-time check over both, and server secrets (the key that
 * signs one-click unsubscribe links). Both drivers implement it and pass
 * test/store/preferences-conformance.ts.
 */
import type { Channel, OptOut, Sendability, SuppressionCause } from '../domain/index.js';

/** Who recorded an opt-out: the tenant's API, or the recipient's one-click unsubscribe (RFC 8058). */
export const OPT_OUT_SOURCES = ['api', 'one_click'] as const;
export type OptOutSource = (typeof OPT_OUT_SOURCES)[number];

/** An opt-out as stored: what it covers, when and by whom it was recorded. */
export interface StoredOptOut extends OptOut {
  source: OptOutSource;
  optedOutAt: number;
}

/** One recipient of one tenant. */
export interface RecipientRef {
  tenantId: string;
  recipientId: string;
}

/** A recipient's whole set of opt-outs, replacing the stored one. */
export interface OptOutReplacement extends RecipientRef {
  optOuts: readonly OptOut[];
  source: OptOutSource;
  now: number;
}

/** One opt-out to record for a recipient. */
export interface NewOptOut extends RecipientRef {
  optOut: OptOut;
  source: OptOutSource;
  now: number;
}

/** Why an address is suppressed: the domain's list (src/domain/preferences.ts), which the schema's CHECK repeats. */
export type SuppressionReason = SuppressionCause;

/** One address on one channel of one tenant: what a suppression is keyed by. */
export interface SuppressedAddress {
  tenantId: string;
  channel: Channel;
  destination: string;
}

/** A suppression to add (by evidence: a bounce or complaint of `sourceDeliveryId`). */
export interface NewSuppression extends SuppressedAddress {
  reason: SuppressionReason;
  sourceDeliveryId: string | null;
}

export interface Suppression extends NewSuppression {
  createdAt: number;
}

/** An operator's suppression of an address, at `now`. */
export interface ManualSuppression extends SuppressedAddress {
  now: number;
}

/** The send-time verdict for one claimed delivery, with the recipient it is for. */
export interface SendCheck {
  deliveryId: string;
  recipientId: string;
  /** The recipient's IANA time zone: the notification's own, else the stored profile's; null when neither (the tenant's applies). */
  timeZone: string | null;
  verdict: Sendability;
}

/** `store.preferences`; implemented by sqlite/preferences.ts and postgres/preferences.ts. */
export interface PreferenceStore {
  /**
   * Makes `optOuts` the recipient's whole set, in one transaction: opt-outs already recorded
   * keep their time and source, new ones get `source` and `now`, the others are removed.
   * Returns the stored set (channel, then purpose; "every" first).
   */
  replaceOptOuts(r: OptOutReplacement): Promise<StoredOptOut[]>;
  /** Records one opt-out unless the same one is already recorded (then it is left as it was); true when it was new. */
  addOptOut(r: NewOptOut): Promise<boolean>;
  /** The recipient's opt-outs (channel, then purpose; "every" first); empty for an id never seen. */
  listOptOuts(tenantId: string, recipientId: string): Promise<StoredOptOut[]>;

  /** The tenant's suppression entry for an address on a channel, or null. */
  getSuppression(tenantId: string, channel: Channel, destination: string): Promise<Suppression | null>;
  /** The tenant's suppression list, newest first. */
  listSuppressions(tenantId: string, limit: number): Promise<Suppression[]>;
  /** Adds an operator's (`manual`) suppression; false when the address is already suppressed on the channel (the entry is kept as it was). */
  addSuppression(r: ManualSuppression): Promise<boolean>;
  /** Removes the tenant's suppression of an address on a channel, whatever its reason; false when there was none. */
  removeSuppression(r: SuppressedAddress): Promise<boolean>;

  /**
   * The send-time check for a claimed batch, in one query: for each delivery id (that exists),
   * its recipient and whether it may be sent, from the recipient's opt-outs and the tenant's
   * suppression of its destination (`sendability` in src/domain/preferences.ts decides).
   */
  sendabilityOf(deliveryIds: readonly string[]): Promise<SendCheck[]>;

  /**
   * The server-wide secret called `name`: the first process to ask stores `generate()`; every
   * process, then and later, gets that same value.
   */
  serverSecret(name: string, generate: () => string, now: number): Promise<string>;
}
