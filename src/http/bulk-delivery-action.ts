/**
 * What the two bulk delivery actions share, POST /v1/deliveries/cancel (bulk-cancel.ts) and
 * POST /v1/deliveries/retry (review.ts): a body of a `filter` that must name at least one field
 * and may bound the creation time, `dry_run`, and one audit row per delivery the action changed.
 * Each route keeps its own filter fields, its walk and its answer.
 */
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { fieldError } from '../errors.js';
import type { OperatorAction, Store } from '../store/store.js';
import { operatorAction } from './audit-trail.js';

/** A bulk filter's creation window, as the body gives it. */
export interface CreatedWindowBody {
  created_after?: string;
  created_before?: string;
}

/** The window as epoch ms: `createdFrom` inclusive, `createdTo` exclusive (the store's `ReplayFilter` names). */
export interface CreatedWindow {
  createdFrom?: number;
  createdTo?: number;
}

const CREATED_WINDOW = {
  created_after: { type: 'string', format: 'date-time', description: 'created at or after (RFC 3339)' },
  created_before: { type: 'string', format: 'date-time', description: 'created before (RFC 3339)' },
} as const;

/** `dry_run`: the preview, in both actions. */
const DRY_RUN = { type: 'boolean', description: 'Count what would happen, change nothing. Default false.' } as const;

/** Audit rows are written this many per statement. */
const AUDIT_BATCH = 500;

function timeField(field: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw fieldError(field, 'must be an RFC 3339 date-time');
  return t;
}

/**
 * One bulk action's body: its schema (`filter` of the given fields and the creation window,
 * then the action's own fields and `dry_run`) and the check of its filter. `refusal` ends the
 * message for an empty filter ("cancelling every delivery at once is refused").
 */
export function bulkActionBody<Filter extends Record<string, object>, Fields extends Record<string, object>>(
  filterFields: Filter,
  fields: Fields,
  refusal: string,
) {
  const filterProperties = { ...filterFields, ...CREATED_WINDOW };
  const names = Object.keys(filterProperties).join(', ');
  return {
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['filter'],
      properties: {
        filter: { type: 'object', additionalProperties: false, properties: filterProperties },
        ...fields,
        dry_run: DRY_RUN,
      },
    } as const,
    /** Refuses an empty filter and an empty or unreadable window; returns the window. */
    window(filter: CreatedWindowBody): CreatedWindow {
      if (Object.keys(filter).length === 0) throw fieldError('filter', `must name at least one of ${names}: ${refusal}`);
      const from = timeField('filter.created_after', filter.created_after);
      const to = timeField('filter.created_before', filter.created_before);
      if (from !== undefined && to !== undefined && from >= to) throw fieldError('filter.created_before', 'must be later than filter.created_after');
      return { ...(from !== undefined ? { createdFrom: from } : {}), ...(to !== undefined ? { createdTo: to } : {}) };
    },
  };
}

/** One audit row per delivery the action changed (`detail` shared), so each delivery's page shows who did it. */
export async function auditEachDelivery(
  deps: { store: Store; clock: Clock },
  request: FastifyRequest,
  action: OperatorAction,
  deliveries: readonly { id: string; notificationId: string }[],
  detail: Record<string, unknown>,
): Promise<void> {
  const now = deps.clock.now();
  const rows = deliveries.map((d) => operatorAction(request, now, action, { deliveryId: d.id, notificationId: d.notificationId }, detail));
  for (let i = 0; i < rows.length; i += AUDIT_BATCH) await deps.store.audit.record(rows.slice(i, i + AUDIT_BATCH));
}
