/**
 * The success answers of the operator's routes for phones (routes/devices.ts) and provider
 * accounts (routes/provider-accounts.ts), declared once in TypeBox and registered by `$id`
 * (response-schemas.ts). As there, each schema also serializes its answer: every field the
 * route builds is listed with its exact nullability (test/http/operator-answers.test.ts).
 */
import { Type } from '@sinclair/typebox';
import {
  AMBIGUITY_POLICIES,
  CHANNELS,
  DELIVERY_STATES,
  DEMOTION_REASONS,
  DOWNSTREAM_STATUSES,
  OFFER_STATES,
  PHONE_STATES,
  PURPOSES,
  ROLLOUT_DECISIONS,
  ROLLOUT_STAGES,
  ROUTE_ORDERS,
  TERMINAL_REASONS,
} from '../domain/index.js';
import { deviceHealthSchema, phoneHealthSchema } from '../devices/device-operator.js';
import { ROUTE_CHANGE_ACTIONS } from '../store/route-store.js';
import { SWEEP_CAUSES } from '../store/device-store.js';
import { count, intOrNull, numberOrNull, oneOf, orNull, pageOfRefs, ref, text, textOrNull, time, timeOrNull } from './schema-words.js';

const closed = { additionalProperties: false } as const;

/** routes/devices.ts deviceMessageJson: one offer of a delivery to a phone. */
const DeviceMessage = Type.Object(
  {
    message_id: Type.String({ description: 'The id the phone knows the offer by (stable for this submission).' }),
    delivery_id: text,
    device_id: text,
    seq: Type.Integer(),
    attempt: Type.Integer(),
    current: Type.Boolean({ description: "This offer is the delivery's current submission." }),
    state: oneOf(OFFER_STATES),
    phone_state: orNull(oneOf(PHONE_STATES)),
    phone_error: textOrNull,
    sent: Type.Boolean(),
    sim_number: intOrNull,
    priority: Type.Integer(),
    valid_until: time,
    offered_at: time,
    pulled_at: timeOrNull,
    pull_count: count,
    reoffered_at: timeOrNull,
    reoffer_count: count,
    reported_at: timeOrNull,
    provider_account: text,
    delivery_state: oneOf(DELIVERY_STATES),
    terminal_reason: orNull(oneOf(TERMINAL_REASONS)),
    downstream_status: orNull(oneOf(DOWNSTREAM_STATUSES)),
    purpose: oneOf(PURPOSES),
  },
  { $id: 'DeviceMessage', ...closed },
);

/** routes/devices.ts sweepJson: a heartbeat sweep, or an operator's retry of a device's failed messages. */
const Sweep = Type.Object(
  {
    id: Type.Integer(),
    device_id: text,
    cause: oneOf(SWEEP_CAUSES),
    away_since: timeOrNull,
    returned_at: timeOrNull,
    swept_at: time,
    retried: count,
    reoffered: count,
    skipped_expired: count,
  },
  { $id: 'Sweep', ...closed },
);

const DeviceList = Type.Object({ items: Type.Array(ref('Device')) }, { $id: 'DeviceList', ...closed });
const DeviceDetail = Type.Object(
  { ...deviceHealthSchema.properties, actions: Type.Array(ref('Action'), { description: 'Who retried its messages, oldest first.' }) },
  { $id: 'DeviceDetail', ...closed },
);
const DeviceMessagePage = pageOfRefs('DeviceMessage', 'DeviceMessagePage');
const SweepList = Type.Object({ items: Type.Array(ref('Sweep')) }, { $id: 'SweepList', ...closed });
const DeviceRetry = Type.Object(
  {
    action: Type.Unsafe<string>({
      type: 'string',
      enum: ['retried', 'reoffered'],
      description: 'retried: a failed message got a new offer; reoffered: an unknown one was offered again under its same id.',
    }),
    message: ref('DeviceMessage'),
  },
  { $id: 'DeviceRetry', ...closed },
);

const figures = Type.Object({ accepted: count, slow: count, calls: count, failures: count }, closed);

/** One demotion or restoration with the figures it was made on (provider-accounts.ts routeChangeJson). */
const RouteChange = Type.Object(
  {
    route: Type.String({ description: '<tenant>/<channel>/<purpose>' }),
    provider_account: text,
    action: oneOf(ROUTE_CHANGE_ACTIONS),
    reasons: Type.Array(oneOf(DEMOTION_REASONS)),
    at: time,
    figures,
  },
  { $id: 'RouteChange', ...closed },
);

