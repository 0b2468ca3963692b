/** The SQLite driver's devices part (see src/store/device-store.ts): one synchronous transaction per method that writes. */
import { gatewayMessageId } from '../../domain/index.js';
import { StoreConflictError, type Unsubscribe } from '../core-store.js';
import {
  foldReport,
  reportDownstreamEvent,
  sortPulled,
  toDeviceMessageView,
  toDeviceRecord,
  toOfferRecord,
  toSweepRecord,
  toUnappliedReport,
} from '../device-rows.js';
import type {
  CurrentOfferQuery,
  DeviceLoad,
  DeviceMessageFilter,
  DeviceMessageView,
  DevicePresence,
  DeviceRecord,
  DeviceRegistration,
  DeviceStore,
  DeviceTouch,
  DeviceUpdate,
  GatewayLogin,
  NewLoginCode,
  NewOffer,
  OfferListener,
  OfferPull,
  OfferRecord,
  PulledMessage,
  RecordedReports,
  ReportBatch,
  ReportWrite,
  SweepCandidates,
  SweepQuery,
  SweepRecord,
  SweepWrite,
  UnappliedReport,
} from '../device-store.js';
import { num, numOrNull, type Row } from '../rows.js';
import { transitionPayload } from '../transition-fields.js';
import { isConstraintError, type SqliteContext } from './sql-context.js';
import { applyTransition } from './transitions.js';

/** Thrown inside a savepoint to undo one write of a batch. */
class GuardRefused extends Error {}

/** `store.devices` of the SQLite store. */
export class SqliteDevices implements DeviceStore {
  constructor(private readonly sql: SqliteContext) {}

  async registerDevice(r: DeviceRegistration): Promise<void> {
    const d = r.device;
    try {
      this.sql.write(() => {
        if (r.login) {
          const l = r.login;
          this.sql
            .stmt('gateway_login_insert')
            .run({ login: l.login, provider_account: l.providerAccount, tenant_id: l.tenantId, password_hash: l.passwordHash, now: l.now });
        }
        this.sql.stmt('device_insert').run({
          id: d.id,
          tenant_id: d.tenantId,
          provider_account: d.providerAccount,
          login: d.login,
          name: d.name,
          token_hash: d.tokenHash,
          sim_cards_json: d.simCards === null ? null : JSON.stringify(d.simCards),
          app_version: d.appVersion,
          now: d.now,
        });
      });
    } catch (err) {
      if (isConstraintError(err)) throw new StoreConflictError('a device or login with this id already exists', { constraint: 'devices' }, { cause: err });
      throw err;
    }
  }

  async findDeviceByToken(tokenHash: string): Promise<DeviceRecord | null> {
    const r = this.sql.stmt('device_by_token').get({ token_hash: tokenHash }) as Row | undefined;
    return r ? toDeviceRecord(r) : null;
  }

  async getDevice(id: string): Promise<DeviceRecord | null> {
    const r = this.sql.stmt('device_get').get({ id }) as Row | undefined;
    return r ? toDeviceRecord(r) : null;
  }

  async listDevices(filter: { tenantId?: string; providerAccount?: string }): Promise<DeviceRecord[]> {
    return (this.sql.stmt('devices_list').all({ tenant_id: filter.tenantId ?? null, provider_account: filter.providerAccount ?? null }) as Row[]).map(
      toDeviceRecord,
    );
  }

  async updateDevice(r: DeviceUpdate): Promise<boolean> {
    const changed = this.sql
      .stmt('device_update')
      .run({ id: r.id, sim_cards_json: r.simCards === null ? null : JSON.stringify(r.simCards), app_version: r.appVersion }).changes;
    return changed > 0;
  }

  async touchDevice(r: DeviceTouch): Promise<DevicePresence | null> {
    const row = this.sql.stmt('device_touch').get({ id: r.id, now: r.now, away: r.awayMs }) as Row | undefined;
    if (!row) return null;
    const returnedAt = numOrNull(row.returned_at);
    return { lastSeenAt: num(row.last_seen_at), returned: returnedAt === r.now, awaySince: returnedAt === r.now ? numOrNull(row.away_since) : null };
  }

