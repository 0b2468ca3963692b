/**
 * The operator's view of the phones (`/v1/devices`): each device's health, its messages by
 * state, its heartbeat sweeps, and the two actions: retry one message, and retry every failed
 * message of a device. A retry of a failed message is a replay (audited, same key, a new offer
 * with a new message id); a "retry" of an `unknown` one is a re-offer under its same id, the
 * look-up, which never risks a second SMS while the phone holds the record.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { Clock } from '../clock.js';
import { decide, DEFAULT_RETRY_POLICY, isLowBattery } from '../domain/index.js';
import { HeraldError } from '../errors.js';
import type { DeviceHealthRecord, DeviceMessageFilter, DeviceMessageView, DeviceRecord, Store, SweepRecord } from '../store/store.js';
import { deviceHealth } from './device-choice.js';
import type { DeviceEventHub } from './event-hub.js';
import type { HeartbeatSweep } from './heartbeat-sweep.js';

export interface DeviceOperatorOptions {
  store: Store;
  clock: Clock;
  awayMs: number;
  windowMs: number;
  sweep: HeartbeatSweep;
  /** This process's SSE connections (null in a process that holds none). */
  hub: DeviceEventHub | null;
  signal: (deviceId: string) => void;
  wake?: (providerAccount: string) => void;
}

const textOrNull = Type.Union([Type.String(), Type.Null()]);
const time = Type.String({ format: 'date-time' });

/**
 * A phone's newest health report as the API shows it (docs/inbound.md "The phone's health").
 * Declared once here: the TS type below, the `PhoneHealth` answer schema GET /v1/devices
 * publishes (http/response-schemas.ts), and so the dashboard's type (generated from it).
 */
export const phoneHealthSchema = Type.Object(
  {
    reported_at: time,
    battery_percent: Type.Union([Type.Number(), Type.Null()]),
    charging: Type.Union([Type.Boolean(), Type.Null()], { description: 'On power: charging, or plugged in with a full battery.' }),
    internet: Type.Union([Type.Boolean(), Type.Null()]),
    transports: Type.Union([Type.Array(Type.String()), Type.Null()]),
    cellular: textOrNull,
    signal: Type.Union([Type.Number(), Type.Null()], { description: 'The app reports none today.' }),
    low_battery: Type.Boolean({
      description: 'Battery below 15 % and not charging: the operator alert fires (device choice does not read it yet, docs/inbound.md).',
    }),
  },
  { $id: 'PhoneHealth', additionalProperties: false },
);
export type PhoneHealthView = Static<typeof phoneHealthSchema>;

/** A device's health as the API shows it (GET /v1/devices, /v1/devices/{id}); `Device` in the published document. */
export const deviceHealthSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    provider_account: Type.String(),
    online: Type.Boolean(),
    connections: Type.Integer({ description: 'SSE connections to this API process.' }),
    last_seen_at: time,
    away_since: Type.Union([time, Type.Null()]),
    queue_depth: Type.Integer(),
    failures_24h: Type.Integer(),
    sim_cards: Type.Union([
      Type.Array(
        Type.Object(
          { slotIndex: Type.Integer(), simNumber: Type.Integer(), phoneNumber: textOrNull, carrierName: textOrNull, iccid: textOrNull },
          { additionalProperties: false, description: 'A SIM as the app reports it: phone number, carrier and ICCID masked but the last 4 characters.' },
        ),
      ),
      Type.Null(),
    ]),
    app_version: textOrNull,
    registered_at: time,
    sweep_pending: Type.Boolean({ description: 'The device came back and its heartbeat sweep has not run yet.' }),
    phone_health: Type.Union([Type.Unsafe<PhoneHealthView>({ $ref: 'PhoneHealth#' }), Type.Null()], {
      description: "The phone's newest own report (`system:ping`): battery, power, network; null when it never pinged.",
    }),
  },
  { $id: 'Device', additionalProperties: false },
);
export type DeviceHealthView = Static<typeof deviceHealthSchema>;

function phoneHealthView(r: DeviceHealthRecord | undefined): PhoneHealthView | null {
  if (!r) return null;
  return {
    reported_at: iso(r.at)!,
    battery_percent: r.batteryPercent,
    charging: r.charging,
    internet: r.internet,
    transports: r.transports,
    cellular: r.cellular,
    signal: r.signal,
    low_battery: isLowBattery(r),
  };
}

const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

export class DeviceOperator {
  constructor(private readonly opts: DeviceOperatorOptions) {}

  /** The tenant's devices with their health. */
  async list(tenantId: string): Promise<DeviceHealthView[]> {
    const devices = await this.opts.store.devices.listDevices({ tenantId });
    const accounts = [...new Set(devices.map((d) => d.providerAccount))];
    const now = this.opts.clock.now();
    const loads = new Map(
      (await Promise.all(accounts.map((a) => this.opts.store.devices.deviceLoads(a, now - this.opts.windowMs)))).flat().map((l) => [l.deviceId, l] as const),
    );
    const health = new Map(
      devices.length === 0 ? [] : (await this.opts.store.inbound.latestHealth(devices.map((d) => d.id))).map((r) => [r.deviceId, r] as const),
    );
    return devices.map((d) => this.view(d, loads.get(d.id), health.get(d.id), now));
  }

  /** One of the tenant's devices, or a 404. */
  async get(tenantId: string, id: string): Promise<DeviceHealthView> {
    const d = await this.device(tenantId, id);
    const now = this.opts.clock.now();
    const load = (await this.opts.store.devices.deviceLoads(d.providerAccount, now - this.opts.windowMs)).find((l) => l.deviceId === d.id);
    const [health] = await this.opts.store.inbound.latestHealth([d.id]);
    return this.view(d, load, health, now);
  }

