/**
 * The campaign benchmark's second half: the same workload through the BullMQ notifier
 * (bench/peers/bullmq-notifier) instead of Herald. The same referee (a fresh sandbox with the
 * same sms quota R), the same audience upload, the same OTP traffic at the same rate from the
 * same client, and the same `measure()` over the referee's ledger: drain time from the campaign
 * request to the last campaign message received, the most sms received in one second, the 429s
 * the quota answered, and codes from intake request to provider receipt.
 */
import type * as Sandbox from '../../src/sandbox/index.js';
import { startPeer, type PeerProcesses } from '../peers/bullmq-notifier/launch.js';
import { uploadAudience } from './audience.js';
import { awaitDrain, awaitLastCodes, countSends } from './drain.js';
import { api, memoryMb } from './herald.js';
import { measure, type Measured } from './measure.js';
import { startOtpTraffic, type OtpTraffic } from './otp.js';
import { startReferee, type Referee } from './referee.js';
import { fmt, log } from './print.js';
import { processCpuMs, startCpuMeter } from '../throughput/cpu.js';

export interface CampaignRun {
  m: Measured;
  incomplete: string | null;
  /** Peak RSS per process, MB. */
  memory: Array<{ name: string; peak: number }>;
  cpu: Record<string, number>;
  cpuSeconds: number;
}

export interface PeerRunOptions {
  sandbox: Pick<typeof Sandbox, 'startSandbox'>;
  n: number;
  quota: number;
  otpRate: number;
  baselineS: number;
  settleTimeoutS: number;
  redisUrl?: string;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs the campaign through the BullMQ notifier, prints its progress, and returns what was measured. */
export async function runPeerCampaign(o: PeerRunOptions): Promise<CampaignRun> {
  let referee: Referee | null = null;
  let peer: PeerProcesses | null = null;
  let otp: OtpTraffic | null = null;
  try {
    referee = await startReferee(o.sandbox, o.quota);
    peer = await startPeer({ sandboxUrl: referee.url, rate: o.quota, ...(o.redisUrl ? { redisUrl: o.redisUrl } : {}) });
    log(`  ${peer.describe}; limiter = the provider's quota, ${fmt(o.quota)} jobs per 1,000 ms`);
    const audience = await uploadAudience(peer.url, peer.apiKey, o.n);
    log(`audience ${audience.id}: ${fmt(audience.size)} recipients uploaded in ${fmt(audience.seconds, 1)} s (into a Redis list)`);

    let baseline: OtpTraffic | null = null;
    if (o.baselineS > 0) {
      baseline = startOtpTraffic({ apiUrl: peer.url, apiKey: peer.apiKey, rate: o.otpRate, firstIndex: 1_000_000 });
      await sleep(o.baselineS * 1000);
      await baseline.stop();
      await sleep(1_000);
      log(`baseline: ${baseline.records.length} OTPs in ${o.baselineS} s with no campaign running`);
    }

    const p = peer;
    const groups: Record<string, () => number> = {
      'bench (sandbox + OTP client)': () => processCpuMs(process.pid),
      intake: () => processCpuMs(p.intake.pid),
      worker: () => processCpuMs(p.worker.pid),
      ...(p.redis ? { redis: () => processCpuMs(p.redis!.pid) } : {}),
    };
    const meter = startCpuMeter(groups);
    const sends = countSends(referee);
    otp = startOtpTraffic({ apiUrl: peer.url, apiKey: peer.apiKey, rate: o.otpRate });
    const startedAt = Date.now();
    const started = await api<{ id: string; size: number }>(peer.url, peer.apiKey, 'POST', '/v1/campaigns', 202, {
      audience_id: audience.id,
      content: { text: 'Sale: everything must go. Reply STOP to opt out.' },
    });
    log(`started: campaign ${started.id} of ${fmt(started.size)}\n`);

    const { incomplete } = await awaitDrain({
      n: o.n,
      startedAt,
      settleTimeoutS: o.settleTimeoutS,
      giveUpS: Math.max(600, (o.n / o.quota) * 4),
      sends,
      referee,
      otp,
      groups,
      crashed: () => p.crashed(),
    });
    await otp.stop();
    const cpu = meter.stop();
    const cpuSeconds = (Date.now() - startedAt) / 1000;
    await awaitLastCodes(sends, otp);
    const memory = [peer.intake, peer.worker, ...(peer.redis ? [peer.redis] : [])].map((c) => ({ name: c.name, peak: memoryMb(c.pid)?.peak ?? NaN }));
    const stats = await peer.stats();
    log(
      `peer worker: ${fmt(stats.sent)} sent, ${fmt(stats.retried)} attempts retried (429, 5xx, lost answers), ${fmt(stats.failed)} failed, ${fmt(stats.expired)} expired`,
    );
    const m = measure({
      entries: referee.handle.ledger.entries({ channel: 'sms' }),
      refusedPerSecond: referee.refusedPerSecond,
      quota: o.quota,
      startedAt,
      otp: otp.records,
      ...(baseline ? { baselineOtp: baseline.records } : {}),
      permitAt: null,
    });
    return { m, incomplete, memory, cpu, cpuSeconds };
  } finally {
    await otp?.stop().catch(() => {});
    await peer?.stop().catch(() => {});
    await referee?.close().catch(() => {});
  }
}