  async listReturnedDevices(limit: number): Promise<DeviceRecord[]> {
    return (this.sql.stmt('devices_returned').all({ limit: Math.max(1, limit) }) as Row[]).map(toDeviceRecord);
  }

  async findLogin(login: string): Promise<GatewayLogin | null> {
    const r = this.sql.stmt('gateway_login_get').get({ login }) as Row | undefined;
    return r
      ? { login: String(r.login), providerAccount: String(r.provider_account), tenantId: String(r.tenant_id), passwordHash: String(r.password_hash) }
      : null;
  }

  async setLoginPassword(login: string, passwordHash: string): Promise<boolean> {
    return this.sql.stmt('gateway_login_set_password').run({ login, password_hash: passwordHash }).changes > 0;
  }

  async createLoginCode(r: NewLoginCode): Promise<void> {
    this.sql.stmt('login_code_insert').run({ code_hash: r.codeHash, login: r.login, valid_until: r.validUntil, now: r.now });
  }

  async useLoginCode(codeHash: string, now: number): Promise<string | null> {
    const r = this.sql.stmt('login_code_use').get({ code_hash: codeHash, now }) as Row | undefined;
    return r ? String(r.login) : null;
  }

  async deliveryPin(deliveryId: string): Promise<string | null> {
    const r = this.sql.stmt('delivery_pin').get({ delivery_id: deliveryId }) as Row | undefined;
    return typeof r?.device_id === 'string' ? r.device_id : null;
  }

  async deviceLoads(providerAccount: string, since: number): Promise<DeviceLoad[]> {
    return (this.sql.stmt('device_loads').all({ provider_account: providerAccount, since }) as Row[]).map((r) => ({
      deviceId: String(r.device_id),
      queueDepth: num(r.queue_depth),
      recentFailures: num(r.recent_failures),
    }));
  }

  async createOffer(o: NewOffer): Promise<OfferRecord> {
    try {
      return this.sql.write((): OfferRecord => {
        const next = this.sql.stmt('offer_next_seq').get({ delivery_id: o.deliveryId }) as Row | undefined;
        if (!next) throw new Error(`no delivery ${o.deliveryId} to offer`);
        const seq = num(next.seq);
        const row = this.sql.stmt('offer_insert').get({
          message_id: gatewayMessageId(o.idempotencyKey, seq),
          delivery_id: o.deliveryId,
          seq,
          attempt_number: num(next.attempt_number),
          device_id: o.deviceId,
          provider_account: o.providerAccount,
          sim_number: o.simNumber,
          priority: o.priority,
          valid_until: o.validUntil,
          now: o.now,
        }) as Row;
        return toOfferRecord(row);
      });
    } catch (err) {
      if (isConstraintError(err))
        throw new StoreConflictError(`an offer of delivery ${o.deliveryId} raced this one`, { constraint: 'device_offers' }, { cause: err });
      throw err;
    }
  }

  async pullOffers(r: OfferPull): Promise<PulledMessage[]> {
    return this.sql.write((): PulledMessage[] => {
      const ids = (
        this.sql.stmt('offers_pull').all({ device_id: r.deviceId, fifo: r.order === 'fifo' ? 1 : 0, limit: Math.max(1, r.limit), now: r.now }) as Row[]
      ).map((x) => num(x.id));
      if (ids.length === 0) return [];
      const rows = this.sql.stmt('offer_messages').all({ ids: JSON.stringify(ids) }) as Row[];
      return sortPulled(
        rows.map((row) => this.sql.openRow(row, 'notifications', 'notification_id')),
        r.order,
      );
    });
  }

