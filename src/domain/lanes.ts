/**
 * Lanes: a provider account's throughput (rate R, msg/s) and worker concurrency C, split so
 * that a campaign can never crowd out one-time codes. Each lane names the purposes it carries
 * and a guaranteed share of R and C. A guaranteed share is reserved: no other lane may use it,
 * even while it is idle, because capacity lent to a campaign cannot be taken back before the
 * campaign's permits are spent. What nobody reserved is shared by all lanes.
 *
 * So a lane's maximum is R minus the other lanes' guarantees. With the default (auth 20%, bulk
 * 0%), auth may use all of R and bulk at most 80% of it. The limiter enforces this with
 * its rows (`lanePermitPlans` below): a lane with a guaranteed share has its own GCRA row at
 * that share of R, and the unreserved rest is one shared row; a lane draws on its own row first
 * and borrows from the shared one. When the burst is too small to split, a permit passes two
 * states at once (rate-limit.ts `acquireJoint`): the lane's, at its maximum rate, and the
 * account's, at R.
 */
import type { RateLimit } from './rate-limit.js';
import { PURPOSES, type Purpose } from './vocabulary.js';

export interface LaneConfig {
  /** Lower-case letters, digits, `_` or `-`, starting with a letter; unique per account. */
  name: string;
  /** The purposes this lane carries, at least one; every purpose is in exactly one lane. */
  purposes: readonly Purpose[];
  /** Share of the account's rate and concurrency reserved for this lane, 0..1. */
  guaranteed_share: number;
}

/**
 * auth carries codes and alerts with 20% reserved; bulk carries the rest with nothing reserved.
 * 20%: at the 100/s default account rate that keeps 20 codes per second free during a campaign
 * that saturates everything else, while the campaign keeps 80% of the account. A code is read
 * within seconds and then useless (otp ladder: 8 attempts in the first minute); a newsletter
 * that lands a few minutes later is not. On a 1 msg/s account (a Twilio long code) 20% is one
 * code every 5 s: raise the share or give codes their own account.
 */
export const DEFAULT_LANES: readonly LaneConfig[] = Object.freeze([
  { name: 'auth', purposes: ['otp', 'alert'], guaranteed_share: 0.2 },
  { name: 'bulk', purposes: ['transactional', 'conversational', 'marketing'], guaranteed_share: 0 },
] as const satisfies readonly LaneConfig[]);

/** A problem with a lane configuration, naming the field, e.g. `lanes[1].guaranteed_share`. */
export interface LaneConfigError {
  field: string;
  message: string;
}

export type LaneCheck<T> = { ok: true; value: T } | { ok: false; errors: LaneConfigError[] };

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
// Shares are written as decimals (0.1 + 0.2 + 0.7 sums to 0.9999999999999999 in a double).
const SHARE_SLACK = 1e-9;

/** Every problem in `lanes` (empty when valid): shape, unique names, shares in 0..1 summing to ≤ 1, every purpose in exactly one lane. */
export function laneConfigErrors(lanes: unknown, field = 'lanes'): LaneConfigError[] {
  if (!Array.isArray(lanes) || lanes.length === 0) return [{ field, message: 'must be a non-empty list of lanes' }];
  const errors: LaneConfigError[] = [];
  const names = new Map<string, number>();
  const owner = new Map<string, string>();
  let total = 0;
  lanes.forEach((lane: unknown, i) => {
    const at = `${field}[${i}]`;
    if (typeof lane !== 'object' || lane === null)
      return void errors.push({ field: at, message: 'must be an object with name, purposes and guaranteed_share' });
    const { name, purposes, guaranteed_share: share } = lane as Record<string, unknown>;
    if (typeof name !== 'string' || !NAME.test(name)) {
      errors.push({ field: `${at}.name`, message: `must be 1-32 lower-case letters, digits, "_" or "-", starting with a letter; got ${JSON.stringify(name)}` });
    } else if (names.has(name)) {
      errors.push({ field: `${at}.name`, message: `"${name}" is already the name of ${field}[${names.get(name)}]` });
    } else names.set(name, i);
    if (typeof share !== 'number' || !(share >= 0 && share <= 1)) {
      errors.push({ field: `${at}.guaranteed_share`, message: `must be a number from 0 to 1; got ${JSON.stringify(share)}` });
    } else total += share;
    // A lane with no purpose would hold its share of the account for nothing.
    if (!Array.isArray(purposes) || purposes.length === 0)
      return void errors.push({ field: `${at}.purposes`, message: 'must be a non-empty list of purposes' });
    purposes.forEach((p: unknown, j) => {
      if (!(PURPOSES as readonly unknown[]).includes(p)) {
        errors.push({ field: `${at}.purposes[${j}]`, message: `must be one of ${PURPOSES.join(', ')}; got ${JSON.stringify(p)}` });
      } else if (owner.has(p as string)) {
        errors.push({ field: `${at}.purposes[${j}]`, message: `"${String(p)}" is already carried by ${owner.get(p as string)}` });
      } else owner.set(p as string, typeof name === 'string' ? `lane "${name}"` : at);
    });
  });
  if (total > 1 + SHARE_SLACK) errors.push({ field, message: `guaranteed shares sum to ${round(total)}; they must sum to at most 1` });
  const missing = PURPOSES.filter((p) => !owner.has(p));
  if (missing.length > 0) errors.push({ field, message: `no lane carries ${missing.join(', ')}; every purpose must be in exactly one lane` });
  return errors;
}

