/**
 * The SQLite driver's preferences (see src/store/preference-store.ts). Each method runs one
 * synchronous transaction or statement, like the rest of the driver.
 */
import { normalizeOptOuts, type Channel, type OptOut } from '../../domain/index.js';
import { optOutColumns, optOutKey, sortStored, toSendChecks, toStoredOptOut } from '../preference-rows.js';
import type { OptOutSource, SendCheck, StoredOptOut } from '../preference-store.js';
import type { Row } from '../rows.js';
import type { SqliteStore } from './sqlite-store.js';

/** Preference methods of the SQLite store, over its connection and named statements. */
export class SqlitePreferences {
  constructor(private readonly s: SqliteStore) {}

  replaceOptOuts(r: { tenantId: string; recipientId: string; optOuts: readonly OptOut[]; source: OptOutSource; now: number }): StoredOptOut[] {
    const wanted = normalizeOptOuts(r.optOuts);
    const tx = this.s.db.transaction(() => {
      this.s.stmt('opt_outs_delete_others').run({ tenant_id: r.tenantId, recipient_id: r.recipientId, keep: JSON.stringify(wanted.map(optOutKey)) });
      for (const o of wanted) this.insert(r.tenantId, r.recipientId, o, r.source, r.now);
      return this.list(r.tenantId, r.recipientId);
    });
    return tx.immediate();
  }

  addOptOut(r: { tenantId: string; recipientId: string; optOut: OptOut; source: OptOutSource; now: number }): boolean {
    return this.insert(r.tenantId, r.recipientId, r.optOut, r.source, r.now);
  }

  private insert(tenantId: string, recipientId: string, o: OptOut, source: OptOutSource, now: number): boolean {
    return this.s.stmt('opt_out_insert').run({ tenant_id: tenantId, recipient_id: recipientId, ...optOutColumns(o), source, now }).changes === 1;
  }

  list(tenantId: string, recipientId: string): StoredOptOut[] {
    return sortStored((this.s.stmt('opt_outs_list').all({ tenant_id: tenantId, recipient_id: recipientId }) as Row[]).map(toStoredOptOut));
  }

  addSuppression(r: { tenantId: string; channel: Channel; destination: string; now: number }): boolean {
    return this.s.stmt('suppression_add_manual').run({ tenant_id: r.tenantId, channel: r.channel, destination: r.destination, now: r.now }).changes === 1;
  }

  removeSuppression(r: { tenantId: string; channel: Channel; destination: string }): boolean {
    return this.s.stmt('suppression_delete').run({ tenant_id: r.tenantId, channel: r.channel, destination: r.destination }).changes === 1;
  }

  sendabilityOf(deliveryIds: readonly string[]): SendCheck[] {
    if (deliveryIds.length === 0) return [];
    return toSendChecks(this.s.stmt('sendability_of').all({ ids: JSON.stringify(deliveryIds) }) as Row[]);
  }

  serverSecret(name: string, generate: () => string, now: number): string {
    const tx = this.s.db.transaction(() => {
      this.s.stmt('server_secret_insert').run({ name, value: generate(), now });
      return String((this.s.stmt('server_secret_get').get({ name }) as Row).value);
    });
    return tx.immediate();
  }
}
