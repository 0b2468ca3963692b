/**
 * The success answers of the routes, declared once in TypeBox: notifications, deliveries and
 * the review queue here, phones and provider accounts in operator-schemas.ts, campaigns in
 * campaign-schemas.ts, the stats and the scheduling policy beside their routes. Each is registered on the app under its `$id`
 * (`addResponseSchemas`), so the OpenAPI document names it in `components.schemas` and the
 * generated types (`web/src/api-types.ts`, `@herald/client`) carry the same name.
 *
 * These schemas also serialize the answers (Fastify's fast-json-stringify): a field a view in
 * views.ts returns but a schema here does not list is dropped from the answer, and a field
 * listed as a string but null would be written as "". So every field is listed with its exact
 * nullability; `test/http/response-schemas.test.ts` checks answers against the views.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { CHANNELS, DELIVERY_STATES, DOWNSTREAM_STATUSES, FAILOVER_REASONS, HOLD_REASONS, PURPOSES, TERMINAL_REASONS } from '../domain/index.js';
import { REVIEW_REASONS } from '../store/review-store.js';
import { campaignSchemas } from './campaign-schemas.js';
import { evidenceItemSchema } from './evidence-schema.js';
import { operatorSchemas } from './operator-schemas.js';
import { schedulingPolicySchema } from './routes/scheduling.js';
import { statsSchema } from './stats-schema.js';
import { count, intOrNull, oneOf, orNull, pageOfRefs, ref, text, textOrNull, time, timeOrNull } from './schema-words.js';

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
const acceptedFields = {
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
};
const NotificationAccepted = Type.Object(acceptedFields, { $id: 'NotificationAccepted', additionalProperties: false });

/** POST /v1/notifications/:id/resend's 202: the new generation's acceptedBody, naming the notification it resends. */
const NotificationResent = Type.Object(
  { ...acceptedFields, resend_of: Type.String({ description: 'the notification this one resends' }) },
  { $id: 'NotificationResent', additionalProperties: false },
);

/** GET /v1/review: a delivery with why it is in the queue (routes/review.ts). */
const ReviewItem = Type.Object({ ...deliveryFields, review_reason: oneOf(REVIEW_REASONS) }, { $id: 'ReviewItem', additionalProperties: false });

/** POST /v1/deliveries/retry: what a bulk replay did, or with `dry_run` would do (routes/review.ts). */
const BulkRetry = Type.Union(
  [
    Type.Object(
      {
        dry_run: Type.Literal(true),
        matched: count,
        would_retry: count,
        refused: Type.Array(Type.Object({ reason: text, count }, { additionalProperties: false })),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      { matched: count, scheduled: count, refused: Type.Record(Type.String(), count, { description: 'the deliveries not replayed, by reason' }) },
      { additionalProperties: false },
    ),
  ],
  { $id: 'BulkRetry' },
);

const schemas = [
  NotificationAccepted,
  NotificationResent,
  Attempt,
  Delivery,
  Action,
  DeliveryListItem,
  DeliveryPage,
  DeliveryDetail,
  Report,
  NotificationDetail,
  Type.Unsafe(schedulingPolicySchema),
  ReviewItem,
  pageOfRefs('ReviewItem', 'ReviewPage'),
  BulkRetry,
  Type.Unsafe(statsSchema),
  ...operatorSchemas,
  ...campaignSchemas,
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
  notificationResent: ref('NotificationResent'),
  reviewPage: ref('ReviewPage'),
  bulkRetry: ref('BulkRetry'),
  device: ref('Device'),
  deviceList: ref('DeviceList'),
  deviceDetail: ref('DeviceDetail'),
  deviceMessage: ref('DeviceMessage'),
  deviceMessagePage: ref('DeviceMessagePage'),
  sweep: ref('Sweep'),
  sweepList: ref('SweepList'),
  deviceRetry: ref('DeviceRetry'),
  providerAccountList: ref('ProviderAccountList'),
  recentErrors: ref('RecentErrors'),
  rolloutSummary: ref('RolloutSummary'),
  campaign: ref('Campaign'),
  campaignDetail: ref('CampaignDetail'),
  campaignPage: ref('CampaignPage'),
  audience: ref('Audience'),
} as const;
