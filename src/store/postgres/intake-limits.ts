/**
 * The PostgreSQL driver's intake-limit part (see src/store/intake-limit-store.ts). A request's
 * count is one upsert (its row lock orders concurrent requests of one key across processes). A
 * velocity take locks its subjects (transaction-scoped advisory locks, in sorted order so two
 * takes cannot deadlock), reads, and writes in one transaction (without waiting for its WAL flush): two API processes cannot both
 * take a subject's last slot.
 *
 * Dialect-specific: SQLite joins these two to its group commit instead; the rest of the part is
 * parts/intake-limits.ts.
 */
import { velocityVerdict } from '../../domain/index.js';
import type { VelocityTake, VelocityTakeResult } from '../intake-limit-store.js';
import { IntakeLimitsPart } from '../parts/intake-limits.js';
import type { PostgresContext } from './sql-context.js';

/** `store.intakeLimits` of the PostgreSQL store. */
export class PostgresIntakeLimits extends IntakeLimitsPart {
  constructor(private readonly sql: PostgresContext) {
    super(sql);
  }

  async countRequest(subjectId: string, windowStart: number): Promise<number> {
    const [row] = await this.sql.q('request_window_count', [subjectId, windowStart]);
    return Number(row!.count);
  }

  async takeVelocity(t: VelocityTake): Promise<VelocityTakeResult> {
    return this.sql.tx(async (c) => {
      await this.sql.q('velocity_async_commit', [], c);
      await this.sql.q('velocity_lock', [t.subjects.map((s) => `${t.tenantId}:${s.rule}:${s.hash}`)], c);
      for (const s of t.subjects) {
        const recent = await this.sql.q('velocity_recent', [t.tenantId, s.rule, s.hash, t.purpose, t.now - s.windowMs, s.max], c);
        const v = velocityVerdict(
          { subject: s.rule, max: s.max, windowMs: s.windowMs },
          recent.map((r) => Number(r.created_at)),
          t.now,
        );
        if (!v.allowed) return { ok: false, refused: s, retryAt: v.retryAt };
      }
      await this.sql.q('velocity_prune', [t.pruneBefore], c);
      const rows = await this.sql.q('velocity_insert', [t.tenantId, t.subjects.map((s) => s.rule), t.subjects.map((s) => s.hash), t.purpose, t.now], c);
      return { ok: true, eventIds: rows.map((r) => String(r.id)) };
    });
  }
}
