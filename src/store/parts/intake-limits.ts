/**
 * `store.intakeLimits`, written once for both drivers (see ../intake-limit-store.ts), but for the
 * two writes on intake's path, which are the drivers' own (sqlite/intake-limits.ts,
 * postgres/intake-limits.ts).
 */
import type { IntakeLimitStore, VelocityTake, VelocityTakeResult } from '../intake-limit-store.js';
import { type Executor, list } from '../sql-executor.js';

/** Request windows and velocity events (the abuse limits on the way in). */
export abstract class IntakeLimitsPart implements IntakeLimitStore {
  constructor(protected readonly x: Executor) {}

  abstract countRequest(subjectId: string, windowStart: number): Promise<number>;

  abstract takeVelocity(t: VelocityTake): Promise<VelocityTakeResult>;

  async releaseVelocity(eventIds: readonly string[]): Promise<void> {
    if (eventIds.length === 0) return;
    await this.x.count('velocity_release', { ids: list(eventIds.map(Number)) });
  }

  async velocityCount(tenantId: string, rule: 'destination' | 'recipient', hash: string, purpose: string, since: number): Promise<number> {
    return Number((await this.x.one('velocity_count', { tenant_id: tenantId, rule, subject_hash: hash, purpose, since }))!.n);
  }
}
