/**
 * The Android phone gateway of one Herald process, assembled from configuration: the accounts'
 * tokens and limits, this process's SSE connections, the device API's logic, the adapters' port
 * (offers and look-ups), the report applier and the heartbeat sweep. The API role serves the
 * device API and the operator routes; the worker role runs the applier and the sweep. Offers
 * made by a worker in another process reach this process's connections through the store
 * (PostgreSQL NOTIFY); in one process they are signalled in memory.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { DevicesConfig } from '../config/config.js';
import type { DownstreamStatus, Random } from '../domain/index.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import type { Store, Unsubscribe } from '../store/store.js';
import { DeviceOperator } from './device-operator.js';
import { DeviceService } from './device-service.js';
import { DeviceEventHub } from './event-hub.js';
import { GatewayAccounts } from './gateway-accounts.js';
import { HeartbeatSweep } from './heartbeat-sweep.js';
import { OfferGateway } from './offer-gateway.js';
import { PhoneWebhooks } from './phone-webhooks.js';
import { ReportApplier } from './report-applier.js';

export interface DeviceGatewayOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  accounts: readonly ProviderAccountConfig[];
  devices: DevicesConfig;
  env?: NodeJS.ProcessEnv;
  /** Wakes this process's claim loops of an account (a retry is due now). */
  wake?: (providerAccount: string) => void;
  random?: Random;
  /** How often the applier and the sweep look for work that another process recorded. Default 1000. */
  intervalMs?: number;
  /** Hears each applied phone report that says where the message is (the report applier's onSignal). */
  onSignal?: (status: DownstreamStatus) => void;
}

export interface DeviceGateway {
  readonly basePath: string;
  readonly accounts: GatewayAccounts;
  readonly hub: DeviceEventHub;
  readonly service: DeviceService;
  readonly operator: DeviceOperator;
  /** The port the android_gateway adapters use (AdapterContext.deviceGateway). */
  readonly offers: OfferGateway;
  readonly reports: ReportApplier;
  readonly sweep: HeartbeatSweep;
  /** The phones' own webhooks: their settings, their endpoints, what a call does. */
  readonly webhooks: PhoneWebhooks;
  /** Tells a device to pull: its connections here, and (PostgreSQL) those of other processes. */
  signal(deviceId: string): void;
  /** Hears other processes' offers (api role). */
  listen(): Promise<void>;
  /** Starts the report applier and the heartbeat sweep (worker role). */
  startLoops(): void;
  /** Stops the loops, the listener and every SSE connection. */
  close(): Promise<void>;
}

/** The gateway, or null when no android_gateway account is configured. Throws ConfigError for a shared private token. */
export function createDeviceGateway(opts: DeviceGatewayOptions): DeviceGateway | null {
  const accounts = new GatewayAccounts(opts.accounts, opts.env);
  if (accounts.size === 0) return null;
  const { store, clock, logger } = opts;
  const awayMs = opts.devices.away_after_seconds * 1000;
  const windowMs = opts.devices.sweep_lookback_hours * 3_600_000;
  let unlisten: Unsubscribe | null = null;
  // Names this process in its signals, so it does not hear its own offers twice.
  const origin = randomBytes(6).toString('hex');
  const signal = (deviceId: string): void => {
    hub.messageEnqueued(deviceId);
    void store.devices
      .signalOffers([deviceId], origin)
      .catch((err) => logger.warn({ err, deviceId }, 'cannot signal other processes; the phone pulls at its next connection or poll'));
  };
  const reports = new ReportApplier({
    store,
    clock,
    logger,
    accounts: opts.accounts,
    intervalMs: opts.intervalMs,
    random: opts.random,
    wake: opts.wake,
    ...(opts.onSignal ? { onSignal: opts.onSignal } : {}),
  });
  // Every sweep (a return's, the operator's retry-failed) and the operator's one-message retry
  // apply the recorded reports first, in any role: the pass is guarded writes, so one beside the
  // worker's own loop (or another process's) only loses races.
  const sweep = new HeartbeatSweep({
    store,
    clock,
    logger,
    lookbackMs: windowMs,
    intervalMs: opts.intervalMs,
    signal,
    wake: opts.wake,
    applyReports: () => reports.runOnce(),
  });
  const service: DeviceService = new DeviceService({
    store,
    clock,
    logger,
    accounts,
    awayMs,
    onReturn: () => sweep.poke(),
    onReports: () => reports.poke(),
  });
  const hub = new DeviceEventHub({
    keepaliveMs: opts.devices.keepalive_seconds * 1000,
    onKeepalive: (deviceId) => void service.touch(deviceId).catch((err) => logger.warn({ err, deviceId }, 'cannot record presence')),
    logger,
  });
  const offers = new OfferGateway({ store, clock, logger, accounts, awayMs, windowMs, signal });
  const webhooks = new PhoneWebhooks({
    store,
    clock,
    logger,
    basePath: opts.devices.base_path,
    onReports: () => reports.poke(),
    accounts: opts.accounts,
    ...(opts.wake ? { wake: opts.wake } : {}),
  });
  const operator = new DeviceOperator({ store, clock, awayMs, windowMs, sweep, hub, signal, wake: opts.wake });
  return {
    basePath: opts.devices.base_path,
    accounts,
    hub,
    service,
    operator,
    offers,
    reports,
    sweep,
    webhooks,
    signal,
    async listen() {
      // Only another process's offers: this one's are already signalled in memory.
      unlisten = await store.devices
        .listenForOffers((deviceId, from) => {
          if (from !== origin) hub.messageEnqueued(deviceId);
        })
        .catch((err) => {
          logger.warn({ err }, 'cannot listen for offers of other processes; phones pull on their next connection or poll');
          return null;
        });
    },
    startLoops() {
      reports.start();
      sweep.start();
    },
    async close() {
      await reports.stop();
      await sweep.stop();
      await unlisten?.();
      hub.closeAll();
    },
  };
}
