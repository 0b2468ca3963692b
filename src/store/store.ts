/**
 * The Store contract: every read and write Herald makes goes through it. Each driver (sqlite/,
 * postgres/) owns its SQL and passes the conformance suites in test/store/.
 *
 * A Store is its core (core-store.ts: tenants and keys, intake, the delivery state machine's
 * table) plus named parts, one contract file each, that build on the core's records and never
 * on each other's methods:
 *
 *   store.evidence     callback events and the reconciler's queue        evidence-store.ts
 *   store.limiter      the shared rate limiter and permitted claims      limiter-store.ts
 *   store.webhooks     customer endpoints, the outbox relay, the sender  webhook-store.ts
 *   store.campaigns    recipient profiles, audiences, campaigns          campaign-store.ts
 *   store.preferences  opt-outs, the suppression list, send-time check   preference-store.ts
 *   store.review       the review queue, replays, resend sources         review-store.ts
 *   store.fallbacks    pending fallback channels                         fallback-store.ts
 *   store.health       provider call counts for the retry budget         health-store.ts
 *   store.devices      Android gateway phones, offers, reports, sweeps   device-store.ts
 *   store.push         a recipient's push subscriptions                  push-store.ts
 *   store.reports      what people reported (duplicate, not received)    report-store.ts
 *   store.observability  the system's state, aggregated, for /metrics    observability-store.ts
 *   store.sessions     dashboard users and sign-in sessions              session-store.ts
 *   store.audit        who did each operator action                      audit-store.ts
 *   store.tenants      tenants, their keys, their provider accounts      tenant-store.ts
 *   store.eventStream  a tenant's outbox events for GET /v1/events/stream event-stream-store.ts
 *   store.templates    message templates and their immutable versions    template-store.ts
 *   store.retention    erasing content, masking destinations, rotation   retention-store.ts
 *   store.intakeLimits request windows and velocity events (abuse limits) intake-limit-store.ts
 *   store.inbound      incoming SMS, keyword suppressions, phones' health inbound-store.ts
 *   store.routes       route demotions and the figures they are made on  route-store.ts
 *   store.scheduling   a tenant's scheduling policy, frequency-cap sends   scheduling-store.ts
 *
 * This file re-exports the core's and the parts' shapes so callers import them from one place.
 */
import type { CampaignStore } from './campaign-store.js';
import type { CoreStore } from './core-store.js';
import type { DeviceStore } from './device-store.js';
import type { EvidenceStore } from './evidence-store.js';
import type { FallbackStore } from './fallback-store.js';
import type { HealthStore } from './health-store.js';
import type { RouteStore } from './route-store.js';
import type { PushStore } from './push-store.js';
import type { ReportStore } from './report-store.js';
import type { AlertStore } from './alert-store.js';
import type { LimiterStore } from './limiter-store.js';
import type { ObservabilityStore } from './observability-store.js';
import type { PreferenceStore } from './preference-store.js';
import type { RetentionStore } from './retention-store.js';
import type { ReviewStore } from './review-store.js';
import type { SessionStore } from './session-store.js';
import type { AuditStore } from './audit-store.js';
import type { TenantStore } from './tenant-store.js';
import type { EventStreamStore } from './event-stream-store.js';
import type { WebhookStore } from './webhook-store.js';
import type { TemplateStore } from './template-store.js';
import type { IntakeLimitStore } from './intake-limit-store.js';
import type { InboundStore } from './inbound-store.js';
import type { SchedulingStore } from './scheduling-store.js';

export * from './core-store.js';
export type * from './review-store.js';
export type * from './scheduling-store.js';
export type * from './fallback-store.js';
export type * from './health-store.js';
export type * from './route-store.js';
export type * from './device-store.js';
export type * from './push-store.js';
export type * from './report-store.js';
export type * from './alert-store.js';
export type * from './inbound-store.js';
export type * from './observability-store.js';
export * from './session-store.js';
export * from './audit-store.js';
export * from './tenant-store.js';
export type * from './event-stream-store.js';
export type * from './template-store.js';
export type * from './retention-store.js';
export type * from './intake-limit-store.js';

/** A driver's store: the core, its migrations and connections, and the named parts. */
export interface Store extends CoreStore {
  readonly driver: 'sqlite' | 'postgres';
  /** Applies pending numbered migrations; returns the names applied now. */
  migrate(): Promise<string[]>;
  /** Releases connections; calling it again is a no-op. */
  close(): Promise<void>;

  readonly evidence: EvidenceStore;
  readonly limiter: LimiterStore;
  readonly webhooks: WebhookStore;
  readonly campaigns: CampaignStore;
  readonly retention: RetentionStore;
  readonly preferences: PreferenceStore;
  readonly review: ReviewStore;
  readonly fallbacks: FallbackStore;
  readonly health: HealthStore;
  readonly devices: DeviceStore;
  readonly push: PushStore;
  readonly reports: ReportStore;
  readonly alerts: AlertStore;
  readonly observability: ObservabilityStore;
  readonly sessions: SessionStore;
  readonly audit: AuditStore;
  readonly tenants: TenantStore;
  readonly eventStream: EventStreamStore;
  readonly templates: TemplateStore;
  readonly intakeLimits: IntakeLimitStore;
  readonly inbound: InboundStore;
  readonly routes: RouteStore;
  readonly scheduling: SchedulingStore;
}
