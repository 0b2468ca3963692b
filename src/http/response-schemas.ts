/**
 * The success answers of the routes a dashboard or a client reads most (notifications,
 * deliveries), declared once in TypeBox. Each is registered on the app under its `$id`
 * (`addResponseSchemas`), so the OpenAPI document names it in `components.schemas` and the
 * generated types (`web/src/api-types.ts`, `@herald/client`) carry the same name.
 *
 * These schemas also serialize the answers (Fastify's fast-json-stringify): a field a view in
 * views.ts returns but a schema here does not list is dropped from the answer, and a field
 * listed as a string but null would be written as "". So every field is listed with its exact
 * nullability; `test/http/response-schemas.test.ts` checks answers against the views.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { CHANNELS, DELIVERY_STATES, DOWNSTREAM_STATUSES, FAILOVER_REASONS, HOLD_REASONS, PURPOSES, TERMINAL_REASONS } from '../domain/index.js';
import { evidenceItemSchema } from './evidence-schema.js';
import { schedulingPolicySchema } from './routes/scheduling.js';

const text = Type.String();
const textOrNull = Type.Union([Type.String(), Type.Null()]);
const time = Type.String({ format: 'date-time' });
const timeOrNull = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const intOrNull = Type.Union([Type.Integer(), Type.Null()]);
const oneOf = (values: readonly string[], description?: string) =>
  Type.Unsafe<string>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
const orNull = (s: TSchema) => Type.Union([s, Type.Null()]);
/** A `$ref` to a schema registered here, as Fastify resolves it (`<$id>#`). */
const ref = (id: string) => Type.Unsafe({ $ref: `${id}#` });

const decision = orNull(Type.Object({ kind: text, retry_at: timeOrNull }, { additionalProperties: false }));

const Attempt = Type.Object(
  {
    number: Type.Integer(),
    started_at: timeOrNull,
    finished_at: timeOrNull,
    outcome: Type.Union([Type.String(), Type.Null()], { description: 'an outcome kind, `lease_expired`, or null while in flight' }),
    provider_message_id: textOrNull,
    error: orNull(Type.Object({ code: text, message: textOrNull }, { additionalProperties: false })),
    retry_after_ms: intOrNull,
    late_outcome: textOrNull,
    ambiguity_policy: textOrNull,
    resolution: textOrNull,
    decision,
    next_stage_decision: decision,
    provider_account: orNull(Type.String({ description: 'the provider account this attempt used (null on attempts older than failover)' })),
    failover_reason: orNull(oneOf(FAILOVER_REASONS, 'why the delivery moved to another account of its route after this answer; null when it stayed')),
    worker_id: text,
  },
  { $id: 'Attempt', additionalProperties: false },
);

/** views.ts deliveryJson. */
const deliveryFields = {
  id: text,
  notification_id: text,
  channel: oneOf(CHANNELS),
  purpose: oneOf(PURPOSES),
  state: oneOf(DELIVERY_STATES),
  terminal_reason: orNull(oneOf(TERMINAL_REASONS)),
  downstream_status: orNull(oneOf(DOWNSTREAM_STATUSES)),
  provider_account: text,
  provider_message_id: textOrNull,
  idempotency_key: text,
  attempt_count: Type.Integer(),
  next_attempt_at: timeOrNull,
  expires_at: time,
  last_error_code: textOrNull,
  hold_reason: orNull(oneOf(HOLD_REASONS, 'why a ready delivery waits past its due time (quiet hours, a frequency cap)')),
  created_at: time,
  updated_at: time,
};

const Delivery = Type.Object(deliveryFields, { $id: 'Delivery', additionalProperties: false });

/** audit-trail.ts actionJson. */
const Action = Type.Object(
  {
    at: time,
    action: text,
    by: Type.Object({ kind: text, id: text, name: textOrNull }, { additionalProperties: false }),
    delivery_id: Type.Optional(text),
    detail: Type.Unknown(),
  },
  { $id: 'Action', additionalProperties: false },
);

const template = orNull(Type.Object({ id: text, version: Type.Integer(), locale: text, inputs_hash: text }, { additionalProperties: false }));

