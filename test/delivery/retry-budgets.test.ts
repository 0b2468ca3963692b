/**
 * The claim sender's cache of retry budgets (src/delivery/retry-budget.ts): one health read per
 * account per BUDGET_REFRESH_MS, the window read is the last HEALTH_WINDOW_MS, and an unreadable
 * health store means healthy (retries keep their ladder's own jitter).
 */
import { describe, expect, it } from 'vitest';
import { BUDGET_REFRESH_MS, RetryBudgets } from '../../src/delivery/retry-budget.js';
import { HEALTH_WINDOW_MS } from '../../src/domain/index.js';
import { silentLogger } from '../helpers/harness.js';

function healthStore(window: () => { calls: number; failures: number }) {
  const reads: Array<{ account: string; since: number }> = [];
  return {
    reads,
    store: {
      health: {
        providerHealth: async (account: string, since: number) => {
          reads.push({ account, since });
          return window();
        },
      },
    },
  };
}

describe('RetryBudgets', () => {
  it("assesses the account's last window, and reads it again only after the refresh period", async () => {
    let window = { calls: 40, failures: 30 };
    const { store, reads } = healthStore(() => window);
    const budgets = new RetryBudgets(store, silentLogger);
    expect((await budgets.of('a', 100_000)).state).toBe('degraded');
    expect(reads).toEqual([{ account: 'a', since: 100_000 - HEALTH_WINDOW_MS }]);
    window = { calls: 40, failures: 0 };
    expect((await budgets.of('a', 100_000 + BUDGET_REFRESH_MS - 1)).state).toBe('degraded');
    expect(reads).toHaveLength(1);
    expect((await budgets.of('a', 100_000 + BUDGET_REFRESH_MS)).state).toBe('healthy');
    expect(reads).toHaveLength(2);
  });

  it('keeps each account apart, and reads again for an earlier time', async () => {
    const { store, reads } = healthStore(() => ({ calls: 0, failures: 0 }));
    const budgets = new RetryBudgets(store, silentLogger);
    await budgets.of('a', 50_000);
    await budgets.of('b', 50_000);
    await budgets.of('a', 49_000);
    expect(reads.map((r) => r.account)).toEqual(['a', 'b', 'a']);
  });

  it('an unreadable health store is taken as healthy', async () => {
    const budgets = new RetryBudgets(
      {
        health: {
          providerHealth: async () => {
            throw new Error('connection lost');
          },
        },
      },
      silentLogger,
    );
    expect(await budgets.of('a', 1_000)).toEqual({ state: 'healthy', failureRatio: 0 });
  });
});