  async recordReports(b: ReportBatch): Promise<RecordedReports> {
    return this.sql.write((): RecordedReports => {
      let recorded = 0;
      let unknown = 0;
      for (const rep of b.reports) {
        const cur = this.sql.stmt('offer_for_report').get({ message_id: rep.messageId, device_id: b.deviceId }) as Row | undefined;
        if (!cur || cur.state === 'withdrawn') {
          unknown++;
          continue;
        }
        const next = foldReport(cur, rep);
        if (!next) continue;
        this.sql.stmt('offer_record_report').run({ id: cur.id, phone_state: next.state, phone_error: rep.error, sent: next.sent ? 1 : 0, now: b.now });
        recorded++;
      }
      return { recorded, unknown };
    });
  }

  async listUnappliedReports(limit: number): Promise<UnappliedReport[]> {
    return (this.sql.stmt('reports_unapplied').all({ limit: Math.max(1, limit) }) as Row[]).map(toUnappliedReport);
  }

  async applyReports(writes: ReportWrite[]): Promise<boolean[]> {
    if (writes.length === 0) return [];
    return this.sql.write(() =>
      writes.map((w) => {
        try {
          // A nested better-sqlite3 transaction is a SAVEPOINT: a refused guard undoes this write alone.
          this.sql.db.transaction(() => this.applyOne(w))();
          return true;
        } catch (err) {
          if (err instanceof GuardRefused) return false;
          throw err;
        }
      }),
    );
  }

  private applyOne(w: ReportWrite): void {
    // The report first: a newer one arrived meanwhile → decide again with it next pass.
    if (this.sql.stmt('report_mark_applied').run({ id: w.offerId, report_seq: w.reportSeq }).changes === 0) throw new GuardRefused();
    if (w.expect === null) return;
    const t = w.transition;
    const row = this.sql.stmt('report_delivery_apply').get({
      id: w.deliveryId,
      expect_state: w.expect.state,
      expect_lease_version: w.expect.leaseVersion,
      expect_downstream: w.expect.downstreamStatus,
      to_state: t?.to ?? null,
      terminal_reason: t?.terminalReason ?? null,
      next_attempt_at: t?.nextAttemptAt ?? null,
      downstream_status: w.downstreamStatus,
      provider_message_id: w.providerMessageId,
      last_error_code: w.lastErrorCode,
      now: w.now,
    }) as Row | undefined;
    if (!row) throw new GuardRefused();
    const outbox = (eventType: string, payload: string) =>
      this.sql.stmt('outbox_insert').run({
        tenant_id: row.tenant_id,
        notification_id: row.notification_id,
        delivery_id: w.deliveryId,
        event_type: eventType,
        payload_json: payload,
        now: w.now,
      });
    if (t) outbox(`delivery.${t.to}`, transitionPayload({ deliveryId: w.deliveryId, expect: w.expect, transition: t, now: w.now }));
    const ds = reportDownstreamEvent(w.deliveryId, w.expect.downstreamStatus, w.downstreamStatus);
    if (ds) outbox(ds.eventType, ds.payload);
    if (w.resolvesAttempt !== null)
      this.sql.stmt('attempt_resolve').run({ delivery_id: w.deliveryId, number: w.resolvesAttempt, resolution: 'callback', policy: null });
  }

  async currentOffer(q: CurrentOfferQuery): Promise<OfferRecord | null> {
    const r = this.sql.stmt('offer_current').get({ provider_account: q.providerAccount, idempotency_key: q.idempotencyKey }) as Row | undefined;
    return r ? toOfferRecord(r) : null;
  }

  async withdrawOffer(offerId: number): Promise<boolean> {
    return this.sql.stmt('offer_withdraw').run({ id: offerId }).changes > 0;
  }

  async reofferOffers(offerIds: number[], now: number): Promise<number> {
    if (offerIds.length === 0) return 0;
    return this.sql.stmt('offers_reoffer').run({ ids: JSON.stringify(offerIds), now }).changes;
  }

  async getOfferByMessageId(messageId: string): Promise<DeviceMessageView | null> {
    const r = this.sql.stmt('device_message_get').get({ message_id: messageId }) as Row | undefined;
    return r ? toDeviceMessageView(r) : null;
  }

  async listDeliveryOffers(deliveryId: string): Promise<DeviceMessageView[]> {
    return (this.sql.stmt('delivery_offers').all({ delivery_id: deliveryId }) as Row[]).map(toDeviceMessageView);
  }

