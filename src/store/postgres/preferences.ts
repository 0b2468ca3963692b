/**
 * The PostgreSQL driver's preferences part (see src/store/preference-store.ts): opt-outs, the
 * suppression list, the send-time check and server secrets. The replace runs in one
 * transaction; the send-time check is one statement per claimed batch.
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
import type { Client, PostgresContext } from './sql-context.js';

/** `store.preferences` of the PostgreSQL store, over its pool and named statements. */
export class PostgresPreferences implements PreferenceStore {
  constructor(private readonly sql: PostgresContext) {}

  async replaceOptOuts(r: OptOutReplacement): Promise<StoredOptOut[]> {
    const wanted = normalizeOptOuts(r.optOuts);
    return this.sql.tx(async (c) => {
      await this.sql.q('opt_outs_delete_others', [r.tenantId, r.recipientId, wanted.map(optOutKey)], c);
      for (const o of wanted) await this.insert(r.tenantId, r.recipientId, o, r.source, r.now, c);
      return this.list(r.tenantId, r.recipientId, c);
    });
  }

  addOptOut(r: NewOptOut): Promise<boolean> {
    return this.insert(r.tenantId, r.recipientId, r.optOut, r.source, r.now);
  }

  private async insert(tenantId: string, recipientId: string, o: OptOut, source: OptOutSource, now: number, c?: Client): Promise<boolean> {
    const cols = optOutColumns(o);
    return (await this.sql.q('opt_out_insert', [tenantId, recipientId, cols.channel, cols.purpose, source, now], c)).length === 1;
  }

  listOptOuts(tenantId: string, recipientId: string): Promise<StoredOptOut[]> {
    return this.list(tenantId, recipientId);
  }

  private async list(tenantId: string, recipientId: string, c?: Client): Promise<StoredOptOut[]> {
    return sortStored((await this.sql.q('opt_outs_list', [tenantId, recipientId], c)).map(toStoredOptOut));
  }

  async getSuppression(tenantId: string, channel: Channel, destination: string): Promise<Suppression | null> {
    const [row] = await this.sql.q('suppression_get', [tenantId, channel, destination]);
    return row ? toSuppression(row) : null;
  }

  async listSuppressions(tenantId: string, limit: number): Promise<Suppression[]> {
    return (await this.sql.q('suppressions_list', [tenantId, Math.max(1, limit)])).map(toSuppression);
  }

  async addSuppression(r: ManualSuppression): Promise<boolean> {
    return (await this.sql.q('suppression_add_manual', [r.tenantId, r.channel, r.destination, r.now])).length === 1;
  }

  async removeSuppression(r: SuppressedAddress): Promise<boolean> {
    return (await this.sql.q('suppression_delete', [r.tenantId, r.channel, r.destination])).length === 1;
  }

  async sendabilityOf(deliveryIds: readonly string[]): Promise<SendCheck[]> {
    if (deliveryIds.length === 0) return [];
    return toSendChecks(await this.sql.q('sendability_of', [[...deliveryIds]]));
  }

  async serverSecret(name: string, generate: () => string, now: number): Promise<string> {
    // Two statements, no transaction needed: the insert is a no-op for every process but the first.
    await this.sql.q('server_secret_insert', [name, generate(), now]);
    const [row] = await this.sql.q('server_secret_get', [name]);
    return String(row!.value);
  }
}
