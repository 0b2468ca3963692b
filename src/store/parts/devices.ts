/**
 * `store.devices`, written once for both drivers (see ../device-store.ts): the Android gateway
 * phones, their offers and reports, and the heartbeat sweep. Applying a batch of reports (a
 * savepoint per write in SQLite, a transaction per write in PostgreSQL) and the offer signal
 * between processes (PostgreSQL NOTIFY; nothing in SQLite's one process) are the drivers' own
 * (sqlite/devices.ts, postgres/devices.ts); the statements of one report write are here.
 */
import { deliveryKeyOfReference, gatewayMessageId } from '../../domain/index.js';
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
  OfferPreferences,
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
import { num, numOrNull } from '../rows.js';
import { type Body, type Executor, all, allOf, count, list, one } from '../sql-executor.js';
import { type GuardedTransition, transitionPayload } from '../transition-fields.js';

/** Android gateway phones, their offers and reports, and the heartbeat sweep. */
export abstract class DevicesPart implements DeviceStore {
  constructor(
    protected readonly x: Executor,
    private readonly transition: GuardedTransition,
  ) {}

  /** Applies each write alone: a refused guard undoes that write and no other. */
  abstract applyReports(writes: ReportWrite[]): Promise<boolean[]>;

  abstract signalOffers(deviceIds: string[], origin: string): Promise<void>;

  abstract listenForOffers(onOffer: OfferListener): Promise<Unsubscribe>;