  async listDeviceMessages(deviceId: string, filter: DeviceMessageFilter, beforeId: number | null, limit: number): Promise<DeviceMessageView[]> {
    return (
      this.sql.stmt('device_messages_list').all({
        device_id: deviceId,
        state: filter.state ?? null,
        phone_state: filter.phoneState ?? null,
        before: beforeId,
        limit: Math.max(1, limit),
      }) as Row[]
    ).map(toDeviceMessageView);
  }

  async sweepCandidates(q: SweepQuery): Promise<SweepCandidates> {
    const read = this.sql.db.transaction((): SweepCandidates => {
      const failed = (
        this.sql
          .stmt('sweep_failed')
          .all({ device_id: q.deviceId, provider_account: q.providerAccount, since: q.since, now: q.now, limit: Math.max(1, q.limit) }) as Row[]
      ).map((r) => ({
        deliveryId: String(r.id),
        state: r.state as SweepCandidates['failed'][number]['state'],
        terminalReason: (r.terminal_reason ?? null) as SweepCandidates['failed'][number]['terminalReason'],
        attemptCount: num(r.attempt_count),
        leaseVersion: num(r.lease_version),
        expiresAt: num(r.expires_at),
        nextAttemptAt: numOrNull(r.next_attempt_at),
      }));
      const unknown = (this.sql.stmt('sweep_unknown').all({ device_id: q.deviceId, since: q.since, now: q.now, limit: Math.max(1, q.limit) }) as Row[]).map(
        (r) => ({
          offerId: num(r.offer_id),
          messageId: String(r.message_id),
          deliveryId: String(r.delivery_id),
        }),
      );
      const expired = num(
        (this.sql.stmt('sweep_expired').get({ device_id: q.deviceId, provider_account: q.providerAccount, since: q.since, now: q.now }) as Row).n,
      );
      return { failed, unknown, expired };
    });
    return read.deferred();
  }

  async recordSweep(w: SweepWrite): Promise<SweepRecord | null> {
    return this.sql.write((): SweepRecord | null => {
      if (w.returnedAt !== null && !this.sql.stmt('device_return_check').get({ id: w.deviceId, returned_at: w.returnedAt })) return null;
      let retried = 0;
      for (const r of w.retries) {
        if (!applyTransition(this.sql, r.write)) continue;
        this.sql.stmt('replay_insert').run({
          delivery_id: r.write.deliveryId,
          requested_by: w.requestedBy,
          from_state: r.write.expect.state,
          from_reason: r.fromReason,
          accept_duplicate_risk: 0,
          note: w.cause === 'return' ? 'heartbeat sweep: the device came back' : 'operator: retry the device’s failed messages',
          now: w.now,
        });
        retried++;
      }
      const reoffered = w.reofferIds.length === 0 ? 0 : this.sql.stmt('offers_reoffer').run({ ids: JSON.stringify(w.reofferIds), now: w.now }).changes;
      if (w.finishReturn && w.returnedAt !== null) this.sql.stmt('device_return_clear').run({ id: w.deviceId, returned_at: w.returnedAt });
      const row = this.sql.stmt('sweep_insert').get({
        device_id: w.deviceId,
        cause: w.cause,
        away_since: w.awaySince,
        returned_at: w.returnedAt,
        now: w.now,
        retried,
        reoffered,
        skipped_expired: w.skippedExpired,
      }) as Row;
      return toSweepRecord(row);
    });
  }

  async listSweeps(deviceId: string, limit: number): Promise<SweepRecord[]> {
    return (this.sql.stmt('sweeps_list').all({ device_id: deviceId, limit: Math.max(1, limit) }) as Row[]).map(toSweepRecord);
  }

  // One SQLite file serves one Herald process: its gateway signals its own connections in memory.
  async signalOffers(): Promise<void> {}

  async listenForOffers(_onOffer: OfferListener): Promise<Unsubscribe> {
    return async () => {};
  }
}
