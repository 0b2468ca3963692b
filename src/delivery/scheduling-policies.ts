/**
 * The tenants' scheduling policies as the send-time check reads them (docs/scheduling.md "The
 * tenant's policy"): the tenant's stored choices over the install's defaults, read from the store
 * at most once per CACHE_MS of Herald's clock per tenant, so a change applies to queued messages
 * within seconds without a read per claimed batch.
 */
import type { Clock } from '../clock.js';
import { DEFAULT_SCHEDULING_POLICY, resolvePolicy, type SchedulingPolicy } from '../domain/index.js';
import type { Store } from '../store/store.js';

/** How long one read of a tenant's policy is used (Herald's clock). */
export const SCHEDULING_POLICY_CACHE_MS = 5_000;

/** The policy in force for a tenant, cached per process. */
export class SchedulingPolicies {
  private readonly cache = new Map<string, { at: number; policy: SchedulingPolicy }>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** The install's defaults (`scheduling:` in the config); the windows and caps in UTC when absent. */
    readonly defaults: SchedulingPolicy = DEFAULT_SCHEDULING_POLICY,
  ) {}

  async policyOf(tenantId: string): Promise<SchedulingPolicy> {
    const now = this.clock.now();
    const hit = this.cache.get(tenantId);
    if (hit && now - hit.at < SCHEDULING_POLICY_CACHE_MS && now >= hit.at) return hit.policy;
    const stored = await this.store.scheduling.getPolicy(tenantId);
    const policy = resolvePolicy(stored?.policy ?? null, this.defaults);
    this.cache.set(tenantId, { at: now, policy });
    return policy;
  }

  /** Forgets a tenant's cached policy (this process just replaced it). */
  forget(tenantId: string): void {
    this.cache.delete(tenantId);
  }
}
