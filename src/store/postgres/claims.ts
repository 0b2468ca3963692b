/**
 * The PostgreSQL driver's claim: one statement (`claim_batch`, FOR UPDATE SKIP LOCKED) takes the
 * leases and opens the attempts. Shared by the core's claimBatch and the limiter's
 * claimWithPermits, which runs it inside its transaction.
 */
import type pg from 'pg';
import { PURPOSES, type Purpose } from '../../domain/index.js';
import type { ClaimedDelivery, ClaimRequest } from '../core-store.js';

type TenantFilter = { tenantId?: string | undefined; exceptTenants?: readonly string[] | undefined };
import type { Client, PostgresContext } from './sql-context.js';
import { bindTo, openContent } from '../content-cipher.js';

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
  return rows.map((r) => ({
    deliveryId: String(r.id),
    notificationId: String(r.notification_id),
    tenantId: String(r.tenant_id),
    channel: r.channel as ClaimedDelivery['channel'],
    purpose: r.purpose as ClaimedDelivery['purpose'],
    providerAccount: String(r.provider_account),
    destination: String(r.destination),
    content: openContent(sql.cipher, r.content_json, bindTo('notifications', 'content_json', String(r.notification_id))),
    retryLadder: (r.retry_ladder ?? null) as ClaimedDelivery['retryLadder'],
    notificationCreatedAt: Number(r.notification_created_at),
    idempotencyKey: String(r.idempotency_key),
    expiresAt: Number(r.expires_at),
    attemptNumber: Number(r.attempt_count),
    leaseVersion: Number(r.lease_version),
    leaseUntil,
  }));
}

/** The earliest `next_attempt_at` of an account's pending deliveries (of these purposes) not expired at `now`, or null. */
export async function nextDue(sql: PostgresContext, providerAccount: string, now: number, purposes?: readonly Purpose[]): Promise<number | null> {
  const [r] = await sql.q('next_due_at', [providerAccount, now, [...(purposes ?? PURPOSES)]]);
  return r && r.at !== null ? Number(r.at) : null;
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
