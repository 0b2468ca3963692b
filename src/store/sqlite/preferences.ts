/**
 * The SQLite driver's preferences part (see src/store/preference-store.ts): opt-outs, the
 * suppression list, the send-time check and server secrets. Each method runs one synchronous
 * transaction or statement, like the rest of the driver.
 */
import { normalizeOptOuts, type Channel, type OptOut } from '../../domain/index.js';
import { optOutColumns, optOutKey, sortStored, toSendChecks, toStoredOptOut, toSuppression } from '../preference-rows.js';
import type {
  ManualSuppression,
  NewOptOut,
  OptOutReplacement,
  OptOutSource,
  PreferenceStore,
  SendCheck,
  StoredOptOut,
  SuppressedAddress,
  Suppression,
} from '../preference-store.js';
import type { Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';

/** `store.preferences` of the SQLite store, over its connection and named statements. */
export class SqlitePreferences implements PreferenceStore {
  constructor(private readonly sql: SqliteContext) {}

  async replaceOptOuts(r: OptOutReplacement): Promise<StoredOptOut[]> {
    const wanted = normalizeOptOuts(r.optOuts);
    return this.sql.write(() => {
      this.sql.stmt('opt_outs_delete_others').run({ tenant_id: r.tenantId, recipient_id: r.recipientId, keep: JSON.stringify(wanted.map(optOutKey)) });
      for (const o of wanted) this.insert(r.tenantId, r.recipientId, o, r.source, r.now);
      return this.list(r.tenantId, r.recipientId);
    });
  }

  async addOptOut(r: NewOptOut): Promise<boolean> {
    return this.insert(r.tenantId, r.recipientId, r.optOut, r.source, r.now);
  }

  private insert(tenantId: string, recipientId: string, o: OptOut, source: OptOutSource, now: number): boolean {
    return this.sql.stmt('opt_out_insert').run({ tenant_id: tenantId, recipient_id: recipientId, ...optOutColumns(o), source, now }).changes === 1;
  }

  async listOptOuts(tenantId: string, recipientId: string): Promise<StoredOptOut[]> {
    return this.list(tenantId, recipientId);
  }

  private list(tenantId: string, recipientId: string): StoredOptOut[] {
    return sortStored((this.sql.stmt('opt_outs_list').all({ tenant_id: tenantId, recipient_id: recipientId }) as Row[]).map(toStoredOptOut));
  }

  async getSuppression(tenantId: string, channel: Channel, destination: string): Promise<Suppression | null> {
    const row = this.sql.stmt('suppression_get').get({ tenant_id: tenantId, channel, destination }) as Row | undefined;
    return row ? toSuppression(row) : null;
  }

  async listSuppressions(tenantId: string, limit: number): Promise<Suppression[]> {
    return (this.sql.stmt('suppressions_list').all({ tenant_id: tenantId, limit: Math.max(1, limit) }) as Row[]).map(toSuppression);
  }

  async addSuppression(r: ManualSuppression): Promise<boolean> {
    return this.sql.stmt('suppression_add_manual').run({ tenant_id: r.tenantId, channel: r.channel, destination: r.destination, now: r.now }).changes === 1;
  }

  async removeSuppression(r: SuppressedAddress): Promise<boolean> {
    return this.sql.stmt('suppression_delete').run({ tenant_id: r.tenantId, channel: r.channel, destination: r.destination }).changes === 1;
  }

  async sendabilityOf(deliveryIds: readonly string[]): Promise<SendCheck[]> {
    if (deliveryIds.length === 0) return [];
    return toSendChecks(this.sql.stmt('sendability_of').all({ ids: JSON.stringify(deliveryIds) }) as Row[]);
  }

  async serverSecret(name: string, generate: () => string, now: number): Promise<string> {
    return this.sql.write(() => {
      this.sql.stmt('server_secret_insert').run({ name, value: generate(), now });
      return String((this.sql.stmt('server_secret_get').get({ name }) as Row).value);
    });
  }
}
