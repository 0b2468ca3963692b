/**
 * The part of the Store contract that keeps recipients' opt-outs, the tenant's manual
 * suppressions (bounces and complaints are added by evidence, see evidence-store.ts), the
 * worker's one-query-per-batch send-time check, and server secrets (the key that signs
 * one-click unsubscribe links). Both drivers implement it and pass
 * test/store/preferences-conformance.ts.
 */
import type { Channel, OptOut, Sendability } from '../domain/index.js';

/** Who recorded an opt-out: the tenant's API, or the recipient's one-click unsubscribe (RFC 8058). */
export type OptOutSource = 'api' | 'one_click';

/** An opt-out as stored: what it covers, when and by whom it was recorded. */
export interface StoredOptOut extends OptOut {
  source: OptOutSource;
  optedOutAt: number;
}

/** The send-time verdict for one claimed delivery, with the recipient it is for. */
export interface SendCheck {
  deliveryId: string;
  recipientId: string;
  verdict: Sendability;
}

export interface PreferenceStore {
  /**
   * Makes `optOuts` the recipient's whole set, in one transaction: opt-outs already recorded
   * keep their time and source, new ones get `source` and `now`, the others are removed.
   * Returns the stored set (channel, then purpose; "every" first).
   */
  replaceOptOuts(r: { tenantId: string; recipientId: string; optOuts: readonly OptOut[]; source: OptOutSource; now: number }): Promise<StoredOptOut[]>;
  /** Records one opt-out unless the same one is already recorded (then it is left as it was); true when it was new. */
  addOptOut(r: { tenantId: string; recipientId: string; optOut: OptOut; source: OptOutSource; now: number }): Promise<boolean>;
  /** The recipient's opt-outs (channel, then purpose; "every" first); empty for an id never seen. */
  listOptOuts(tenantId: string, recipientId: string): Promise<StoredOptOut[]>;

  /** Adds an operator's (`manual`) suppression; false when the address is already suppressed on the channel (the entry is kept as it was). */
  addSuppression(r: { tenantId: string; channel: Channel; destination: string; now: number }): Promise<boolean>;
  /** Removes the tenant's suppression of an address on a channel, whatever its reason; false when there was none. */
  removeSuppression(r: { tenantId: string; channel: Channel; destination: string }): Promise<boolean>;

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
