/**
 * The lines both halves of `bench:campaign` print the same way (Herald's run and the peer's):
 * number formatting, drain time against the issue's bound, the sandbox's view, code latency,
 * memory, CPU and the other-processes warning. One place, so the two reports cannot drift apart.
 */
import type { Measured, OtpFigures, Spread } from './measure.js';

export const log = (line: string): void => void process.stdout.write(`${line}\n`);

export const fmt = (x: number, digits = 0): string =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '—';

export const ms = (s: Spread): string => `${fmt(s.p50)} / ${fmt(s.p99)} / ${fmt(s.max)} ms`;

/** The issue's lower bound N / (R − code traffic the sandbox received during the drain), s. */
export function lowerBound(m: Measured, n: number, quota: number): number {
  return n / (quota - m.otp.rateDuringDrain);
}

/** Drain time split into start-up and sending, and the issue's bound. */
export function drainLines(m: Measured, n: number, quota: number): string[] {
  return [
    `drain time: ${fmt(m.campaign.drainSeconds, 2)} s = start → first campaign message ${fmt(m.campaign.startupSeconds, 2)} s + sending ${fmt(m.campaign.sendingSeconds, 2)} s at ${fmt(m.campaign.sendingRate, 1)}/s`,
    `  issue's lower bound N / (R − OTP sent) = ${fmt(n)} / (${fmt(quota)} − ${fmt(m.otp.rateDuringDrain, 2)}) = ${fmt(lowerBound(m, n, quota), 2)} s`,
  ];
}

/** What the provider received: the busiest second and the seconds above R. */
export function sandboxLine(m: Measured, quota: number): string {
  return `sandbox: most sms received in one second ${fmt(m.sandbox.maxReceivedPerSecond)} (accepted ${fmt(m.sandbox.maxAcceptedPerSecond)}; seconds above ${fmt(quota)}: ${m.sandbox.secondsAboveQuota})`;
}

/** Code latency, with Herald's stages when its rows were read. */
export function otpLines(label: string, o: OtpFigures): string[] {
  const lines = [
    `${label}: ${fmt(o.delivered)}/${fmt(o.requested)} received; intake → sandbox p50 / p99 / max ${ms(o.latency)}; intake answer (202) ${ms(o.intake)}`,
  ];
  if (o.stages) {
    lines.push(
      `  request → notification created_at ${ms(o.stages.toCreated)}; created_at → permit (claim) ${ms(o.stages.toPermit)}; permit → sandbox receipt ${ms(o.stages.toReceipt)}`,
    );
  }
  return lines;
}

/** Baseline and during-the-campaign code latency. */
export function allOtpLines(m: Measured): string[] {
  return [...(m.baselineOtp ? otpLines('OTP latency, no campaign (baseline)', m.baselineOtp) : []), ...otpLines('OTP latency during the campaign', m.otp)];
}

export function memoryLine(memory: ReadonlyArray<{ name: string; peak: number }>): string {
  return `memory (peak RSS, VmHWM): ${memory.map((x) => `${x.name} ${fmt(x.peak)} MB`).join(', ')}`;
}

/** CPU per group over the drain, then how much other processes on the machine used (a disturbed run warns). */
export function cpuLines(cpu: Record<string, number>, cpuSeconds: number, quiet: string): string[] {
  const parts = Object.entries(cpu)
    .filter(([k]) => k !== 'machine')
    .map(([k, v]) => `${k} ${fmt(v, 1)}`);
  const otherCores = cpu.other! / cpuSeconds;
  return [
    `CPU-s over ${fmt(cpuSeconds, 1)} s (2 cores = ${fmt(2 * cpuSeconds, 1)} CPU-s): ${parts.join(', ')}; machine busy ${fmt(cpu.machine!, 1)} (${fmt((100 * cpu.machine!) / (2 * cpuSeconds))}% of 2 cores)`,
    `${quiet}; during the run other processes used ${fmt(otherCores, 2)} cores on average${otherCores > 0.2 ? ' — WARNING: a disturbed run' : ''}`,
  ];
}

/** A 5-second window's cores busy, per group (the bench process, the system's processes, other). */
export function coresBusy(window: Record<string, number>, secs: number): string {
  const groups = Object.entries(window)
    .filter(([k]) => !['machine', 'irq', 'steal', 'other'].includes(k))
    .map(([k, v]) => `${k} ${fmt(v / secs, 2)}`);
  return `cores busy ${fmt(window.machine! / secs, 2)} (${[...groups, `other ${fmt(window.other! / secs, 2)}`].join(', ')})`;
}
