/**
 * `store.preferences`, written once for both drivers (see ../preference-store.ts): opt-outs, the
 * suppression list, the send-time check and server secrets.
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
import { type Body, type Executor, all, count, list, one } from '../sql-executor.js';

function* insertOptOut(tenantId: string, recipientId: string, o: OptOut, source: OptOutSource, now: number): Body<boolean> {
  return (yield* count('opt_out_insert', { tenant_id: tenantId, recipient_id: recipientId, ...optOutColumns(o), source, now })) === 1;
}

function* listOptOuts(tenantId: string, recipientId: string): Body<StoredOptOut[]> {
  return sortStored((yield* all('opt_outs_list', { tenant_id: tenantId, recipient_id: recipientId })).map(toStoredOptOut));
}

/** Opt-outs, suppressions, the send-time check and server secrets. */
export class PreferencesPart implements PreferenceStore {
  constructor(private readonly x: Executor) {}

  replaceOptOuts(r: OptOutReplacement): Promise<StoredOptOut[]> {
    const wanted = normalizeOptOuts(r.optOuts);
    return this.x.transaction(function* () {
      yield* count('opt_outs_delete_others', { tenant_id: r.tenantId, recipient_id: r.recipientId, keep: list(wanted.map(optOutKey)) });
      for (const o of wanted) yield* insertOptOut(r.tenantId, r.recipientId, o, r.source, r.now);
      return yield* listOptOuts(r.tenantId, r.recipientId);
    });
  }

  addOptOut(r: NewOptOut): Promise<boolean> {
    return this.x.run(() => insertOptOut(r.tenantId, r.recipientId, r.optOut, r.source, r.now));
  }

  listOptOuts(tenantId: string, recipientId: string): Promise<StoredOptOut[]> {
    return this.x.run(() => listOptOuts(tenantId, recipientId));
  }

  async getSuppression(tenantId: string, channel: Channel, destination: string): Promise<Suppression | null> {
    const row = await this.x.one('suppression_get', { tenant_id: tenantId, channel, destination });
    return row ? toSuppression(row) : null;
  }

  async listSuppressions(tenantId: string, limit: number): Promise<Suppression[]> {
    return (await this.x.all('suppressions_list', { tenant_id: tenantId, limit: Math.max(1, limit) })).map(toSuppression);
  }

  async addSuppression(r: ManualSuppression): Promise<boolean> {
    return (await this.x.count('suppression_add_manual', { tenant_id: r.tenantId, channel: r.channel, destination: r.destination, now: r.now })) === 1;
  }

  async removeSuppression(r: SuppressedAddress): Promise<boolean> {
    return (await this.x.count('suppression_delete', { tenant_id: r.tenantId, channel: r.channel, destination: r.destination })) === 1;
  }

  /** One statement per claimed batch. */
  async sendabilityOf(deliveryIds: readonly string[]): Promise<SendCheck[]> {
    if (deliveryIds.length === 0) return [];
    return toSendChecks(await this.x.all('sendability_of', { ids: list(deliveryIds) }));
  }

  serverSecret(name: string, generate: () => string, now: number): Promise<string> {
    // Two statements, no transaction needed: the insert is a no-op for every process but the first.
    return this.x.run(function* () {
      yield* count('server_secret_insert', { name, value: generate(), now });
      return String((yield* one('server_secret_get', { name }))!.value);
    });
  }
}
