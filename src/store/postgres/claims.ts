/**
 * The PostgreSQL driver's claim: one statement (`claim_batch`, FOR UPDATE SKIP LOCKED) takes the
 * leases and opens the attempts. Shared by the core's claimBatch and the limiter's
 * claimWithPermits, which runs it inside its transaction.
 */
import type pg from 'pg';
import { PURPOSES, type Purpose } from '../../domain/index.js';
import type { ClaimedDelivery, ClaimRequest } from '../core-store.js';
import { toClaimedDelivery } from '../rows.js';
import type { Client, PostgresContext } from './sql-context.js';

type TenantFilter = { tenantId?: string | undefined; exceptTenants?: readonly string[] | undefined };

/** Claims up to `req.limit` due deliveries on `client` (inside the limiter's transaction) or the pool (its own). */
export async function claimOn(sql: PostgresContext, req: ClaimRequest, client: pg.Pool | Client): Promise<ClaimedDelivery[]> {
  if (req.limit <= 0) return [];
  const leaseUntil = req.now + req.leaseMs;
  const params = [req.providerAccount, req.now, req.limit, req.workerId, leaseUntil, [...(req.purposes ?? PURPOSES)]];
  const tenants = [req.tenantId ?? null, req.exceptTenants ? [...req.exceptTenants] : null];
  const rows =
    req.deliveryIds === undefined
      ? await sql.q('claim_batch', [...params, ...tenants], client)
      : await sql.q('claim_ids', [...params, [...req.deliveryIds], ...tenants], client);
  return rows.map((r) => toClaimedDelivery(r, sql.cipher, leaseUntil));
}

/** How many of the lane's deliveries (of `ids` only, when given) are due at `now`, counting no further than `limit`. */
export async function dueCount(
  sql: PostgresContext,
  r: TenantFilter & {
    providerAccount: string;
    now: number;
    purposes?: readonly Purpose[] | undefined;
    deliveryIds?: readonly string[] | undefined;
    limit: number;
  },
): Promise<number> {
  if (r.limit <= 0) return 0;
  const [row] = await sql.q('due_count', [
    r.providerAccount,
    r.now,
    [...(r.purposes ?? PURPOSES)],
    r.limit,
    r.deliveryIds ? [...r.deliveryIds] : null,
    r.tenantId ?? null,
    r.exceptTenants ? [...r.exceptTenants] : null,
  ]);
  return Number(row?.n ?? 0);
}