  async messages(tenantId: string, id: string, filter: DeviceMessageFilter, before: number | null, limit: number): Promise<DeviceMessageView[]> {
    await this.device(tenantId, id);
    return this.opts.store.devices.listDeviceMessages(id, filter, before, limit);
  }

  /** One message of the device by its message id (what the phone calls it), or a 404. */
  async message(tenantId: string, id: string, messageId: string): Promise<DeviceMessageView> {
    await this.device(tenantId, id);
    const m = await this.opts.store.devices.getOfferByMessageId(messageId);
    if (!m || m.deviceId !== id) throw new HeraldError('not_found', `device ${id} has no message ${messageId}`);
    return m;
  }

  async sweeps(tenantId: string, id: string, limit: number): Promise<SweepRecord[]> {
    await this.device(tenantId, id);
    return this.opts.store.devices.listSweeps(id, limit);
  }

  /**
   * POST /v1/devices/:id/retry-failed: every failed message of the window that has not expired, now; recorded as a sweep.
   * A failure the phone reported is counted even when the applier has not applied it yet (the sweep applies the recorded reports first).
   */
  async retryFailed(tenantId: string, id: string, requestedBy: string): Promise<SweepRecord> {
    const d = await this.device(tenantId, id);
    const record = await this.opts.sweep.sweepDevice(d, 'operator', requestedBy);
    if (!record) throw new HeraldError('service_unavailable', 'the sweep could not be recorded; retry');
    return record;
  }

  /**
   * Retries one message of the device: a failed one is replayed (new offer), an unknown one re-offered under its id.
   * The recorded reports are applied first: the message list shows a phone's Failed the moment the report is
   * recorded, while the delivery moves (unknown → retryable) only when the report is applied.
   */
  async retryMessage(
    tenantId: string,
    id: string,
    messageId: string,
    requestedBy: string,
  ): Promise<{ action: 'retried' | 'reoffered'; message: DeviceMessageView }> {
    await this.device(tenantId, id);
    await this.opts.sweep.applyRecordedReports();
    const m = await this.opts.store.devices.getOfferByMessageId(messageId);
    if (!m || m.deviceId !== id) throw new HeraldError('not_found', `device ${id} has no message ${messageId}`);
    const now = this.opts.clock.now();
    if (!m.current) throw new HeraldError('not_replayable', `message ${messageId} is not its delivery's current submission; retry the newest one`);
    if (now >= m.expiresAt) throw new HeraldError('replay_expired', `message ${messageId} expired at ${new Date(m.expiresAt).toISOString()}`);
    const unknown = m.deliveryState === 'unknown' || (m.deliveryState === 'terminal' && m.terminalReason === 'unresolved');
    if (unknown && (m.state === 'pulled' || m.state === 'reoffered')) {
      await this.opts.store.devices.reofferOffers([m.id], now);
      this.opts.signal(id);
      return { action: 'reoffered', message: (await this.opts.store.devices.getOfferByMessageId(messageId))! };
    }
    const failed = m.state === 'reported' && m.phoneState === 'Failed' && !m.sent;
    const delivery = await this.opts.store.getDelivery(m.deliveryId);
    if (!failed || !delivery)
      throw new HeraldError(
        'not_replayable',
        `message ${messageId} is ${m.state}${m.phoneState ? ` (${m.phoneState})` : ''} and its delivery ${m.deliveryState}: only a message the phone failed before sending is retried, and an unknown one re-offered`,
      );
    const decision = decide(delivery, { type: 'replay', acceptDuplicateRisk: false }, { now, policy: DEFAULT_RETRY_POLICY, random: Math.random });
    if (!decision.ok) throw new HeraldError('not_replayable', `delivery ${delivery.id} cannot be retried: ${decision.reason}`);
    const applied = await this.opts.store.review.replayDelivery({
      write: { deliveryId: delivery.id, expect: { state: delivery.state, leaseVersion: delivery.leaseVersion }, transition: decision, now },
      audit: {
        requestedBy,
        acceptDuplicateRisk: false,
        note: `retry of message ${messageId} on device ${id}`,
        fromReason: delivery.state === 'terminal' ? delivery.terminalReason : null,
      },
    });
    if (!applied) throw new HeraldError('not_replayable', `delivery ${delivery.id} changed meanwhile; read it and decide again`);
    this.opts.wake?.(delivery.providerAccount);
    return { action: 'retried', message: (await this.opts.store.devices.getOfferByMessageId(messageId))! };
  }

  private async device(tenantId: string, id: string): Promise<DeviceRecord> {
    const d = await this.opts.store.devices.getDevice(id);
    if (!d || d.tenantId !== tenantId) throw new HeraldError('not_found', `no device ${id}`);
    return d;
  }

  private view(d: DeviceRecord, load: Parameters<typeof deviceHealth>[1], health: DeviceHealthRecord | undefined, now: number): DeviceHealthView {
    const connections = this.opts.hub?.connected(d.id) ?? 0;
    const h = deviceHealth(d, load, now, this.opts.awayMs);
    const online = h.online || connections > 0;
    return {
      id: d.id,
      name: d.name,
      provider_account: d.providerAccount,
      online,
      connections,
      last_seen_at: iso(d.lastSeenAt)!,
      away_since: online ? null : iso(h.awaySince),
      queue_depth: h.queueDepth,
      failures_24h: h.recentFailures,
      sim_cards: d.simCards,
      app_version: d.appVersion,
      registered_at: iso(d.createdAt)!,
      sweep_pending: d.returnedAt !== null,
      phone_health: phoneHealthView(health),
    };
  }
}
