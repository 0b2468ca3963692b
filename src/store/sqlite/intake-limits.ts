/**
 * The SQLite driver's intake-limit part (see src/store/intake-limit-store.ts). Both writes join
 * intake's group commit (`grouped`): a request's count and a notification's velocity take cost no
 * fsync of their own, and a take's read-then-write runs inside the group's BEGIN IMMEDIATE, which
 * holds SQLite's one write lock, so no other process can take the same slot meanwhile.
 *
 * Dialect-specific: these two join SQLite's group commit (PostgreSQL: one upsert, and a take in a
 * transaction of its own behind advisory locks, with one multi-row insert); the rest of the part
 * is parts/intake-limits.ts.
 */
import { velocityVerdict } from '../../domain/index.js';
import type { VelocityTake, VelocityTakeResult } from '../intake-limit-store.js';
import { IntakeLimitsPart } from '../parts/intake-limits.js';
import type { Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';

/** `store.intakeLimits` of the SQLite store. */
export class SqliteIntakeLimits extends IntakeLimitsPart {
  constructor(private readonly sql: SqliteContext) {
    super(sql);
  }

  countRequest(subjectId: string, windowStart: number): Promise<number> {
    return this.sql.grouped(() => Number((this.sql.stmt('request_window_count').get({ subject_id: subjectId, window_start: windowStart }) as Row).count));
  }

  takeVelocity(t: VelocityTake): Promise<VelocityTakeResult> {
    return this.sql.grouped((): VelocityTakeResult => {
      this.sql.stmt('velocity_async_commit').get();
      for (const s of t.subjects) this.sql.stmt('velocity_lock').get({ lock_key: `${t.tenantId}:${s.rule}:${s.hash}` });
      for (const s of t.subjects) {
        const recent = this.sql.stmt('velocity_recent').all({
          tenant_id: t.tenantId,
          rule: s.rule,
          subject_hash: s.hash,
          purpose: t.purpose,
          since: t.now - s.windowMs,
          max: s.max,
        }) as Row[];
        const v = velocityVerdict(
          { subject: s.rule, max: s.max, windowMs: s.windowMs },
          recent.map((r) => Number(r.created_at)),
          t.now,
        );
        if (!v.allowed) return { ok: false, refused: s, retryAt: v.retryAt };
      }
      this.sql.stmt('velocity_prune').run({ before: t.pruneBefore });
      const eventIds = t.subjects.map((s) =>
        String((this.sql.stmt('velocity_insert').get({ tenant_id: t.tenantId, rule: s.rule, subject_hash: s.hash, purpose: t.purpose, now: t.now }) as Row).id),
      );
      return { ok: true, eventIds };
    });
  }
}