  async registerDevice(r: DeviceRegistration): Promise<void> {
    const d = r.device;
    try {
      await this.x.transaction(function* () {
        if (r.login) {
          const l = r.login;
          yield* count('gateway_login_insert', {
            login: l.login,
            provider_account: l.providerAccount,
            tenant_id: l.tenantId,
            password_hash: l.passwordHash,
            now: l.now,
          });
        }
        yield* count('device_insert', {
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
      if (this.x.isConflict(err)) throw new StoreConflictError('a device or login with this id already exists', { constraint: 'devices' }, { cause: err });
      throw err;
    }
  }

  async findDeviceByToken(tokenHash: string): Promise<DeviceRecord | null> {
    const r = await this.x.one('device_by_token', { token_hash: tokenHash });
    return r ? toDeviceRecord(r) : null;
  }

  async getDevice(id: string): Promise<DeviceRecord | null> {
    const r = await this.x.one('device_get', { id });
    return r ? toDeviceRecord(r) : null;
  }

  async listDevices(filter: { tenantId?: string; providerAccount?: string }): Promise<DeviceRecord[]> {
    return (await this.x.all('devices_list', { tenant_id: filter.tenantId ?? null, provider_account: filter.providerAccount ?? null })).map(toDeviceRecord);
  }

  async updateDevice(r: DeviceUpdate): Promise<boolean> {
    const params = { id: r.id, sim_cards_json: r.simCards === null ? null : JSON.stringify(r.simCards), app_version: r.appVersion };
    return (await this.x.count('device_update', params)) > 0;
  }

  async touchDevice(r: DeviceTouch): Promise<DevicePresence | null> {
    const row = await this.x.one('device_touch', { id: r.id, now: r.now, away: r.awayMs });
    if (!row) return null;
    const returnedAt = numOrNull(row.returned_at);
    return { lastSeenAt: num(row.last_seen_at), returned: returnedAt === r.now, awaySince: returnedAt === r.now ? numOrNull(row.away_since) : null };
  }

  async listReturnedDevices(limit: number): Promise<DeviceRecord[]> {
    return (await this.x.all('devices_returned', { limit: Math.max(1, limit) })).map(toDeviceRecord);
  }

  async findLogin(login: string): Promise<GatewayLogin | null> {
    const r = await this.x.one('gateway_login_get', { login });
    return r
      ? { login: String(r.login), providerAccount: String(r.provider_account), tenantId: String(r.tenant_id), passwordHash: String(r.password_hash) }
      : null;
  }

  async setLoginPassword(login: string, passwordHash: string): Promise<boolean> {
    return (await this.x.count('gateway_login_set_password', { login, password_hash: passwordHash })) > 0;
  }

  async createLoginCode(r: NewLoginCode): Promise<void> {
    await this.x.count('login_code_insert', { code_hash: r.codeHash, login: r.login, valid_until: r.validUntil, now: r.now });
  }

  async useLoginCode(codeHash: string, now: number): Promise<string | null> {
    const r = await this.x.one('login_code_use', { code_hash: codeHash, now });
    return r ? String(r.login) : null;
  }

  async offerPreferences(deliveryId: string): Promise<OfferPreferences> {
    const r = await this.x.one('offer_preferences', { delivery_id: deliveryId });
    // Metadata is the producer's JSON: only a SIM number 1-3 counts (PostgreSQL's ->> gives text).
    const sim = r?.sim_number === null || r?.sim_number === undefined ? NaN : Number(r.sim_number);
    return {
      deviceId: typeof r?.device_id === 'string' ? r.device_id : null,
      simNumber: Number.isInteger(sim) && sim >= 1 && sim <= 3 ? sim : null,
    };
  }

  async deviceLoads(providerAccount: string, since: number): Promise<DeviceLoad[]> {
    return (await this.x.all('device_loads', { provider_account: providerAccount, since })).map((r) => ({
      deviceId: String(r.device_id),
      queueDepth: num(r.queue_depth),
      recentFailures: num(r.recent_failures),
    }));
  }

  async createOffer(o: NewOffer): Promise<OfferRecord> {
    try {
      return await this.x.transaction(function* () {
        const next = yield* one('offer_next_seq', { delivery_id: o.deliveryId });
        if (!next) throw new Error(`no delivery ${o.deliveryId} to offer`);
        const seq = num(next.seq);
        const row = yield* one('offer_insert', {
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
        });
        return toOfferRecord(row!);
      });
    } catch (err) {
      if (this.x.isConflict(err))
        throw new StoreConflictError(`an offer of delivery ${o.deliveryId} raced this one`, { constraint: 'device_offers' }, { cause: err });
      throw err;
    }
  }

  pullOffers(r: OfferPull): Promise<PulledMessage[]> {
    const x = this.x;
    return x.transaction(function* () {
      const pulled = yield* all('offers_pull', { device_id: r.deviceId, fifo: r.order === 'fifo', limit: Math.max(1, r.limit), now: r.now });
      if (pulled.length === 0) return [];
      const rows = yield* all('offer_messages', { ids: list(pulled.map((p) => num(p.id))) });
      return sortPulled(
        rows.map((row) => x.openRow(row, 'notifications', 'notification_id')),
        r.order,
      );
    });
  }

  recordReports(b: ReportBatch): Promise<RecordedReports> {
    return this.x.transaction(function* () {
      let recorded = 0;
      let unknown = 0;
      for (const rep of b.reports) {
        const cur = yield* one('offer_for_report', { message_id: rep.messageId, device_id: b.deviceId });
        if (!cur || cur.state === 'withdrawn') {
          unknown++;
          continue;
        }
        const next = foldReport(cur, rep);
        if (!next) continue;
        yield* count('offer_record_report', { id: cur.id, phone_state: next.state, phone_error: rep.error, sent: next.sent, now: b.now });
        recorded++;
      }
      return { recorded, unknown };
    });
  }

  async listUnappliedReports(limit: number): Promise<UnappliedReport[]> {
    return (await this.x.all('reports_unapplied', { limit: Math.max(1, limit) })).map(toUnappliedReport);
  }

  /**
   * The statements of one report write, inside the driver's savepoint or transaction: the
   * delivery's provider account ('' when the write has no delivery change), or null when a guard
   * refused (a newer report arrived meanwhile, or the delivery moved): the driver undoes the write.
   */
  protected *applyReport(w: ReportWrite): Body<string | null> {
    // The report first: a newer one arrived meanwhile → decide again with it next pass.
    if ((yield* count('report_mark_applied', { id: w.offerId, report_seq: w.reportSeq })) === 0) return null;
    if (w.expect === null) return '';
    const t = w.transition;
    const row = yield* one('report_delivery_apply', {
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
    });
    if (!row) return null;
    const outbox = (eventType: string, payload: string) =>
      count('outbox_insert', {
        tenant_id: row.tenant_id,
        notification_id: row.notification_id,
        delivery_id: w.deliveryId,
        event_type: eventType,
        payload_json: payload,
        now: w.now,
      });
    if (t) yield* outbox(`delivery.${t.to}`, transitionPayload({ deliveryId: w.deliveryId, expect: w.expect, transition: t, now: w.now }));
    const ds = reportDownstreamEvent(w.deliveryId, w.expect.downstreamStatus, w.downstreamStatus);
    if (ds) yield* outbox(ds.eventType, ds.payload);
    if (w.resolvesAttempt !== null)
      yield* count('attempt_resolve', { delivery_id: w.deliveryId, number: w.resolvesAttempt, resolution: 'callback', policy: null, failover_reason: null });
    return String(row.provider_account);
  }

  async currentOffer(q: CurrentOfferQuery): Promise<OfferRecord | null> {
    const r = await this.x.one('offer_current', {
      provider_account: q.providerAccount,
      idempotency_key: deliveryKeyOfReference(q.idempotencyKey, q.providerAccount),
    });
    return r ? toOfferRecord(r) : null;
  }

  async withdrawOffer(offerId: number): Promise<boolean> {
    return (await this.x.count('offer_withdraw', { id: offerId })) > 0;
  }

  async reofferOffers(offerIds: number[], now: number): Promise<number> {
    if (offerIds.length === 0) return 0;
    return this.x.count('offers_reoffer', { ids: list(offerIds), now });
  }

  async getOfferByMessageId(messageId: string): Promise<DeviceMessageView | null> {
    const r = await this.x.one('device_message_get', { message_id: messageId });
    return r ? toDeviceMessageView(r) : null;
  }

  async listDeliveryOffers(deliveryId: string): Promise<DeviceMessageView[]> {
    return (await this.x.all('delivery_offers', { delivery_id: deliveryId })).map(toDeviceMessageView);
  }

  async listDeviceMessages(deviceId: string, filter: DeviceMessageFilter, beforeId: number | null, limit: number): Promise<DeviceMessageView[]> {
    const params = {
      device_id: deviceId,
      state: filter.state ?? null,
      phone_state: filter.phoneState ?? null,
      current: filter.current ? true : null,
      before: beforeId,
      limit: Math.max(1, limit),
    };
    return (await this.x.all('device_messages_list', params)).map(toDeviceMessageView);
  }

  sweepCandidates(q: SweepQuery): Promise<SweepCandidates> {
    const limit = Math.max(1, q.limit);
    return this.x.reads(function* () {
      const [failed, unknown, expired] = yield* allOf([
        ['sweep_failed', { device_id: q.deviceId, provider_account: q.providerAccount, since: q.since, now: q.now, limit }],
        ['sweep_unknown', { device_id: q.deviceId, since: q.since, now: q.now, limit }],
        ['sweep_expired', { device_id: q.deviceId, provider_account: q.providerAccount, since: q.since, now: q.now }],
      ]);
      return {
        failed: failed!.map((r) => ({
          deliveryId: String(r.id),
          state: r.state as SweepCandidates['failed'][number]['state'],
          terminalReason: (r.terminal_reason ?? null) as SweepCandidates['failed'][number]['terminalReason'],
          attemptCount: num(r.attempt_count),
          leaseVersion: num(r.lease_version),
          expiresAt: num(r.expires_at),
          nextAttemptAt: numOrNull(r.next_attempt_at),
        })),
        unknown: unknown!.map((r) => ({ offerId: num(r.offer_id), messageId: String(r.message_id), deliveryId: String(r.delivery_id) })),
        expired: num(expired![0]?.n ?? 0),
      };
    });
  }

  async recordSweep(w: SweepWrite): Promise<SweepRecord | null> {
    const out = await this.x.transaction(() => this.sweepBody(w));
    if (out === null) return null;
    // The replayed deliveries are ready now: workers in other processes.
    if (out.accounts.size > 0) this.x.wake(out.accounts);
    return out.record;
  }

  private *sweepBody(w: SweepWrite): Body<{ record: SweepRecord; accounts: Set<string> } | null> {
    if (w.returnedAt !== null && !(yield* one('device_return_check', { id: w.deviceId, returned_at: w.returnedAt }))) return null;
    const accounts = new Set<string>();
    let retried = 0;
    // One delivery per guarded transition: each replay is guarded on its own.
    for (const r of w.retries) {
      const account = yield* this.transition(r.write);
      if (account === null) continue;
      yield* count('replay_insert', {
        delivery_id: r.write.deliveryId,
        requested_by: w.requestedBy,
        from_state: r.write.expect.state,
        from_reason: r.fromReason,
        accept_duplicate_risk: false,
        note: w.cause === 'return' ? 'heartbeat sweep: the device came back' : 'operator: retry the device’s failed messages',
        now: w.now,
      });
      accounts.add(account);
      retried++;
    }
    const reoffered = w.reofferIds.length === 0 ? 0 : yield* count('offers_reoffer', { ids: list(w.reofferIds), now: w.now });
    if (w.finishReturn && w.returnedAt !== null) yield* count('device_return_clear', { id: w.deviceId, returned_at: w.returnedAt });
    const row = yield* one('sweep_insert', {
      device_id: w.deviceId,
      cause: w.cause,
      away_since: w.awaySince,
      returned_at: w.returnedAt,
      now: w.now,
      retried,
      reoffered,
      skipped_expired: w.skippedExpired,
    });
    return { record: toSweepRecord(row!), accounts };
  }

  async listSweeps(deviceId: string, limit: number): Promise<SweepRecord[]> {
    return (await this.x.all('sweeps_list', { device_id: deviceId, limit: Math.max(1, limit) })).map(toSweepRecord);
  }
}
