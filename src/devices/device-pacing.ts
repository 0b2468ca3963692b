/**
 * Per-device and per-SIM pacing through the shared limiter (`store.limiter`): one GCRA row per
 * (key, lane) and one per key (lane `*`), the same rows for every worker of every process, so N
 * workers never give one phone N times its rate. The key is `device:<id>` (or `sim:<id>:<n>`) in
 * the limiter's provider-account column. The lane is the message's lane on the account (auth for
 * codes), so a campaign cannot take a phone's whole rate from its codes.
 *
 * A SIM permit is asked for after the device's: when every SIM refuses, the device permit is
 * spent for nothing. That errs on the side of sending less, never more. A message that asks for
 * a SIM (SMSGate's `simNumber`) is paced on that SIM alone; one the device does not report is
 * passed to the phone as asked, which refuses it ("SIM n not found"), as under SMSGate's server.
 */
import type { SimCard, Store } from '../store/store.js';
import type { GatewayAccount } from './gateway-accounts.js';

export type PacingAnswer = { granted: true; simNumber: number | null } | { granted: false; retryAt: number | null };

export const deviceKey = (deviceId: string): string => `device:${deviceId}`;
export const simKey = (deviceId: string, simNumber: number): string => `sim:${deviceId}:${simNumber}`;

/** Takes one permit for `deviceId` in `lane` (and one of its SIMs', or of `wantSim`, when the account paces SIMs). */
export async function acquireDevicePermit(
  store: Store,
  g: GatewayAccount,
  device: { id: string; simCards: SimCard[] | null },
  lane: string,
  now: number,
  spread: number,
  wantSim: number | null = null,
): Promise<PacingAnswer> {
  const limits = g.deviceLimits.get(lane);
  if (!limits) throw new Error(`account ${g.account.id} has no lane ${lane}`);
  const d = await store.limiter.acquirePermits({
    providerAccount: deviceKey(device.id),
    lane,
    now,
    requested: 1,
    laneLimit: limits.lane,
    accountLimit: limits.whole,
  });
  if (d.granted === 0) return { granted: false, retryAt: d.retryAt };
  const known = device.simCards ?? [];
  const sims = wantSim === null ? known : known.filter((s) => s.simNumber === wantSim);
  if (!g.simLimits || sims.length === 0) return { granted: true, simNumber: wantSim };
  const simLimits = g.simLimits.get(lane)!;
  let retryAt: number | null = null;
  // Start at a different SIM per message, so two SIMs share the load instead of the first one filling up.
  for (let i = 0; i < sims.length; i++) {
    const sim = sims[(spread + i) % sims.length]!;
    const s = await store.limiter.acquirePermits({
      providerAccount: simKey(device.id, sim.simNumber),
      lane,
      now,
      requested: 1,
      laneLimit: simLimits.lane,
      accountLimit: simLimits.whole,
    });
    if (s.granted > 0) return { granted: true, simNumber: sim.simNumber };
    if (s.retryAt !== null) retryAt = retryAt === null ? s.retryAt : Math.min(retryAt, s.retryAt);
  }
  return { granted: false, retryAt };
}
