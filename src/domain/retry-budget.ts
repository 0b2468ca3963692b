/**
 * The retry budget of a provider account. When a provider fails broadly (more than half of
 * the recent calls failed retryably, over enough calls to mean something), retries are
 * spread over a wider window, so that on recovery they do not all fire at the same moment.
 */

/** Health buckets are 10 s wide; the budget looks at the last minute (6 buckets). */
export const HEALTH_BUCKET_MS = 10_000;
export const HEALTH_WINDOW_MS = 60_000;

export interface HealthWindow {
  /** Calls whose outcome was recorded in the window. */
  calls: number;
  /** Of those, retryable or throttled answers. */
  failures: number;
}

export interface RetryBudgetPolicy {
  /** Fewer calls than this say nothing about the provider. */
  minCalls: number;
  /** Failure ratio above which the account is degraded. */
  degradedAbove: number;
  /** How much wider the retry window becomes: each retry lands uniformly in [d, d × (1 + spreadFactor)], capped. */
  spreadFactor: number;
  /** Upper bound of the extra spread. */
  maxSpreadMs: number;
}

/** More than half of at least 20 calls in the window failed retryably. */
export const DEFAULT_RETRY_BUDGET: RetryBudgetPolicy = {
  minCalls: 20,
  degradedAbove: 0.5,
  spreadFactor: 2,
  maxSpreadMs: 5 * 60_000,
};

export type BudgetState = 'healthy' | 'degraded';

export interface BudgetAssessment {
  state: BudgetState;
  failureRatio: number;
}

/** Whether an account is failing broadly, from the outcomes in its window. */
export function assessBudget(w: HealthWindow, p: RetryBudgetPolicy = DEFAULT_RETRY_BUDGET): BudgetAssessment {
  const failureRatio = w.calls === 0 ? 0 : w.failures / w.calls;
  return { state: w.calls >= p.minCalls && failureRatio > p.degradedAbove ? 'degraded' : 'healthy', failureRatio };
}

/** Extra delay for one retry of a degraded account: uniformly spread, bounded. Zero when healthy. */
export function budgetSpreadMs(state: BudgetState, delayMs: number, random: () => number, p: RetryBudgetPolicy = DEFAULT_RETRY_BUDGET): number {
  if (state === 'healthy') return 0;
  return Math.ceil(Math.min(p.maxSpreadMs, delayMs * p.spreadFactor) * random());
}
