import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ACCOUNT_ACCESS_MAX_AGE_MS, RecentAccountAccess } from '../../src/intake/recent-account-access.js';
import type { AccountAccess, Store } from '../../src/store/store.js';

/** A store whose accountAccess answers `answer()` and counts its reads. */
function countingStore(answer: (tenantId: string) => Promise<AccountAccess>) {
  const reads: string[] = [];
  const store = {
    tenants: {
      accountAccess: (tenantId: string) => {
        reads.push(tenantId);
        return answer(tenantId);
      },
    },
  } as unknown as Store;
  return { store, reads };
}

const ACME: AccountAccess = { assigned: ['sms-1'], taken: ['sms-1'] };

describe('RecentAccountAccess', () => {
  it('reads a tenant once a second, shares a read in flight, and keeps tenants apart', async () => {
    const clock = new ManualClock(0);
    const { store, reads } = countingStore(async () => ACME);
    const access = new RecentAccountAccess(store, clock);
    const [a, b] = await Promise.all([access.read('acme'), access.read('acme')]);
    expect(a).toEqual(ACME);
    expect(b).toBe(a);
    clock.advance(ACCOUNT_ACCESS_MAX_AGE_MS - 1);
    await access.read('acme');
    expect(reads).toEqual(['acme']);
    await access.read('default');
    expect(reads).toEqual(['acme', 'default']);
    clock.advance(1);
    await access.read('acme');
    expect(reads).toEqual(['acme', 'default', 'acme']);
  });

  it('reads again after forget (an assignment through this process), for every tenant', async () => {
    const clock = new ManualClock(0);
    const { store, reads } = countingStore(async () => ACME);
    const access = new RecentAccountAccess(store, clock);
    await access.read('acme');
    await access.read('default');
    access.forget();
    await access.read('acme');
    await access.read('default');
    expect(reads).toEqual(['acme', 'default', 'acme', 'default']);
  });

  it('does not keep a failed read', async () => {
    const clock = new ManualClock(0);
    let fail = true;
    const { store, reads } = countingStore(async () => {
      if (fail) throw new Error('connection lost');
      return ACME;
    });
    const access = new RecentAccountAccess(store, clock);
    await expect(access.read('acme')).rejects.toThrow('connection lost');
    fail = false;
    expect(await access.read('acme')).toEqual(ACME);
    expect(reads).toHaveLength(2);
  });

  it('with a max age of 0 reads every time', async () => {
    const { store, reads } = countingStore(async () => ACME);
    const access = new RecentAccountAccess(store, new ManualClock(0), 0);
    await access.read('acme');
    await access.read('acme');
    expect(reads).toHaveLength(2);
  });
});
