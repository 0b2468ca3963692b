/**
 * The heartbeat sweep: retry ladders handle seconds and minutes, this handles hours. When a
 * device calls again after being away longer than the threshold (2 minutes by default), the
 * device API marks a return; this service (start/stop, runOnce() for tests) then, for the last
 * 24 hours (configurable) of that device:
 *
 * - retries every definitely failed message that has not expired (the phone said Failed before
 *   sending, or no device could take it), now, under the same key: `decide`'s replay, the edge an
 *   operator's "retry now" takes; a new attempt is a new offer with a new message id;
 * - re-offers every `unknown` one under its same message id: the phone re-reports what it holds
 *   instead of sending it again (as long as it still holds the record);
 * - leaves the expired ones alone (they end `terminal/expired` as always) and counts them;
 * - records the sweep (when, which device, how many retried and re-offered) in one transaction
 *   with its writes. Two sweepers of one return: the second writes nothing.
 *
 * `sweepDevice` with cause `operator` is POST /v1/devices/:id/retry-failed: the failed ones only.
 *
 * Either cause first applies the phones' reports recorded but not yet applied (the report
 * applier's pass): a returning phone flushes the reports it held back in the call that marks its
 * return, so the sweep and the applier are poked together, and a `Failed` still waiting for the
 * applier would leave its delivery `unknown` and its offer reported: neither retried nor re-offered.
 */
import type { Clock } from '../clock.js';
import { decide, DEFAULT_RETRY_POLICY } from '../domain/index.js';
import { LoopService, type LoopSettings } from '../periodic/loop-service.js';
import type { DeviceRecord, Store, SweepCause, SweepRecord, SweepWrite } from '../store/store.js';

export interface HeartbeatSweepOptions extends LoopSettings {
  store: Store;
  clock: Clock;
  /** How far back a sweep looks (config devices.sweep_lookback_hours). */
  lookbackMs: number;
  /** Tells a device it has something to pull (re-offers). */
  signal?: (deviceId: string) => void;
  /** Wakes the claim loops of an account that has retries due now. */
  wake?: (providerAccount: string) => void;
  /**
   * Folds in the phones' reports recorded but not yet applied (the report applier's pass). Guarded
   * writes: one beside the applier's own loop (or another process's) only loses races.
   */
  applyReports: () => Promise<unknown>;
}

export interface HeartbeatPass {
  sweeps: SweepRecord[];
}

export class HeartbeatSweep extends LoopService {
  constructor(private readonly opts: HeartbeatSweepOptions) {
    super({ ...opts, what: 'heartbeat sweep', defaultBatchSize: 500 });
  }

  /** Sweeps every device that came back and waits for its sweep. */
  override async runOnce(): Promise<HeartbeatPass> {
    const sweeps: SweepRecord[] = [];
    const returned = await this.opts.store.devices.listReturnedDevices(50);
    if (returned.length === 0) return { sweeps };
    await this.opts.applyReports();
    for (const device of returned) {
      const record = await this.sweepApplied(device, 'return', 'heartbeat-sweep');
      if (record) sweeps.push(record);
    }
    for (const s of sweeps) {
      this.opts.logger.info(
        { deviceId: s.deviceId, awaySince: s.awaySince, retried: s.retried, reoffered: s.reoffered, skippedExpired: s.skippedExpired },
        'heartbeat sweep of a device that came back',
      );
    }
    return { sweeps };
  }

  /**
   * Sweeps one device now: for a `return`, its failed and unknown messages (the device must still
   * show that return); for `operator`, its failed ones. Null when another sweeper took the return.
   * The phones' recorded reports are applied first, so a failure the phone reported is counted.
   */
  async sweepDevice(device: DeviceRecord, cause: SweepCause, requestedBy: string): Promise<SweepRecord | null> {
    await this.opts.applyReports();
    return this.sweepApplied(device, cause, requestedBy);
  }

  /**
   * Applies the phones' recorded reports (the report applier's pass), as a sweep does first; for a
   * retry of one message, which decides on the same facts.
   */
  async applyRecordedReports(): Promise<void> {
    await this.opts.applyReports();
  }

  /** `sweepDevice` once the reports have been applied. */
  private async sweepApplied(device: DeviceRecord, cause: SweepCause, requestedBy: string): Promise<SweepRecord | null> {
    const { store, clock } = this.opts;
    const now = clock.now();
    const c = await store.devices.sweepCandidates({
      deviceId: device.id,
      providerAccount: device.providerAccount,
      since: now - this.opts.lookbackMs,
      now,
      limit: this.passBatchSize,
    });
    const retries: SweepWrite['retries'] = [];
    for (const f of c.failed) {
      // The replay edge: retryable → ready, or terminal/exhausted → ready; refused at or after expiry.
      const d = decide(f, { type: 'replay', acceptDuplicateRisk: false }, { now, policy: DEFAULT_RETRY_POLICY, random: Math.random });
      if (!d.ok) continue;
      retries.push({
        write: { deliveryId: f.deliveryId, expect: { state: f.state, leaseVersion: f.leaseVersion }, transition: d, now },
        fromReason: f.state === 'terminal' ? f.terminalReason : null,
      });
    }
    const reofferIds = cause === 'return' ? c.unknown.map((u) => u.offerId) : [];
    const returned = cause === 'return' ? device.returnedAt : null;
    const record = await store.devices.recordSweep({
      deviceId: device.id,
      cause,
      returnedAt: returned,
      awaySince: cause === 'return' ? device.awaySince : null,
      // A full batch leaves the return in place: the next pass sweeps the rest.
      finishReturn: c.failed.length < this.passBatchSize && c.unknown.length < this.passBatchSize,
      retries,
      reofferIds,
      skippedExpired: c.expired,
      requestedBy,
      now,
    });
    if (!record) return null;
    if (record.reoffered > 0) this.opts.signal?.(device.id);
    if (record.retried > 0) this.opts.wake?.(device.providerAccount);
    return record;
  }
}
