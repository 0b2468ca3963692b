/**
 * The PostgreSQL driver's preferences (see src/store/preference-store.ts). The replace runs
 * in one transaction; the send-time check is one statement per claimed batch.
 */
import { normalizeOptOuts, type Channel, type OptOut } from '../../domain/index.js';
import { optOutColumns, optOutKey, sortStored, toSendChecks, toStoredOptOut } from '../preference-rows.js';
import type { OptOutSource, SendCheck, StoredOptOut } from '../preference-store.js';
import type { Client, PostgresStore } from './postgres-store.js';

/** Preference methods of the PostgreSQL store, over its pool and named statements. */
export class PostgresPreferences {
  constructor(private readonly s: PostgresStore) {}

  async replaceOptOuts(r: { tenantId: string; recipientId: string; optOuts: readonly OptOut[]; source: OptOutSource; now: number }): Promise<StoredOptOut[]> {
    const wanted = normalizeOptOuts(r.optOuts);
    return this.s.tx(async (c) => {
      await this.s.q('opt_outs_delete_others', [r.tenantId, r.recipientId, wanted.map(optOutKey)], c);
      for (const o of wanted) await this.insert(r.tenantId, r.recipientId, o, r.source, r.now, c);
      return this.list(r.tenantId, r.recipientId, c);
    });
  }

  addOptOut(r: { tenantId: string; recipientId: string; optOut: OptOut; source: OptOutSource; now: number }): Promise<boolean> {
    return this.insert(r.tenantId, r.recipientId, r.optOut, r.source, r.now);
  }

  private async insert(tenantId: string, recipientId: string, o: OptOut, source: OptOutSource, now: number, c?: Client): Promise<boolean> {
    const cols = optOutColumns(o);
    return (await this.s.q('opt_out_insert', [tenantId, recipientId, cols.channel, cols.purpose, source, now], c)).length === 1;
  }

  async list(tenantId: string, recipientId: string, c?: Client): Promise<StoredOptOut[]> {
    return sortStored((await this.s.q('opt_outs_list', [tenantId, recipientId], c)).map(toStoredOptOut));
  }

  async addSuppression(r: { tenantId: string; channel: Channel; destination: string; now: number }): Promise<boolean> {
    return (await this.s.q('suppression_add_manual', [r.tenantId, r.channel, r.destination, r.now])).length === 1;
  }

  async removeSuppression(r: { tenantId: string; channel: Channel; destination: string }): Promise<boolean> {
    return (await this.s.q('suppression_delete', [r.tenantId, r.channel, r.destination])).length === 1;
  }

  async sendabilityOf(deliveryIds: readonly string[]): Promise<SendCheck[]> {
    if (deliveryIds.length === 0) return [];
    return toSendChecks(await this.s.q('sendability_of', [[...deliveryIds]]));
  }

  async serverSecret(name: string, generate: () => string, now: number): Promise<string> {
    // Two statements, no transaction needed: the insert is a no-op for every process but the first.
    await this.s.q('server_secret_insert', [name, generate(), now]);
    const [row] = await this.s.q('server_secret_get', [name]);
    return String(row!.value);
  }
}
