/**
 * How a worker splits one provider account into lanes: which purposes each lane claims, how
 * many deliveries it claims at once (its share of the worker's concurrency), and the limiter
 * rows its permits come from (the lane's own reserved row, then the account's shared row: the
 * domain's `lanePermitPlans`). The numbers come from the domain's `laneBudgets`; this file only
 * maps configuration onto them.
 */
import {
  DEFAULT_LANES,
  laneBudgets,
  lanePermitPlans,
  PURPOSES,
  tenantLimiterRow,
  withTenantRow,
  type LanePermitPlan,
  type LimiterRow,
  type Purpose,
  type RateLimit,
  type TenantShare,
} from '../domain/index.js';
import type { ProviderAccountConfig } from '../providers/provider.js';

export interface WorkerLane {
  name: string;
  purposes: readonly Purpose[];
  /** Deliveries one claim of this lane takes: its maximum concurrency spread over the lane's loops. */
  batchSize: number;
  /**
   * Null: no limiter (an account the worker has no configuration for). `lane` and `account`
   * are the lane's maximum rate and the account's (the joint scheme's rows); `plan` is where the
   * permits really come from.
   */
  limits: { lane: RateLimit; account: RateLimit; plan: LanePermitPlan } | null;
}

/**
 * The lanes of one account for a worker with `loops` claim loops per lane of up to `batchSize`
 * each. Without configuration: one lane with every purpose and no limiter. Lane budgets are
 * validated with the configuration, so an invalid one here is a programming error.
 */
export function workerLanes(account: ProviderAccountConfig | undefined, opts: { batchSize: number; loops: number }): WorkerLane[] {
  if (!account) return [{ name: 'all', purposes: PURPOSES, batchSize: opts.batchSize, limits: null }];
  const lanes = account.lanes ?? DEFAULT_LANES;
  const concurrency = opts.batchSize * opts.loops;
  const budgets = laneBudgets({ rate_per_second: account.rate_per_second, concurrency }, lanes);
  if (!budgets.ok) throw new Error(`provider account ${account.id}: ${budgets.errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
  const accountLimit: RateLimit = { ratePerSecond: account.rate_per_second, burst: account.burst };
  const plans = lanePermitPlans(account, lanes);
  return lanes.map((l, i) => {
    const b = budgets.value[i]!;
    return {
      name: l.name,
      purposes: l.purposes,
      batchSize: Math.max(1, Math.min(opts.batchSize, Math.floor(b.max_concurrency / opts.loops))),
      limits: { lane: { ratePerSecond: b.max_rate, burst: account.burst }, account: accountLimit, plan: plans[i]! },
    };
  });
}

/**
 * One claim of a lane on an account where some tenants have rate shares: either one tenant's
 * deliveries with its row added to every source (`tenantId`), or everybody else's on the lane's
 * own sources (`exceptTenants`).
 */
export type ClaimGroup = { sources: LimiterRow[][] } & ({ tenantId: string } | { exceptTenants: string[] });

/**
 * The claims one round of a lane makes on an account with rate shares (docs/tenants.md, "Rate
 * shares"): the tenants without a share together, as before, and each tenant with a share on
 * its own, its row (`tenant:<id>`, share·R) drawn jointly with the lane's rows. Rotated by
 * `turn`, so no group always comes last when the batch runs out. Empty `shares`: one group,
 * the lane's plain claim (the caller makes it without a tenant filter).
 */
export function claimGroups(
  account: { rate_per_second: number; burst: number },
  sources: readonly (readonly LimiterRow[])[],
  shares: readonly TenantShare[],
  turn: number,
): ClaimGroup[] {
  const plain = sources.map((set) => [...set]);
  if (shares.length === 0) return [{ sources: plain, exceptTenants: [] }];
  const groups: ClaimGroup[] = [
    { sources: plain, exceptTenants: shares.map((t) => t.tenantId) },
    ...shares.map((t) => ({ sources: withTenantRow(sources, tenantLimiterRow(account, t)), tenantId: t.tenantId })),
  ];
  const k = ((turn % groups.length) + groups.length) % groups.length;
  return [...groups.slice(k), ...groups.slice(0, k)];
}
