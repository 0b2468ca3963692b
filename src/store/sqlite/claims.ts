/**
 * The SQLite driver's claim: select the due deliveries, then take each one's lease and open its
 * attempt, by id (see queries/claims.sql for why per id). Shared by the core's claimBatch and
 * the limiter's claimWithPermits, which runs it inside its own transaction.
 */
import type { Purpose } from '../../domain/index.js';
import type { ClaimedDelivery, ClaimRequest } from '../core-store.js';
import { type Row, toClaimedDelivery } from '../rows.js';
import { purposeFlags, type SqliteContext } from './sql-context.js';

type TenantFilter = { tenantId?: string | undefined; exceptTenants?: readonly string[] | undefined };

/** The claim statements' tenant filter: @tenant_id (null: any) and @except_tenants (a JSON array; null: none). */
function tenantParams(r: TenantFilter): { tenant_id: string | null; except_tenants: string | null } {
  return { tenant_id: r.tenantId ?? null, except_tenants: r.exceptTenants ? JSON.stringify(r.exceptTenants) : null };
}

/** Claims up to `req.limit` due deliveries; must run inside the caller's transaction (it writes several rows). */
export function claimDue(sql: SqliteContext, req: ClaimRequest): ClaimedDelivery[] {
  const leaseUntil = req.now + req.leaseMs;
  const params = {
    provider_account: req.providerAccount,
    now: req.now,
    // SQLite reads a negative LIMIT as "no limit": never let a bad caller claim everything.
    limit: Math.max(0, req.limit),
    ...purposeFlags(req.purposes),
    ...tenantParams(req),
  };
  const due = (
    req.deliveryIds === undefined ? sql.stmt('claim_select_due').all(params) : sql.stmt('claim_ids').all({ ...params, ids: JSON.stringify(req.deliveryIds) })
  ) as Row[];
  const claimed: ClaimedDelivery[] = [];
  for (const row of due) {
    const r = sql.stmt('claim_update').get({
      id: row.id,
      worker_id: req.workerId,
      lease_until: leaseUntil,
      now: req.now,
    }) as Row | undefined;
    if (!r) continue;
    sql.stmt('attempt_insert').run({
      delivery_id: r.id,
      number: r.attempt_count,
      lease_version: r.lease_version,
      worker_id: req.workerId,
      now: req.now,
      provider_account: r.provider_account,
    });
    // The claim's own columns over the select's (content, retry ladder, the notification's creation).
    claimed.push(toClaimedDelivery({ ...row, ...r }, sql.cipher, leaseUntil));
  }
  return claimed;
}

/** How many of the lane's deliveries (of `ids` only, when given) are due at `now`, counting no further than `limit`. */
export function dueCount(
  sql: SqliteContext,
  r: TenantFilter & {
    providerAccount: string;
    now: number;
    purposes?: readonly Purpose[] | undefined;
    deliveryIds?: readonly string[] | undefined;
    limit: number;
  },
): number {
  if (r.limit <= 0) return 0;
  const row = sql.stmt('due_count').get({
    provider_account: r.providerAccount,
    now: r.now,
    limit: r.limit,
    ids: r.deliveryIds ? JSON.stringify(r.deliveryIds) : null,
    ...purposeFlags(r.purposes),
    ...tenantParams(r),
  }) as Row | undefined;
  return Number(row?.n ?? 0);
}
