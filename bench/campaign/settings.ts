/**
 * The campaign benchmark's Herald configuration, derived from the flags with Herald's own rules
 * (compiled dist/, passed in): the account rate that keeps the sandbox's quota R from ever being
 * exceeded (`quotaSafeRate`: burst and an expected skew), lanes whose `auth` share covers the OTP
 * traffic (the default 20 % would cap the campaign at 80 % of R), and what the lanes then give
 * (`laneBudgets`), so the report can put three bounds side by side: the issue's N / (R − OTP),
 * the best this configuration allows, and what was measured.
 */
import type * as Domain from '../../src/domain/index.js';

export type DomainModule = Pick<typeof Domain, 'quotaSafeRate' | 'effectiveRatePerSecond' | 'laneBudgets'>;

export interface BenchSettings {
  /** Recipients. */
  n: number;
  /** The sandbox's sms quota, sends per second (aligned epoch seconds). */
  quota: number;
  workers: number;
  /** OTP intake requests per second. */
  otpRate: number;
  /** The account's burst. */
  burst: number;
  /** The skew budget handed to quotaSafeRate, ms. */
  skewMs: number;
  /** The auth lane's guaranteed rate as a multiple of the OTP rate (1.25: 25 % headroom). */
  authHeadroom: number;
  batchSize: number;
  loops: number;
  sweepIntervalMs: number;
  pollIntervalMs: number;
}

export interface DerivedRates {
  /** rate_per_second configured on the account. */
  accountRate: number;
  /** What the GCRA really enforces for it (1e6 / ceil(1e6 / rate)). */
  accountRateEffective: number;
  authShare: number;
  lanes: Array<{ name: string; purposes: string[]; guaranteed_share: number }>;
  budgets: Domain.LaneBudget[];
  /** The bulk lane's maximum rate (what a campaign can get), as enforced. */
  bulkRateEffective: number;
  /** N / bulk rate: the best drain this configuration allows (burst ignored, as the planner does). */
  configBestSeconds: number;
  /** Most sends the quota rule allows in one closed second of receipts: burst + floor((1000 + skew) / T). */
  worstSecond: number;
}

/** Rounds a share up to 6 decimals so share × rate never falls below the OTP traffic it must cover. */
function shareFor(rate: number, account: number): number {
  return Math.min(1, Math.ceil((rate / account) * 1e6) / 1e6);
}

/** The account rate, lanes and the bounds they imply. */
export function deriveRates(s: BenchSettings, d: DomainModule): DerivedRates {
  const accountRate = d.quotaSafeRate({ quota: s.quota, burst: s.burst, skewMs: s.skewMs });
  if (!(accountRate > 0)) throw new Error(`no rate keeps ${s.quota}/s with burst ${s.burst} and skew ${s.skewMs} ms: lower the burst`);
  const authShare = shareFor(s.otpRate * s.authHeadroom, accountRate);
  const lanes = [
    { name: 'auth', purposes: ['otp', 'alert'], guaranteed_share: authShare },
    { name: 'bulk', purposes: ['transactional', 'conversational', 'marketing'], guaranteed_share: 0 },
  ];
  const budgets = d.laneBudgets({ rate_per_second: accountRate, concurrency: s.batchSize * s.loops }, lanes as Domain.LaneConfig[]);
  if (!budgets.ok) throw new Error(`lanes refused: ${budgets.errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
  const bulk = budgets.value.find((b) => b.name === 'bulk')!;
  const bulkRateEffective = d.effectiveRatePerSecond(bulk.max_rate);
  const accountRateEffective = d.effectiveRatePerSecond(accountRate);
  const tUs = 1e6 / accountRateEffective;
  return {
    accountRate,
    accountRateEffective,
    authShare,
    lanes,
    budgets: budgets.value,
    bulkRateEffective,
    configBestSeconds: s.n / bulkRateEffective,
    worstSecond: s.burst + Math.floor(((1000 + s.skewMs) * 1000) / Math.round(tUs)),
  };
}

/** The JSON config every Herald process of the run reads (--config). */
export function heraldConfig(s: BenchSettings, r: DerivedRates, sandboxUrl: string): Record<string, unknown> {
  return {
    sandbox: { enabled: false },
    // The OTP producer sends every code with one key: a quota it cannot reach (each code has its own number, so velocity stays on).
    limits: { requests: { limit: 10_000_000, window_s: 60 } },
    // A throughput run at any hour: the marketing campaign is not held for the night or capped
    // (each recipient gets one message anyway, but the caps' counting would be measured).
    scheduling: { quiet_hours: { marketing: null }, frequency_caps: { marketing: null } },
    worker: {
      batch_size: s.batchSize,
      loops_per_account: s.loops,
      sweep_interval_ms: s.sweepIntervalMs,
      poll_interval_ms: s.pollIntervalMs,
    },
    provider_accounts: [
      {
        id: 'bench-sms',
        kind: 'sandbox',
        channel: 'sms',
        base_url: sandboxUrl,
        rate_per_second: r.accountRate,
        burst: s.burst,
        lanes: r.lanes,
        timeout_ms: 10_000,
      },
    ],
  };
}