/** A configured route the tenant's deliveries may take, its accounts in order with their standing (provider-accounts.ts routesView). */
const ConfiguredRoute = Type.Object(
  {
    route: Type.String({ description: '<tenant>/<channel>/<purpose>' }),
    tenant: Type.String({ description: '`*` for a route every tenant takes' }),
    channel: oneOf(CHANNELS),
    purpose: oneOf([...PURPOSES, 'default']),
    order: oneOf(ROUTE_ORDERS),
    accounts: Type.Array(
      Type.Object(
        {
          provider_account: text,
          position: Type.Integer({ minimum: 1 }),
          state: oneOf(['in_service', 'demoted']),
          since: Type.Union([time, Type.Null()], { description: 'null: never changed' }),
          reasons: Type.Array(oneOf(DEMOTION_REASONS)),
          last_change: orNull(Type.Object({ action: oneOf(ROUTE_CHANGE_ACTIONS), at: time, figures }, closed)),
        },
        closed,
      ),
    ),
  },
  { $id: 'ConfiguredRoute', ...closed },
);

/** GET /v1/provider-accounts: one account as the tenant may see it (credentials never). */
const ProviderAccount = Type.Object(
  {
    id: text,
    kind: text,
    channel: oneOf(CHANNELS),
    settings: Type.Record(Type.String(), Type.Unknown(), { description: "The kind's settings that are safe to show (host, sender); never credentials." }),
    rate_per_second: Type.Number(),
    burst: Type.Integer(),
    ambiguity_policy: oneOf(AMBIGUITY_POLICIES),
    rollout: oneOf(ROLLOUT_STAGES, "The account's rollout stage: what its answers are allowed to trigger."),
    ambiguity_policies: Type.Object(Object.fromEntries(PURPOSES.map((p) => [p, oneOf(AMBIGUITY_POLICIES)])), {
      ...closed,
      description: "The policy each purpose's unknown deliveries get.",
    }),
    timeout_ms: Type.Integer(),
    lanes: Type.Array(
      Type.Object(
        {
          name: text,
          purposes: Type.Array(oneOf(PURPOSES)),
          guaranteed_share: Type.Number(),
          guaranteed_rate: numberOrNull,
          max_rate: numberOrNull,
        },
        closed,
      ),
    ),
    capabilities: Type.Object({ lookup: Type.Boolean(), dedupes_by_key: Type.Boolean() }, closed),
    callbacks: Type.Boolean({ description: 'Whether delivery callbacks are accepted at /v1/callbacks/{id}; the secrets are never shown.' }),
    evidence_window_seconds: Type.Integer(),
    lookup_grace_seconds: Type.Integer(),
    retry_budget: Type.Object(
      {
        state: oneOf(['healthy', 'degraded']),
        window_seconds: Type.Number(),
        calls: count,
        failures: count,
        failure_ratio: Type.Number(),
        degraded_above: Type.Number(),
        min_calls: count,
        spread: text,
      },
      closed,
    ),
    routes: Type.Array(
      Type.Object({ route: text, state: oneOf(['in_service', 'demoted']), since: time, reasons: Type.Array(oneOf(DEMOTION_REASONS)) }, closed),
      { description: 'Per route that ever changed it, where the account stands (never demoted: in service everywhere).' },
    ),
  },
  { $id: 'ProviderAccount', ...closed },
);

const ProviderAccountList = Type.Object(
  {
    items: Type.Array(ref('ProviderAccount')),
    routes: Type.Array(ref('ConfiguredRoute')),
    route_changes: Type.Array(ref('RouteChange'), { description: 'The last 24 hours, newest first.' }),
  },
  { $id: 'ProviderAccountList', ...closed },
);

const errorCounts = { last_15m: count, last_1h: count, last_24h: count };
const RecentErrors = Type.Object(
  {
    at: time,
    items: Type.Array(
      Type.Object(
        {
          provider_account: text,
          attempts: Type.Array(Type.Object({ class: text, ...errorCounts }, closed)),
          terminal: Type.Array(Type.Object({ reason: text, ...errorCounts }, closed)),
        },
        closed,
      ),
    ),
  },
  { $id: 'RecentErrors', ...closed },
);

const decisionCount = Type.Object({ decision: oneOf(ROLLOUT_DECISIONS), next_stage_decision: oneOf(ROLLOUT_DECISIONS), attempts: count }, closed);
const RolloutSummary = Type.Object(
  {
    id: text,
    stage: oneOf(ROLLOUT_STAGES),
    next_stage: oneOf(ROLLOUT_STAGES),
    window: Type.Object({ from: time, to: time }, closed),
    decided_attempts: count,
    would_change: count,
    changes: Type.Array(decisionCount),
    decisions: Type.Array(decisionCount),
  },
  { $id: 'RolloutSummary', ...closed },
);

/** The schemas above, in the order they are registered (a `$ref` target before the schema that names it). */
export const operatorSchemas = [
  phoneHealthSchema,
  deviceHealthSchema,
  DeviceList,
  DeviceDetail,
  DeviceMessage,
  DeviceMessagePage,
  Sweep,
  SweepList,
  DeviceRetry,
  RouteChange,
  ConfiguredRoute,
  ProviderAccount,
  ProviderAccountList,
  RecentErrors,
  RolloutSummary,
];