/** `lanes` typed as LaneConfig[] when valid, or every problem found. */
export function validateLanes(lanes: unknown, field = 'lanes'): LaneCheck<LaneConfig[]> {
  const errors = laneConfigErrors(lanes, field);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: lanes as LaneConfig[] };
}

/** The lane that carries `purpose`; throws if none does (validated lanes always have one). */
export function laneFor(purpose: Purpose, lanes: readonly LaneConfig[] = DEFAULT_LANES): LaneConfig {
  const lane = lanes.find((l) => l.purposes.includes(purpose));
  if (!lane) throw new RangeError(`no lane carries purpose "${purpose}"`);
  return lane;
}

export interface LaneBudget {
  name: string;
  /** Msg/s reserved for this lane: guaranteed_share × rate. */
  guaranteed_rate: number;
  /** Msg/s this lane may reach by borrowing unreserved capacity: rate minus the other lanes' guaranteed rates. */
  max_rate: number;
  /** Worker slots reserved: floor(share × C), at least 1 when the share is above 0. */
  guaranteed_concurrency: number;
  /** Worker slots this lane may use: C minus the other lanes' guaranteed slots. */
  max_concurrency: number;
}

export interface AccountCapacity {
  /** The account's rate, msg/s. */
  rate_per_second: number;
  /** Concurrent provider calls the account's workers may have in flight, a whole number ≥ 1. */
  concurrency: number;
}

/**
 * Per lane, the guaranteed and maximum rate and concurrency of one account; an error when the
 * numbers leave a lane with no rate or no worker slot (e.g. concurrency 1 with two lanes).
 */
