/**
 * Waiting for a campaign to drain, the same way for Herald and for the peer: progress counted
 * from the referee's ledger as it records (no API load meanwhile), a progress line every 5 s with
 * the cores each process group used in that window, and the two ways of giving up (no campaign
 * message for `settleTimeoutS`, or far past any plausible drain time).
 */
import { startCpuMeter, type CpuGroups } from '../throughput/cpu.js';
import { CAMPAIGN_PHONE_PREFIX } from './audience.js';
import type { OtpTraffic } from './otp.js';
import { coresBusy, fmt, log } from './print.js';
import type { Referee } from './referee.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface SendCounter {
  campaign: number;
  otp: number;
  lastCampaignAt: number;
}

/** Counts campaign and code sends as the referee records them; call before the campaign starts. */
export function countSends(referee: Referee): SendCounter {
  const c: SendCounter = { campaign: 0, otp: 0, lastCampaignAt: Date.now() };
  referee.onRecord((e) => {
    if (e.destination.startsWith(CAMPAIGN_PHONE_PREFIX)) {
      c.campaign++;
      c.lastCampaignAt = Date.now();
    } else c.otp++;
  });
  return c;
}

export interface DrainOptions {
  n: number;
  startedAt: number;
  settleTimeoutS: number;
  /** Give up this long after the start, s. */
  giveUpS: number;
  sends: SendCounter;
  referee: Referee;
  otp: OtpTraffic;
  /** CPU groups of the progress windows (the same as the run's meter). */
  groups: CpuGroups;
  /** A message when a process of the system exited on its own (the run then fails). */
  crashed(): string | null;
  /** Extra progress for the 5-second line (Herald's fan-out count), placed after `t=…s`. */
  progress?(): Promise<string>;
}

/** Resolves when the last campaign message is received, or with why it stopped waiting. */
export async function awaitDrain(o: DrainOptions): Promise<{ incomplete: string | null }> {
  let window = startCpuMeter(o.groups);
  let lastLine = o.startedAt;
  let lastCount = 0;
  for (;;) {
    await sleep(100);
    const now = Date.now();
    const crash = o.crashed();
    if (crash) throw new Error(crash);
    const sent = o.sends.campaign;
    if (sent >= o.n) return { incomplete: null };
    if (now - o.sends.lastCampaignAt > o.settleTimeoutS * 1000 && sent > 0) {
      return { incomplete: `no campaign message for ${o.settleTimeoutS} s with ${fmt(o.n - sent)} not sent` };
    }
    if (now - o.startedAt > o.giveUpS * 1000) {
      return { incomplete: `gave up after ${fmt((now - o.startedAt) / 1000)} s with ${fmt(o.n - sent)} not sent` };
    }
    if (now - lastLine >= 5_000) {
      const extra = o.progress ? `${await o.progress()}, ` : '';
      const w = window.stop();
      window = startCpuMeter(o.groups);
      const secs = (now - lastLine) / 1000;
      log(
        `  t=${fmt((now - o.startedAt) / 1000)}s ${extra}sent ${fmt(sent)}/${fmt(o.n)} (${fmt((sent - lastCount) / secs)}/s), OTP ${fmt(o.sends.otp)}/${fmt(o.otp.records.length)}, ` +
          `429s ${fmt(o.referee.refused())}; ${coresBusy(w, secs)}`,
      );
      lastLine = now;
      lastCount = sent;
    }
  }
}

/** After the code traffic stopped: up to 5 s for the codes intake accepted last to reach the sandbox. */
export async function awaitLastCodes(sends: SendCounter, otp: OtpTraffic): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (sends.otp < otp.records.filter((r) => r.status === 202).length && Date.now() < deadline) await sleep(20);
}
