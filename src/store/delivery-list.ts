/**
 * The delivery list's plan: which filter's index a page walks (each driver has one statement
 * per driving filter in queries/delivery_list.sql, named in LIST_STATEMENTS), and its named
 * parameters. Every statement takes the same parameters (`q` only the two searches).
 */
import { encodeTime } from 'ulid';
import type { DeliveryFilter, DeliveryListItem } from './core-store.js';
import { str, strOrNull, toDeliveryView, type Row } from './rows.js';

/** The statements' parameters (`q` only in the two search statements, delivery_id and notification; `failed` in all but deliveries_list_by_failed, which starts from it). */
export const DELIVERY_LIST_PARAMS = [
  'tenant_id',
  'before',
  'after',
  'state',
  'channel',
  'purpose',
  'terminal_reason',
  'downstream_status',
  'provider_account',
  'campaign_id',
  'device_id',
  'since',
  'until',
  'limit',
  'q',
  'failed',
] as const;

/** Above and below every delivery id (`dlv_` + 26 Crockford base32 characters, none of them `~`). */
const ID_CEILING = 'dlv_~';
const ID_FLOOR = 'dlv_';

/**
 * An id's time part is its creation time, except that the monotonic ULID factory runs ahead of
 * a clock that stepped back. `until` bounds ids with a minute's slack (the exact created_at
 * filter does the rest), so the list stays a range scan; a delivery whose id ran more than a
 * minute ahead (a clock stepped back by more than that) is missed by `until`. Decided: a time
 * filter that reads a million rows is worse than that edge.
 */
const CLOCK_STEP_SLACK_MS = 60_000;

/** The smallest delivery id made at or after `ms` (an id's first 10 characters after `dlv_` are its time). */
const idAt = (ms: number): string => `dlv_${encodeTime(Math.max(0, Math.min(ms, 2 ** 48 - 1)), 10)}`;

/**
 * The filter whose index a page walks, most selective first: a search, a phone, a campaign, a
 * terminal reason, failed messages only, a downstream status, an account, a state; else the
 * tenant's whole list.
 * Each driver maps it to its statement (deliveries_list_by_<filter>).
 */
export type DrivingFilter =
  'delivery_id' | 'notification' | 'device' | 'campaign' | 'terminal_reason' | 'failed' | 'downstream_status' | 'provider_account' | 'state' | 'none';

/** The delivery list's statement per driving filter (queries/delivery_list.sql). */
export const LIST_STATEMENTS: Record<DrivingFilter, string> = {
  none: 'deliveries_list',
  state: 'deliveries_list_by_state',
  terminal_reason: 'deliveries_list_by_terminal_reason',
  failed: 'deliveries_list_by_failed',
  downstream_status: 'deliveries_list_by_downstream_status',
  provider_account: 'deliveries_list_by_provider_account',
  campaign: 'deliveries_list_by_campaign',
  device: 'deliveries_list_by_device',
  delivery_id: 'deliveries_list_by_id',
  notification: 'deliveries_list_by_notification',
};

export interface DeliveryListPlan {
  driving: DrivingFilter;
  params: Record<(typeof DELIVERY_LIST_PARAMS)[number], string | number | null>;
}

/** The driving filter and parameters for one page (`limit` + 1 rows are asked for, to know whether another page follows). */
export function planDeliveryList(tenantId: string, f: DeliveryFilter, cursor: string | null, limit: number): DeliveryListPlan {
  let before = cursor ?? ID_CEILING;
  if (f.until !== undefined) {
    const bound = idAt(f.until + CLOCK_STEP_SLACK_MS);
    if (bound < before) before = bound;
  }
  // An id's time never runs behind its creation time, so `since` bounds ids exactly.
  const after = f.since !== undefined ? idAt(f.since) : ID_FLOOR;
  const driving: DrivingFilter =
    f.q !== undefined
      ? /^dlv_/.test(f.q)
        ? 'delivery_id'
        : 'notification'
      : f.deviceId !== undefined
        ? 'device'
        : f.campaignId !== undefined
          ? 'campaign'
          : f.terminalReason !== undefined
            ? 'terminal_reason'
            : f.failed === true
              ? 'failed'
              : f.downstreamStatus !== undefined
                ? 'downstream_status'
                : f.providerAccount !== undefined
                  ? 'provider_account'
                  : f.state !== undefined
                    ? 'state'
                    : 'none';
  return {
    driving,
    params: {
      tenant_id: tenantId,
      before,
      after,
      state: f.state ?? null,
      channel: f.channel ?? null,
      purpose: f.purpose ?? null,
      terminal_reason: f.terminalReason ?? null,
      downstream_status: f.downstreamStatus ?? null,
      provider_account: f.providerAccount ?? null,
      campaign_id: f.campaignId ?? null,
      device_id: f.deviceId ?? null,
      since: f.since ?? null,
      until: f.until ?? null,
      limit: Math.max(1, limit) + 1,
      q: f.q ?? null,
      failed: f.failed === true ? 1 : null,
    },
  };
}

/** A delivery list row as the contract's item. */
export function toDeliveryListItem(r: Row): DeliveryListItem {
  return {
    ...toDeliveryView(r),
    destination: str(r.destination),
    recipientId: str(r.recipient_id),
    operationId: str(r.operation_id),
    campaignId: strOrNull(r.campaign_id),
    deviceId: strOrNull(r.device_id),
  };
}

/** Cuts the extra row off and says where the next page starts. */
export function toDeliveryPage(rows: Row[], limit: number): { items: DeliveryListItem[]; nextCursor: string | null } {
  const size = Math.max(1, limit);
  const items = rows.slice(0, size).map(toDeliveryListItem);
  return { items, nextCursor: rows.length > items.length ? items[items.length - 1]!.id : null };
}