export function laneBudgets(account: AccountCapacity, lanes: readonly LaneConfig[] = DEFAULT_LANES): LaneCheck<LaneBudget[]> {
  const errors = laneConfigErrors(lanes);
  const { rate_per_second: rate, concurrency } = account;
  if (!(rate > 0) || !Number.isFinite(rate)) errors.push({ field: 'rate_per_second', message: `must be a positive number; got ${rate}` });
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) errors.push({ field: 'concurrency', message: `must be a whole number ≥ 1; got ${concurrency}` });
  if (errors.length > 0) return { ok: false, errors };

  // The slack keeps 0.57 × 100 = 56.99999999999999 from losing a slot.
  const slots = lanes.map((l) => (l.guaranteed_share > 0 ? Math.max(1, Math.floor(l.guaranteed_share * concurrency + SHARE_SLACK)) : 0));
  const reservedSlots = slots.reduce((a, b) => a + b, 0);
  const reservedRate = lanes.reduce((a, l) => a + l.guaranteed_share * rate, 0);
  const budgets = lanes.map((l, i) => {
    const guaranteed_rate = l.guaranteed_share * rate;
    return {
      name: l.name,
      guaranteed_rate,
      max_rate: Math.min(rate, Math.max(0, rate - (reservedRate - guaranteed_rate))),
      guaranteed_concurrency: slots[i]!,
      max_concurrency: concurrency - (reservedSlots - slots[i]!),
    };
  });
  if (reservedSlots > concurrency) {
    errors.push({
      field: 'concurrency',
      message: `${concurrency} worker slots cannot give each of the ${slots.filter((s) => s > 0).length} lanes with a share at least one; it needs ${reservedSlots}`,
    });
  }
  budgets.forEach((b, i) => {
    if (b.max_concurrency < 1 && reservedSlots <= concurrency) {
      errors.push({ field: `lanes[${i}].guaranteed_share`, message: `lane "${b.name}" gets no worker slot: the other lanes reserve all ${concurrency}` });
    }
    if (!(b.max_rate > rate * SHARE_SLACK)) {
      errors.push({ field: `lanes[${i}].guaranteed_share`, message: `lane "${b.name}" gets no rate: the other lanes reserve all of it` });
    }
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: budgets };
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** How long a lane's own row can bank its guaranteed rate: claims came back within ~250 ms on a loaded 2-core machine (bench:campaign, permit → receipt p99 of codes 333 ms). */
export const OWN_ROW_BANK_S = 0.25;

/** The name of an account's shared limiter row: lane names are lower-case words, so it cannot collide with one. */
export const SHARED_LIMITER_ROW = '*';

/** One GCRA state of an account (a row of the limiter) and the limit it enforces. */
export interface LimiterRow {
  row: string;
  limit: RateLimit;
}

/**
 * Where one lane's permits come from: `sources` tried in order, each a set of rows granted
 * jointly (the same count from every row of the set, `acquireJoint`). `throttleRows` are every
 * row of the account, which a provider's 429 pauses together.
 */
export interface LanePermitPlan {
  name: string;
  sources: LimiterRow[][];
  throttleRows: LimiterRow[];
  /** How the lane's permits accrue at most (its maximum rate and the larger burst it can draw): what a loop short of permits waits for. */
  accrual: RateLimit;
  /** `split`: reserved rows plus the shared row (the default); `joint`: lane row and account row together, when the burst is too small to split. */
  scheme: 'split' | 'joint';
}

/**
 * The limiter rows of one account and where each lane draws from (docs/campaign-planning.md, "Lanes
 * and their rows"). Split scheme: a lane with a guaranteed share g has its own row at g·R with
 * burst max(1, floor(g·B)); the shared row `*` runs at the unreserved rate R·(1 − Σg) with the
 * rest of the burst (a lane's own burst is at least 250 ms of its rate, OWN_ROW_BANK_S, when
 * the burst allows). A lane takes its own row's permits first (its lock alone: a code never
 * queues behind a campaign's claim) and borrows the rest from the shared row; a lane without a
 * share draws only from the shared row. The rows' rates sum to R and their bursts to B, so in any
 * window the account as a whole grants no more than one limiter at (R, B) would: per row at most
 * b_r + floor(L/T_r) in a closed window of length L, and Σ floor(L/T_r) ≤ floor(L·R) (each T_r is
 * rounded up). When B is too small to give every reserved row 1 and the shared row 1, the joint
 * scheme of before is kept: the lane's row at its maximum rate and the account's row at R, both
 * with burst B, granted together.
 */
export function lanePermitPlans(account: { rate_per_second: number; burst: number }, lanes: readonly LaneConfig[] = DEFAULT_LANES): LanePermitPlan[] {
  const rate = account.rate_per_second;
  const burst = account.burst;
  const accountLimit: RateLimit = { ratePerSecond: rate, burst };
  const reservedShare = lanes.reduce((a, l) => a + l.guaranteed_share, 0);
  const reserved = lanes.filter((l) => l.guaranteed_share > 0);
  // Shares summing to 1 leave nothing unreserved: no shared row.
  const sharedRate = reservedShare >= 1 - SHARE_SLACK ? 0 : rate * (1 - reservedShare);
  const proportional = (l: LaneConfig) => Math.max(1, Math.floor(l.guaranteed_share * burst + SHARE_SLACK));
  // A lane's own row banks at least OWN_ROW_BANK_S of its guaranteed rate, so a claim that comes
  // back late still finds the permits that accrued meanwhile: with burst 1 (bench:campaign's
  // auth, 25/s of a burst of 64) a lane whose claims take longer than one emission interval
  // (40 ms) could never reach its guaranteed rate. Taken from the shared row's burst while that
  // keeps at least 1; else the proportional split.
  const banked = (l: LaneConfig) => Math.max(proportional(l), Math.ceil(l.guaranteed_share * rate * OWN_ROW_BANK_S - SHARE_SLACK));
  const sum = (f: (l: LaneConfig) => number) => reserved.reduce((a, l) => a + f(l), 0);
  const ownBurst = burst - sum(banked) >= (sharedRate > 0 ? 1 : 0) ? banked : proportional;
  const ownBursts = new Map(reserved.map((l) => [l.name, ownBurst(l)] as const));
  const sharedBurst = burst - sum(ownBurst);
  const split = sharedRate > 0 ? sharedBurst >= 1 : sharedBurst >= 0;
  if (!split) {
    const budgets = laneBudgets({ rate_per_second: rate, concurrency: Math.max(1, lanes.length) }, lanes);
    if (!budgets.ok) throw new RangeError(budgets.errors.map((e) => `${e.field} ${e.message}`).join('; '));
    return lanes.map((l, i) => {
      const laneLimit: RateLimit = { ratePerSecond: budgets.value[i]!.max_rate, burst };
      return {
        name: l.name,
        sources: [
          [
            { row: l.name, limit: laneLimit },
            { row: SHARED_LIMITER_ROW, limit: accountLimit },
          ],
        ],
        throttleRows: [{ row: SHARED_LIMITER_ROW, limit: accountLimit }],
        accrual: laneLimit,
        scheme: 'joint',
      };
    });
  }
  const shared: LimiterRow | null = sharedRate > 0 ? { row: SHARED_LIMITER_ROW, limit: { ratePerSecond: sharedRate, burst: sharedBurst } } : null;
  const own = new Map(
    reserved.map((l) => [l.name, { row: l.name, limit: { ratePerSecond: l.guaranteed_share * rate, burst: ownBursts.get(l.name)! } }] as const),
  );
  const throttleRows = [...(shared ? [shared] : []), ...own.values()];
  return lanes.map((l) => {
    const mine = own.get(l.name);
    const sources = [...(mine ? [[mine]] : []), ...(shared ? [[shared]] : [])];
    const maxRate = (mine?.limit.ratePerSecond ?? 0) + (shared?.limit.ratePerSecond ?? 0);
    const maxBurst = Math.max(mine?.limit.burst ?? 0, shared?.limit.burst ?? 0);
    return { name: l.name, sources, throttleRows, accrual: { ratePerSecond: maxRate, burst: maxBurst }, scheme: 'split' as const };
  });
}

/** Limiter rows of tenants with a rate share are named `tenant:<id>`: lane names have no colon, and `*` is not one. */
export const TENANT_ROW_PREFIX = 'tenant:';

/** A tenant's rate share of one account: a fraction 0 < share ≤ 1 of its rate. */
export interface TenantShare {
  tenantId: string;
  share: number;
}

/** Every problem with one rate share (null when valid): a number with 0 < share ≤ 1. */
export function rateShareError(share: unknown): string | null {
  if (typeof share !== 'number' || !Number.isFinite(share) || !(share > 0 && share <= 1))
    return `must be a number above 0 and at most 1; got ${JSON.stringify(share)}`;
  return null;
}

/** Whether shares summing to `total` fit in one account (Σ ≤ 1, with the decimal slack lanes allow). */
export function sharesFit(total: number): boolean {
  return total <= 1 + SHARE_SLACK;
}

/**
 * The limiter row of a tenant with share s of an account at (R, B): rate s·R, burst
 * max(1, floor(s·B)). It is drawn jointly with every source of the lane (`withTenantRow`), so a
 * permit the tenant gets passes both its own row and the lane's/account's rows: the tenant never
 * gets more than windowBound(s·R, its burst) in a window, and the account's bound still holds.
 */
export function tenantLimiterRow(account: { rate_per_second: number; burst: number }, t: TenantShare): LimiterRow {
  const err = rateShareError(t.share);
  if (err) throw new RangeError(`rate share of tenant ${t.tenantId} ${err}`);
  return {
    row: `${TENANT_ROW_PREFIX}${t.tenantId}`,
    limit: { ratePerSecond: t.share * account.rate_per_second, burst: Math.max(1, Math.floor(t.share * account.burst + SHARE_SLACK)) },
  };
}

/** A lane's permit sources with the tenant's row added to each set: every permit passes the tenant's row too. */
export function withTenantRow(sources: readonly (readonly LimiterRow[])[], tenantRow: LimiterRow): LimiterRow[][] {
  return sources.map((set) => [...set, tenantRow]);
}
