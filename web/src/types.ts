/**
 * The API's JSON answers as the dashboard reads them (see docs/api.md and src/http/routes/):
 * every shape comes from the generated api-types.ts (`npm run api:types`), never written here
 * by hand; this file only names them, and turns the one evidence item schema into a union.
 */

import type { components } from './api-types.js';

/** The answers' schemas, as generated from the OpenAPI document (api-types.ts). */
type Schemas = components['schemas'];

/** An attempt as GET /v1/notifications/:id and /v1/deliveries/:id show it. */
export type Attempt = Schemas['Attempt'];

/** One operator action of the audit trail (who retried, resent or cancelled what). */
export type Action = Schemas['Action'];

type EvidenceItem = Schemas['DeliveryDetail']['evidence'][number];
type Has<K extends keyof EvidenceItem> = { [P in K]-?: Exclude<EvidenceItem[P], undefined> };

/**
 * One item of a delivery's `evidence` (GET /v1/deliveries/:id): a provider callback or a
 * reconciliation look-up. The document has one item schema in which `kind` says which fields
 * are present (src/http/evidence-schema.ts); this union says the same to the compiler.
 */
export type EvidenceEvent =
  | (EvidenceItem & { kind: 'callback' } & Has<'provider_account' | 'event_id' | 'status' | 'received_at' | 'effect'>)
  | (EvidenceItem & { kind: 'lookup' } & Has<'attempt' | 'result' | 'led_to'>);

/**
 * A delivery as the pages read it: the fields every answer has (Delivery), and those only some
 * answers carry (the list's, the review queue's `review_reason`, the detail's actions and evidence).
 */
export type Delivery = Schemas['Delivery'] &
  Partial<Omit<Schemas['DeliveryListItem'], keyof Schemas['Delivery']>> &
  Partial<Pick<Schemas['ReviewItem'], 'review_reason'>> & {
    actions?: Action[];
    evidence?: EvidenceEvent[];
  };

/** GET /v1/notifications/:id. */
export type NotificationDetail = Schemas['NotificationDetail'];

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/**
 * A phone (GET /v1/devices, /v1/devices/:id): its health, SIMs and newest own report
 * (`phone_health`, declared once in src/devices/device-operator.ts and generated from there).
 */
export type Device = Schemas['Device'];

/** One offer of a delivery to a phone (GET /v1/devices/:id/messages). */
export type DeviceMessage = Schemas['DeviceMessage'];

/** A heartbeat sweep, or an operator's retry of a device's failed messages. */
export type Sweep = Schemas['Sweep'];

/** GET /v1/provider-accounts: one account the tenant may use (credentials never). */
export type ProviderAccount = Schemas['ProviderAccount'];

/** The figures a route change was made on (GET /v1/provider-accounts). */
export type RouteFigures = Schemas['RouteChange']['figures'];

/** One configured route with its accounts in order and where each stands (GET /v1/provider-accounts, `routes`). */
export type RouteStanding = Schemas['ConfiguredRoute'];

/** One demotion or restoration of the last day (GET /v1/provider-accounts, `route_changes`). */
export type RouteChange = Schemas['RouteChange'];

/** How often one error class happened in each window (GET /v1/provider-accounts/recent-errors). */
export type ErrorCounts = Omit<Schemas['RecentErrors']['items'][number]['attempts'][number], 'class'>;

/** One account's item of GET /v1/provider-accounts/recent-errors. */
export type RecentErrors = Schemas['RecentErrors']['items'][number];

/** GET /v1/stats. */
export type Stats = Schemas['Stats'];

/** A campaign with its plan and progress (GET /v1/campaigns, /v1/campaigns/:id). */
export type Campaign = Schemas['Campaign'];
