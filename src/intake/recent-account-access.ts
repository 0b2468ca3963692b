/**
 * The tenants' account access (which provider accounts each may use) as this process recently
 * read it, kept for at most a second. Intake needs it for every request, and reading it each time
 * was one statement per POST on the hottest path. The bound is the API keys' (src/http/live-keys.ts):
 * an access read is trusted for `maxAgeMs` from the moment the read began, so an assignment or
 * unassignment on any process (another API process, `herald tenants`) governs every process's
 * intake within that time; one made through this process's API is honoured here at once
 * (`forget`). Concurrent requests of one tenant share one read; a failed read is not kept.
 */
import type { Clock } from '../clock.js';
import type { AccountAccess, Store } from '../store/store.js';

/** How long an access read is trusted: the bound on another process's (un)assignment. */
export const ACCOUNT_ACCESS_MAX_AGE_MS = 1_000;

interface Kept {
  access: Promise<AccountAccess>;
  /** When the read began. */
  readAt: number;
}

export class RecentAccountAccess {
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly maxAgeMs: number = ACCOUNT_ACCESS_MAX_AGE_MS,
  ) {}

  /** The tenant's access, from a read that began less than `maxAgeMs` ago, else read now. */
  read(tenantId: string): Promise<AccountAccess> {
    const now = this.clock.now();
    const hit = this.kept.get(tenantId);
    if (hit !== undefined && now - hit.readAt < this.maxAgeMs && now >= hit.readAt) return hit.access;
    const access = this.store.tenants.accountAccess(tenantId);
    if (this.maxAgeMs <= 0) return access;
    const entry = { access, readAt: now };
    this.kept.set(tenantId, entry);
    access.catch(() => {
      if (this.kept.get(tenantId) === entry) this.kept.delete(tenantId);
    });
    return access;
  }

  /**
   * Forgets every tenant's access: an assignment changes the default tenant's too (an account
   * assigned to anyone is no longer the default tenant's), so one tenant's entry is not enough.
   */
  forget(): void {
    this.kept.clear();
  }
}
