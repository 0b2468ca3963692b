/** The claim sender's cache of tenants' rate shares (src/delivery/tenant-shares.ts): one read per account per SHARES_REFRESH_MS. */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { SHARES_REFRESH_MS, TenantShares } from '../../src/delivery/tenant-shares.js';

function storeWith(rows: Map<string, Array<{ tenantId: string; share: number }>>) {
  const reads: string[] = [];
  return {
    reads,
    store: {
      tenants: {
        accountShares: async (account: string) => {
          reads.push(account);
          return (rows.get(account) ?? []).map((r) => ({ ...r }));
        },
      },
    },
  };
}

describe('TenantShares', () => {
  it('reads an account once per refresh period, per account, and sees a change after it', async () => {
    const rows = new Map([['a', [{ tenantId: 't1', share: 0.5 }]]]);
    const { store, reads } = storeWith(rows);
    const clock = new ManualClock(1_000);
    const shares = new TenantShares(store, clock);
    expect(await shares.of('a')).toEqual([{ tenantId: 't1', share: 0.5 }]);
    expect(await shares.of('b')).toEqual([]);
    rows.set('a', [{ tenantId: 't1', share: 0.2 }]);
    clock.advance(SHARES_REFRESH_MS - 1);
    expect(await shares.of('a')).toEqual([{ tenantId: 't1', share: 0.5 }]);
    expect(reads).toEqual(['a', 'b']);
    clock.advance(1);
    expect(await shares.of('a')).toEqual([{ tenantId: 't1', share: 0.2 }]);
    expect(reads).toEqual(['a', 'b', 'a']);
  });

  it('reads again when the clock went back (a read from the future is not trusted)', async () => {
    const { store, reads } = storeWith(new Map());
    const clock = new ManualClock(10_000);
    const shares = new TenantShares(store, clock);
    await shares.of('a');
    clock.set(9_000);
    await shares.of('a');
    expect(reads).toEqual(['a', 'a']);
  });
});
