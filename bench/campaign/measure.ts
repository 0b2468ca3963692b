/**
 * What the run measured, computed from the referee's ledger (every accepted send with its
 * `received_at`), its 429 count per second, the OTP requests' start times and, for the skew,
 * each send's permit time from Herald's `attempts.started_at`. Pure: no I/O here.
 */
import { CAMPAIGN_PHONE_PREFIX } from './audience.js';
import type { OtpRecord } from './otp.js';

export interface SentEntry {
  idempotency_key: string;
  destination: string;
  received_at: string;
}

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function spread(values: number[]): Spread {
  const s = values.sort((a, b) => a - b);
  return { count: s.length, min: s[0] ?? NaN, p1: percentile(s, 1), p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN };
}

export interface Spread {
  count: number;
  min: number;
  p1: number;
  p50: number;
  p99: number;
  max: number;
}

export interface Measured {
  campaign: {
    entries: number;
    distinctKeys: number;
    firstAt: number;
    lastAt: number;
    /** Campaign start (the /start request) → last campaign message received, s. */
    drainSeconds: number;
    /** Start → first campaign message received, s (the runner's pick-up and first fan-out batch). */
    startupSeconds: number;
    /** First → last campaign message, s, and the campaign rate over it. */
    sendingSeconds: number;
    sendingRate: number;
    /** Campaign messages per full second strictly inside the sending phase. */
    perSecond: Spread;
  };
  sandbox: {
    /** Most sms accepted in one epoch second (≤ R by construction: the quota refuses the rest). */
    maxAcceptedPerSecond: number;
    /** Most sms received (accepted + answered 429) in one epoch second: the figure the target is about. */
    maxReceivedPerSecond: number;
    secondsAboveQuota: number;
    refused429: number;
  };
  /** OTPs sent while the campaign ran, with the OTP traffic the sandbox received during the drain. */
  otp: OtpFigures & { duringDrain: number; rateDuringDrain: number };
  /** OTPs sent before the campaign started (Herald otherwise idle): the path's own latency. */
  baselineOtp: OtpFigures | null;
  /** received_at − attempts.started_at (the permit's time), ms: campaign and OTP sends. */
  skew: { campaign: Spread; otp: Spread } | null;
}

