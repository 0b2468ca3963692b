/**
 * The device gateway's side of the adapter seam (DeviceGatewayPort): what "submitting" and
 * "looking up" mean for a phone that pulls its work.
 *
 * `offer`: choose a device (the notification's pin, else the healthiest online one with a
 * permit) and the SIM (the notification's `herald_sim_number`, else the pacing's choice, else the
 * phone's), record the offer (its message id is stable for this submission), and tell the device
 * to pull. The answer is `unknown`: from the moment the offer is committed the phone may pull and
 * send it, and only its reports can say what happened. No device online, or none with a permit,
 * is a definite answer with nothing offered (`retryable`, `throttled`).
 *
 * `lookup` (the reconciler's, for an `unknown`): an offer never pulled within the pull timeout is
 * withdrawn (it provably never reached a phone: `not_found`, and the delivery retries); one
 * pulled without a report is re-offered under its same id after a while, so the phone re-reports
 * what it holds instead of sending again. Everything else waits for the report applier.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Purpose, SubmitOutcome } from '../domain/index.js';
import type { DeviceGatewayPort } from '../providers/device-gateway-port.js';
import type { LookupRequest, LookupResult, ProviderAccountConfig, SubmitRequest } from '../providers/provider.js';
import type { Store } from '../store/store.js';
import { deviceHealth, rankDevices, type DeviceHealth } from './device-choice.js';
import { acquireDevicePermit } from './device-pacing.js';
import type { GatewayAccounts } from './gateway-accounts.js';

/** The app's PRIORITY_EXPEDITED: at 100 and above a message skips the phone's own delays and limits. */
export const EXPEDITED_PRIORITY = 100;
/** Codes and alerts are read within seconds: Herald paces them itself (their lane), the phone must not delay them. */
const EXPEDITED: ReadonlySet<Purpose> = new Set(['otp', 'alert']);

export interface OfferGatewayOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  accounts: GatewayAccounts;
  awayMs: number;
  /** The window of a device's queue and failure counts (the sweep's look-back). */
  windowMs: number;
  /** Tells a device it has something to pull (this process's connections, and other processes'). */
  signal: (deviceId: string) => void;
}

function spreadOf(id: string): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return h;
}

export class OfferGateway implements DeviceGatewayPort {
  constructor(private readonly opts: OfferGatewayOptions) {}

  async offer(account: ProviderAccountConfig, request: SubmitRequest): Promise<SubmitOutcome> {
    const { store, clock } = this.opts;
    const g = this.opts.accounts.get(account.id);
    if (!g) throw new Error(`provider account ${account.id} is not an android_gateway account of this gateway`);
    const now = clock.now();
    const [{ deviceId: pin, simNumber: wantSim }, devices, loads] = await Promise.all([
      store.devices.offerPreferences(request.deliveryId),
      store.devices.listDevices({ providerAccount: account.id }),
      store.devices.deviceLoads(account.id, now - this.opts.windowMs),
    ]);
    const byId = new Map(loads.map((l) => [l.deviceId, l] as const));
    const health = devices.map((d) => deviceHealth(d, byId.get(d.id), now, this.opts.awayMs));
    let candidates: DeviceHealth[];
    if (pin !== null) {
      const pinned = health.find((h) => h.device.id === pin);
      if (!pinned)
        return {
          kind: 'permanent',
          reason: 'other',
          code: 'device_unknown',
          message: `the notification is pinned to device ${pin.slice(0, 21)}, which account ${account.id} does not have`,
        };
      if (!pinned.online)
        return {
          kind: 'retryable',
          code: 'device_offline',
          message: `device ${pin} is offline (last seen ${new Date(pinned.device.lastSeenAt).toISOString()}); nothing was offered`,
        };
      candidates = [pinned];
    } else {
      candidates = rankDevices(health);
      if (candidates.length === 0) {
        return {
          kind: 'retryable',
          code: 'no_device_online',
          message: `no device of account ${account.id} is online (${devices.length} registered); nothing was offered`,
        };
      }
    }
    const lane = this.opts.accounts.laneOf(g, request.purpose);
    let retryAt: number | null = null;
    for (const c of candidates) {
      const permit = await acquireDevicePermit(store, g, c.device, lane, now, spreadOf(request.deliveryId), wantSim);
      if (!permit.granted) {
        if (permit.retryAt !== null) retryAt = retryAt === null ? permit.retryAt : Math.min(retryAt, permit.retryAt);
        continue;
      }
      const offer = await store.devices.createOffer({
        deliveryId: request.deliveryId,
        idempotencyKey: request.idempotencyKey,
        deviceId: c.device.id,
        providerAccount: account.id,
        simNumber: permit.simNumber,
        priority: EXPEDITED.has(request.purpose) ? EXPEDITED_PRIORITY : 0,
        // The phone enforces this with its own clock ("TTL expired"): never past expires_at.
        validUntil: request.expiresAt,
        now,
      });
      this.opts.signal(c.device.id);
      return { kind: 'unknown', code: 'offered', message: `offered to device ${c.device.id} as message ${offer.messageId}; the phone's reports settle it` };
    }
    // Every candidate is at its pace: this delivery waits (never the account: codes have their own lane).
    return {
      kind: 'throttled',
      code: 'device_rate_limited',
      message: `${candidates.length === 1 ? `device ${candidates[0]!.device.id} is` : `all ${candidates.length} online devices are`} at their rate; nothing was offered`,
      retryAfterMs: retryAt === null ? null : Math.max(1, retryAt - now),
      scope: 'destination',
    };
  }

  async lookup(account: ProviderAccountConfig, request: LookupRequest): Promise<LookupResult> {
    const { store, clock } = this.opts;
    const g = this.opts.accounts.get(account.id);
    if (!g) return { kind: 'error', code: 'not_a_gateway_account', message: `account ${account.id} is not served by this gateway` };
    const o = await store.devices.currentOffer({ providerAccount: account.id, idempotencyKey: request.idempotencyKey });
    const now = clock.now();
    // No offer for the current attempt: the submission never committed one, so no phone can have it.
    if (!o || o.state === 'withdrawn') return { kind: 'not_found' };
    switch (o.state) {
      case 'offered':
        if (now - o.offeredAt < g.settings.pullTimeoutMs) return { kind: 'error', code: 'awaiting_pull', message: `not pulled by device ${o.deviceId} yet` };
        if (await store.devices.withdrawOffer(o.id, now)) return { kind: 'not_found' };
        return { kind: 'error', code: 'awaiting_report', message: `device ${o.deviceId} pulled it just now` };
      case 'reoffered':
        return { kind: 'error', code: 'awaiting_pull', message: `re-offered to device ${o.deviceId}; waiting for it to pull` };
      case 'pulled': {
        const since = Math.max(o.lastPulledAt ?? o.offeredAt, o.reofferedAt ?? 0);
        if (now - since < g.settings.reofferAfterMs)
          return { kind: 'error', code: 'awaiting_report', message: `pulled by device ${o.deviceId}; waiting for its report` };
        // The look-up: the app re-reports a message it holds instead of sending it again.
        if ((await store.devices.reofferOffers([o.id], now)) > 0) this.opts.signal(o.deviceId);
        return { kind: 'error', code: 'reoffered', message: `re-offered to device ${o.deviceId} under the same id ${o.messageId}` };
      }
      case 'reported':
        return { kind: 'error', code: 'reported', message: `device ${o.deviceId} reported ${o.phoneState}; the report applier settles it` };
    }
  }
}
