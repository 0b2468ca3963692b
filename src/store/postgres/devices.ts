/**
 * The PostgreSQL driver's devices part (see src/store/device-store.ts). Writes that touch several
 * rows run in one transaction; row locks (FOR UPDATE, SKIP LOCKED) keep two connections of one
 * phone, or two sweepers of one return, from doing the same work twice. Offers made in one
 * process reach the phones' SSE connections held by another through NOTIFY on a per-schema channel.
 */
import pg from 'pg';
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
import { num, numOrNull } from '../rows.js';
import { transitionPayload } from '../transition-fields.js';
import type { Client, PostgresContext } from './sql-context.js';
import { applyRun } from './transitions.js';

const isUniqueViolation = (err: unknown): boolean => (err as { code?: string } | null)?.code === '23505';

/** `store.devices` of the PostgreSQL store. */
export class PostgresDevices implements DeviceStore {
  /** NOTIFY channel, per schema, so stores sharing a server (tests) do not signal each other. */
  private readonly channel: string;

  constructor(
    private readonly sql: PostgresContext,
    private readonly connectionString: string,
  ) {
    this.channel = `herald_offers_${sql.schema}`;
  }

  async registerDevice(r: DeviceRegistration): Promise<void> {
    const d = r.device;
    try {
      await this.sql.tx(async (c) => {
        if (r.login) {
          const l = r.login;
          await this.sql.q('gateway_login_insert', [l.login, l.providerAccount, l.tenantId, l.passwordHash, l.now], c);
        }
        await this.sql.q(
          'device_insert',
          [d.id, d.tenantId, d.providerAccount, d.login, d.name, d.tokenHash, d.simCards === null ? null : JSON.stringify(d.simCards), d.appVersion, d.now],
          c,
        );
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new StoreConflictError('a device or login with this id already exists', { constraint: 'devices' }, { cause: err });
      throw err;
    }
  }

  async findDeviceByToken(tokenHash: string): Promise<DeviceRecord | null> {
    const [r] = await this.sql.q('device_by_token', [tokenHash]);
    return r ? toDeviceRecord(r) : null;
  }

  async getDevice(id: string): Promise<DeviceRecord | null> {
    const [r] = await this.sql.q('device_get', [id]);
    return r ? toDeviceRecord(r) : null;
  }

  async listDevices(filter: { tenantId?: string; providerAccount?: string }): Promise<DeviceRecord[]> {
    return (await this.sql.q('devices_list', [filter.tenantId ?? null, filter.providerAccount ?? null])).map(toDeviceRecord);
  }

  async updateDevice(r: DeviceUpdate): Promise<boolean> {
    return (await this.sql.q('device_update', [r.id, r.simCards === null ? null : JSON.stringify(r.simCards), r.appVersion])).length > 0;
  }

  async touchDevice(r: DeviceTouch): Promise<DevicePresence | null> {
    const [row] = await this.sql.q('device_touch', [r.id, r.now, r.awayMs]);
    if (!row) return null;
    const returnedAt = numOrNull(row.returned_at);
    return { lastSeenAt: num(row.last_seen_at), returned: returnedAt === r.now, awaySince: returnedAt === r.now ? numOrNull(row.away_since) : null };
  }

  async listReturnedDevices(limit: number): Promise<DeviceRecord[]> {
    return (await this.sql.q('devices_returned', [Math.max(1, limit)])).map(toDeviceRecord);
  }

  async findLogin(login: string): Promise<GatewayLogin | null> {
    const [r] = await this.sql.q('gateway_login_get', [login]);
    return r
      ? { login: String(r.login), providerAccount: String(r.provider_account), tenantId: String(r.tenant_id), passwordHash: String(r.password_hash) }
      : null;
  }

  async setLoginPassword(login: string, passwordHash: string): Promise<boolean> {
    return (await this.sql.q('gateway_login_set_password', [login, passwordHash])).length > 0;
  }

  async createLoginCode(r: NewLoginCode): Promise<void> {
    await this.sql.q('login_code_insert', [r.codeHash, r.login, r.validUntil, r.now]);
  }

  async useLoginCode(codeHash: string, now: number): Promise<string | null> {
    const [r] = await this.sql.q('login_code_use', [codeHash, now]);
    return r ? String(r.login) : null;
  }

  async deliveryPin(deliveryId: string): Promise<string | null> {
    const [r] = await this.sql.q('delivery_pin', [deliveryId]);
    return typeof r?.device_id === 'string' ? r.device_id : null;
  }

  async deviceLoads(providerAccount: string, since: number): Promise<DeviceLoad[]> {
    return (await this.sql.q('device_loads', [providerAccount, since])).map((r) => ({
      deviceId: String(r.device_id),
      queueDepth: num(r.queue_depth),
      recentFailures: num(r.recent_failures),
    }));
  }

  async createOffer(o: NewOffer): Promise<OfferRecord> {
    try {
      return await this.sql.tx(async (c) => {
        const [next] = await this.sql.q('offer_next_seq', [o.deliveryId], c);
        if (!next) throw new Error(`no delivery ${o.deliveryId} to offer`);
        const seq = num(next.seq);
        const [row] = await this.sql.q(
          'offer_insert',
          [
            gatewayMessageId(o.idempotencyKey, seq),
            o.deliveryId,
            seq,
            num(next.attempt_number),
            o.deviceId,
            o.providerAccount,
            o.simNumber,
            o.priority,
            o.validUntil,
            o.now,
          ],
          c,
        );
        return toOfferRecord(row!);
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new StoreConflictError(`an offer of delivery ${o.deliveryId} raced this one`, { constraint: 'device_offers' }, { cause: err });
      throw err;
    }
  }

  async pullOffers(r: OfferPull): Promise<PulledMessage[]> {
    return this.sql.tx(async (c) => {
      const ids = (await this.sql.q('offers_pull', [r.deviceId, r.order === 'fifo', Math.max(1, r.limit), r.now], c)).map((x) => num(x.id));
      if (ids.length === 0) return [];
      return sortPulled(
        (await this.sql.q('offer_messages', [ids], c)).map((row) => this.sql.openRow(row, 'notifications', 'notification_id')),
        r.order,
      );
    });
  }

  async recordReports(b: ReportBatch): Promise<RecordedReports> {
    return this.sql.tx(async (c) => {
      let recorded = 0;
      let unknown = 0;
      for (const rep of b.reports) {
        const [cur] = await this.sql.q('offer_for_report', [rep.messageId, b.deviceId], c);
        if (!cur || cur.state === 'withdrawn') {
          unknown++;
          continue;
        }
        const next = foldReport(cur, rep);
        if (!next) continue;
        await this.sql.q('offer_record_report', [cur.id, next.state, rep.error, next.sent, b.now], c);
        recorded++;
      }
      return { recorded, unknown };
    });
  }

  async listUnappliedReports(limit: number): Promise<UnappliedReport[]> {
    return (await this.sql.q('reports_unapplied', [Math.max(1, limit)])).map(toUnappliedReport);
  }

  /** One transaction per write: a refused guard rolls back that write alone. */
  async applyReports(writes: ReportWrite[]): Promise<boolean[]> {
    const out: boolean[] = [];
    const woken = new Set<string>();
    for (const w of writes) {
      const result = await this.sql
        .tx(async (c) => {
          const account = await this.applyOne(w, c);
          if (account === null) throw new GuardRefusedPg();
          return account;
        })
        .catch((err: unknown) => {
          if (err instanceof GuardRefusedPg) return null;
          throw err;
        });
      out.push(result !== null);
      if (result && (w.transition?.to === 'retryable' || w.transition?.to === 'ready')) woken.add(result);
    }
    // A retry is due: workers in other processes.
    if (woken.size > 0) this.sql.wakeListeners([...woken]);
    return out;
  }

  /** The provider account ('' when no delivery write), or null when a guard refused. */
  private async applyOne(w: ReportWrite, c: Client): Promise<string | null> {
    if ((await this.sql.q('report_mark_applied', [w.offerId, w.reportSeq], c)).length === 0) return null;
    if (w.expect === null) return '';
    const t = w.transition;
    const [row] = await this.sql.q(
      'report_delivery_apply',
      [
        w.deliveryId,
        w.expect.state,
        w.expect.leaseVersion,
        w.expect.downstreamStatus,
        t?.to ?? null,
        t?.terminalReason ?? null,
        t?.nextAttemptAt ?? null,
        w.downstreamStatus,
        w.providerMessageId,
        w.lastErrorCode,
        w.now,
      ],
      c,
    );
    if (!row) return null;
    const outbox = (eventType: string, payload: string) =>
      this.sql.q('outbox_insert', [row.tenant_id, row.notification_id, w.deliveryId, eventType, payload, w.now], c);
    if (t) await outbox(`delivery.${t.to}`, transitionPayload({ deliveryId: w.deliveryId, expect: w.expect, transition: t, now: w.now }));
    const ds = reportDownstreamEvent(w.deliveryId, w.expect.downstreamStatus, w.downstreamStatus);
    if (ds) await outbox(ds.eventType, ds.payload);
    if (w.resolvesAttempt !== null) await this.sql.q('attempt_resolve', [w.deliveryId, w.resolvesAttempt, 'callback', null], c);
    return String(row.provider_account);
  }

  async currentOffer(q: CurrentOfferQuery): Promise<OfferRecord | null> {
    const [r] = await this.sql.q('offer_current', [q.providerAccount, q.idempotencyKey]);
    return r ? toOfferRecord(r) : null;
  }

  async withdrawOffer(offerId: number): Promise<boolean> {
    return (await this.sql.q('offer_withdraw', [offerId])).length > 0;
  }

  async reofferOffers(offerIds: number[], now: number): Promise<number> {
    if (offerIds.length === 0) return 0;
    return (await this.sql.q('offers_reoffer', [offerIds, now])).length;
  }

  async getOfferByMessageId(messageId: string): Promise<DeviceMessageView | null> {
    const [r] = await this.sql.q('device_message_get', [messageId]);
    return r ? toDeviceMessageView(r) : null;
  }

  async listDeliveryOffers(deliveryId: string): Promise<DeviceMessageView[]> {
    return (await this.sql.q('delivery_offers', [deliveryId])).map(toDeviceMessageView);
  }

  async listDeviceMessages(deviceId: string, filter: DeviceMessageFilter, beforeId: number | null, limit: number): Promise<DeviceMessageView[]> {
    return (await this.sql.q('device_messages_list', [deviceId, filter.state ?? null, filter.phoneState ?? null, beforeId, Math.max(1, limit)])).map(
      toDeviceMessageView,
    );
  }

  async sweepCandidates(q: SweepQuery): Promise<SweepCandidates> {
    return this.sql.tx(async (c) => {
      const failed = (await this.sql.q('sweep_failed', [q.deviceId, q.providerAccount, q.since, q.now, Math.max(1, q.limit)], c)).map((r) => ({
        deliveryId: String(r.id),
        state: r.state as SweepCandidates['failed'][number]['state'],
        terminalReason: (r.terminal_reason ?? null) as SweepCandidates['failed'][number]['terminalReason'],
        attemptCount: num(r.attempt_count),
        leaseVersion: num(r.lease_version),
        expiresAt: num(r.expires_at),
        nextAttemptAt: numOrNull(r.next_attempt_at),
      }));
      const unknown = (await this.sql.q('sweep_unknown', [q.deviceId, q.since, q.now, Math.max(1, q.limit)], c)).map((r) => ({
        offerId: num(r.offer_id),
        messageId: String(r.message_id),
        deliveryId: String(r.delivery_id),
      }));
      const [e] = await this.sql.q('sweep_expired', [q.deviceId, q.providerAccount, q.since, q.now], c);
      return { failed, unknown, expired: num(e?.n ?? 0) };
    });
  }

  async recordSweep(w: SweepWrite): Promise<SweepRecord | null> {
    const out = await this.sql.tx(async (c) => {
      if (w.returnedAt !== null && (await this.sql.q('device_return_check', [w.deviceId, w.returnedAt], c)).length === 0) return null;
      let retried = 0;
      let account: string | null = null;
      // One delivery per statement run: each replay is guarded on its own.
      for (const r of w.retries) {
        if (!(await applyRun(this.sql, [r.write], c)).has(r.write.deliveryId)) continue;
        const note = w.cause === 'return' ? 'heartbeat sweep: the device came back' : 'operator: retry the device’s failed messages';
        const [row] = await this.sql.q('replay_insert', [r.write.deliveryId, w.requestedBy, r.write.expect.state, r.fromReason, false, note, w.now], c);
        account = row ? String(row.provider_account) : account;
        retried++;
      }
      const reoffered = w.reofferIds.length === 0 ? 0 : (await this.sql.q('offers_reoffer', [w.reofferIds, w.now], c)).length;
      if (w.finishReturn && w.returnedAt !== null) await this.sql.q('device_return_clear', [w.deviceId, w.returnedAt], c);
      const [row] = await this.sql.q('sweep_insert', [w.deviceId, w.cause, w.awaySince, w.returnedAt, w.now, retried, reoffered, w.skippedExpired], c);
      return { record: toSweepRecord(row!), account };
    });
    if (out === null) return null;
    if (out.account !== null) this.sql.wakeListeners([out.account]);
    return out.record;
  }

  async listSweeps(deviceId: string, limit: number): Promise<SweepRecord[]> {
    return (await this.sql.q('sweeps_list', [deviceId, Math.max(1, limit)])).map(toSweepRecord);
  }

  async signalOffers(deviceIds: string[], origin: string): Promise<void> {
    for (const id of new Set(deviceIds)) await this.sql.q('ready_notify', [this.channel, `${origin}|${id}`]).catch(() => {});
  }

  async listenForOffers(onOffer: OfferListener): Promise<Unsubscribe> {
    // A dedicated connection (LISTEN is per session); reconnects after errors with a short backoff.
    let stopped = false;
    let client: pg.Client | null = null;
    const connect = async (): Promise<void> => {
      if (stopped) return;
      const c = new pg.Client({ connectionString: this.connectionString });
      c.on('notification', (msg) => {
        const bar = msg.payload?.indexOf('|') ?? -1;
        if (msg.channel === this.channel && msg.payload && bar > 0) onOffer(msg.payload.slice(bar + 1), msg.payload.slice(0, bar));
      });
      c.on('error', () => {
        client = null;
        c.end().catch(() => {});
        if (!stopped) setTimeout(() => void connect().catch(() => {}), 1_000).unref();
      });
      await c.connect();
      await c.query(`LISTEN ${this.channel}`);
      client = c;
    };
    await connect();
    return async () => {
      stopped = true;
      await client?.end().catch(() => {});
      client = null;
    };
  }
}

class GuardRefusedPg extends Error {}