export function measure(input: {
  entries: readonly SentEntry[];
  refusedPerSecond: ReadonlyMap<number, number>;
  quota: number;
  startedAt: number;
  otp: readonly OtpRecord[];
  baselineOtp?: readonly OtpRecord[];
  /** idempotency key → attempts.started_at of the accepted attempt; null when not read. */
  permitAt: ReadonlyMap<string, number> | null;
  /** OTP destination → its notification's created_at and its first attempt's started_at (epoch ms). */
  otpRows?: ReadonlyMap<string, { createdAt: number; permitAt: number | null }>;
}): Measured {
  const campaignTimes: number[] = [];
  const keys = new Set<string>();
  const otpReceived = new Map<string, number>();
  const accepted = new Map<number, number>();
  const campaignSecond = new Map<number, number>();
  const skewCampaign: number[] = [];
  const skewOtp: number[] = [];
  for (const e of input.entries) {
    const t = Date.parse(e.received_at);
    const sec = Math.floor(t / 1000);
    accepted.set(sec, (accepted.get(sec) ?? 0) + 1);
    const isCampaign = e.destination.startsWith(CAMPAIGN_PHONE_PREFIX);
    if (isCampaign) {
      campaignTimes.push(t);
      keys.add(e.idempotency_key);
      campaignSecond.set(sec, (campaignSecond.get(sec) ?? 0) + 1);
    } else if (!otpReceived.has(e.destination)) {
      otpReceived.set(e.destination, t);
    }
    const permit = input.permitAt?.get(e.idempotency_key);
    if (permit !== undefined) (isCampaign ? skewCampaign : skewOtp).push(t - permit);
  }
  let firstAt = Infinity;
  let lastAt = -Infinity;
  for (const t of campaignTimes) {
    if (t < firstAt) firstAt = t;
    if (t > lastAt) lastAt = t;
  }
  const inside: number[] = [];
  for (let s = Math.floor(firstAt / 1000) + 1; s < Math.floor(lastAt / 1000); s++) inside.push(campaignSecond.get(s) ?? 0);

  let maxAccepted = 0;
  let maxReceived = 0;
  let above = 0;
  for (const sec of new Set([...accepted.keys(), ...input.refusedPerSecond.keys()])) {
    const a = accepted.get(sec) ?? 0;
    const r = a + (input.refusedPerSecond.get(sec) ?? 0);
    maxAccepted = Math.max(maxAccepted, a);
    maxReceived = Math.max(maxReceived, r);
    if (r > input.quota) above++;
  }
  let refused = 0;
  for (const v of input.refusedPerSecond.values()) refused += v;

  let duringDrain = 0;
  for (const t of otpReceived.values()) if (t >= input.startedAt && t <= lastAt) duringDrain++;
  const drainSeconds = (lastAt - input.startedAt) / 1000;
  const sendingSeconds = (lastAt - firstAt) / 1000;
  return {
    campaign: {
      entries: campaignTimes.length,
      distinctKeys: keys.size,
      firstAt,
      lastAt,
      drainSeconds,
      startupSeconds: (firstAt - input.startedAt) / 1000,
      sendingSeconds,
      sendingRate: sendingSeconds > 0 ? (campaignTimes.length - 1) / sendingSeconds : NaN,
      perSecond: spread(inside),
    },
    sandbox: { maxAcceptedPerSecond: maxAccepted, maxReceivedPerSecond: maxReceived, secondsAboveQuota: above, refused429: refused },
    otp: {
      ...otpFigures(input.otp, otpReceived, input.otpRows),
      duringDrain,
      rateDuringDrain: drainSeconds > 0 ? duringDrain / drainSeconds : NaN,
    },
    baselineOtp: input.baselineOtp ? otpFigures(input.baselineOtp, otpReceived, input.otpRows) : null,
    skew: input.permitAt ? { campaign: spread(skewCampaign), otp: spread(skewOtp) } : null,
  };
}

export interface OtpFigures {
  requested: number;
  answered202: number;
  otherAnswers: Record<string, number>;
  delivered: number;
  /** received_at − request start, ms. */
  latency: Spread;
  /** request start → 202 answer, ms. */
  intake: Spread;
  /**
   * Where an OTP's latency goes, ms, from Herald's rows: request start → notification
   * created_at (HTTP, auth, validation), created_at → permit (attempts.started_at: the wait for
   * a claim loop to wake and ask), permit → sandbox receipt (the claim transaction with its wait
   * for the limiter's row lock, the send-time checks and the HTTP call).
   */
  stages: { toCreated: Spread; toPermit: Spread; toReceipt: Spread } | null;
}

function otpFigures(
  records: readonly OtpRecord[],
  received: ReadonlyMap<string, number>,
  rows: ReadonlyMap<string, { createdAt: number; permitAt: number | null }> | undefined,
): OtpFigures {
  const latency: number[] = [];
  const intake: number[] = [];
  const toCreated: number[] = [];
  const toPermit: number[] = [];
  const toReceipt: number[] = [];
  const otherAnswers: Record<string, number> = {};
  let answered202 = 0;
  for (const r of records) {
    if (r.status === 202) answered202++;
    else {
      const k = r.status === null ? (r.error ? 'error' : 'no answer') : String(r.status);
      otherAnswers[k] = (otherAnswers[k] ?? 0) + 1;
    }
    if (r.answeredAt !== null) intake.push(r.answeredAt - r.startedAt);
    const got = received.get(r.phone);
    if (got !== undefined) latency.push(got - r.startedAt);
    const row = rows?.get(r.phone);
    if (row) {
      toCreated.push(row.createdAt - r.startedAt);
      if (row.permitAt !== null) {
        toPermit.push(row.permitAt - row.createdAt);
        if (got !== undefined) toReceipt.push(got - row.permitAt);
      }
    }
  }
  return {
    requested: records.length,
    answered202,
    otherAnswers,
    delivered: latency.length,
    latency: spread(latency),
    intake: spread(intake),
    stages: rows ? { toCreated: spread(toCreated), toPermit: spread(toPermit), toReceipt: spread(toReceipt) } : null,
  };
}
