/**
 * The tenants' rate shares of each provider account, as the claim sender reads them: from the
 * store at most once per SHARES_REFRESH_MS of the sender's clock per account, so a changed share
 * holds on every worker within 5 s for one small query per account every 5 s (not one per claim).
 */
import type { Clock } from '../clock.js';
import type { TenantShare } from '../domain/index.js';
import type { Store } from '../store/store.js';

/** How long an account's shares are kept before reading them again. */
export const SHARES_REFRESH_MS = 5_000;

export class TenantShares {
  /** Per account, the shares as last read, and when (the sender's clock). */
  private readonly known = new Map<string, { at: number; value: TenantShare[] }>();

  constructor(
    private readonly store: { tenants: Pick<Store['tenants'], 'accountShares'> },
    private readonly clock: Clock,
  ) {}

  /** The account's shares; read again once SHARES_REFRESH_MS has passed (or the clock went back). */
  async of(providerAccount: string): Promise<TenantShare[]> {
    const now = this.clock.now();
    const known = this.known.get(providerAccount);
    if (known && now >= known.at && now - known.at < SHARES_REFRESH_MS) return known.value;
    const value = (await this.store.tenants.accountShares(providerAccount)).map((r) => ({ tenantId: r.tenantId, share: r.share }));
    this.known.set(providerAccount, { at: now, value });
    return value;
  }
}
