/**
 * Each provider account's retry budget over the last minute (domain/retry-budget's
 * `assessBudget`), from the health buckets every worker writes (provider-health.ts). Cached for
 * BUDGET_REFRESH_MS per account: one read per account per 2 s, not one per batch.
 */
import type { Logger } from 'pino';
import { assessBudget, HEALTH_WINDOW_MS, type BudgetAssessment } from '../domain/index.js';
import type { Store } from '../store/store.js';

export const BUDGET_REFRESH_MS = 2_000;

export class RetryBudgets {
  private readonly cached = new Map<string, { at: number; assessment: BudgetAssessment }>();

  constructor(
    private readonly store: { health: Pick<Store['health'], 'providerHealth'> },
    private readonly logger: Logger,
  ) {}

  /** The account's budget at `now` (a read older than BUDGET_REFRESH_MS, or from a later time, is read again). */
  async of(account: string, now: number): Promise<BudgetAssessment> {
    const cached = this.cached.get(account);
    if (cached && now - cached.at < BUDGET_REFRESH_MS && now >= cached.at) return cached.assessment;
    let assessment: BudgetAssessment;
    try {
      assessment = assessBudget(await this.store.health.providerHealth(account, now - HEALTH_WINDOW_MS));
    } catch (err) {
      // Without health data, retries keep their ladder's own jitter: safe, just not spread wider.
      this.logger.warn({ err, providerAccount: account }, 'cannot read provider health; assuming healthy');
      assessment = { state: 'healthy', failureRatio: 0 };
    }
    this.cached.set(account, { at: now, assessment });
    return assessment;
  }
}