const DeliveryListItem = Type.Object(
  {
    ...deliveryFields,
    recipient_id: textOrNull,
    operation_id: textOrNull,
    campaign_id: textOrNull,
    device_id: textOrNull,
    destination: Type.Union([Type.String(), Type.Null()], { description: 'masked for sessions below admin; null for push' }),
    last_event_at: time,
  },
  { $id: 'DeliveryListItem', additionalProperties: false },
);

const DeliveryPage = Type.Object({ items: Type.Array(ref('DeliveryListItem')), next_cursor: textOrNull }, { $id: 'DeliveryPage', additionalProperties: false });

const DeliveryDetail = Type.Object(
  {
    ...deliveryFields,
    template,
    attempts: Type.Array(ref('Attempt')),
    evidence: Type.Array(Type.Unsafe(evidenceItemSchema)),
    duplicate_across_accounts: orNull(
      Type.Object(
        { accounts: Type.Array(text, { description: 'The accounts whose delivered (or read) callback was merged, first report first.' }) },
        {
          additionalProperties: false,
          description: 'Two or more provider accounts reported this delivery delivered: a duplicate the recipient received (docs/routing.md). Null otherwise.',
        },
      ),
    ),
    actions: Type.Array(ref('Action')),
  },
  { $id: 'DeliveryDetail', additionalProperties: false },
);

const NotificationDelivery = Type.Object(
  {
    ...deliveryFields,
    sms: Type.Optional(Type.Object({ encoding: text, segments: Type.Integer(), units: Type.Integer() }, { additionalProperties: false })),
    attempts: Type.Array(ref('Attempt')),
  },
  { additionalProperties: false },
);

/** routes/reports.ts reportJson. */
const Report = Type.Object(
  { id: text, kind: text, channel: textOrNull, note: textOrNull, reported_by: text, created_at: time },
  { $id: 'Report', additionalProperties: false },
);

const NotificationDetail = Type.Object(
  {
    id: text,
    purpose: oneOf(PURPOSES),
    recipient_id: text,
    channels: Type.Array(oneOf(CHANNELS)),
    group: Type.Object({ key: text, generation: Type.Integer() }, { additionalProperties: false }),
    metadata: orNull(Type.Record(Type.String(), Type.Unknown())),
    expires_at: time,
    created_at: time,
    template,
    deliveries: Type.Array(NotificationDelivery),
    reports: Type.Array(ref('Report')),
    actions: Type.Array(ref('Action')),
  },
  { $id: 'NotificationDetail', additionalProperties: false },
);

/** intake-service.ts acceptedBody: POST /v1/notifications's 202, also what its idempotency key replays. */
const NotificationAccepted = Type.Object(
  {
    id: text,
    purpose: oneOf(PURPOSES),
    created_at: time,
    send_at: Type.Optional(Type.String({ format: 'date-time', description: 'present when the request named one' })),
    expires_at: time,
    fallback: Type.Optional(
      Type.Object(
        { after_seconds: Type.Number(), evidence: text, pending_channels: Type.Array(oneOf(CHANNELS)) },
        { additionalProperties: false, description: 'present with fallback_after_seconds: the channels not started yet' },
      ),
    ),
    deliveries: Type.Array(
      Type.Object({ id: text, channel: oneOf(CHANNELS), state: oneOf(DELIVERY_STATES), provider_account: text }, { additionalProperties: false }),
    ),
  },
  { $id: 'NotificationAccepted', additionalProperties: false },
);

const schemas = [
  NotificationAccepted,
  Attempt,
  Delivery,
  Action,
  DeliveryListItem,
  DeliveryPage,
  DeliveryDetail,
  Report,
  NotificationDetail,
  Type.Unsafe(schedulingPolicySchema),
];

/** Registers the shared answer schemas on the app, before the routes that name them. */
export function addResponseSchemas(app: FastifyInstance): void {
  for (const s of schemas) app.addSchema(s);
}

/** A route's success answer: a `$ref` to one of the schemas above. */
export const answer = {
  notificationAccepted: ref('NotificationAccepted'),
  delivery: ref('Delivery'),
  deliveryPage: ref('DeliveryPage'),
  deliveryDetail: ref('DeliveryDetail'),
  notificationDetail: ref('NotificationDetail'),
} as const;
