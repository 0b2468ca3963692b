/**
 * The `routes:` section (docs/routing.md): per channel and purpose, the ordered provider
 * accounts a delivery may use and fail over along; per tenant, routes of its own; how a route is
 * ordered; and the demotion rule's figures. Kept beside config.ts, like limits-config.ts: here
 * are the shape, the defaults, the resolved form the domain takes, and the checks a schema
 * cannot make. Whether a tenant is assigned the accounts its own routes name lives in the
 * database, so that check is `routeAssignmentProblems`, run at startup with the tenants' access.
 */
import { Type } from '@sinclair/typebox';
import {
  CHANNELS,
  DEFAULT_DEMOTION_POLICY,
  DEFAULT_RETRY_BUDGET,
  EVERY_TENANT,
  PURPOSES,
  ROUTE_ORDERS,
  type Channel,
  type DemotionFigures,
  type DemotionOverride,
  type DemotionPolicy,
  type Purpose,
  type Route,
  type RouteOrder,
} from '../domain/index.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import { byId, oneOf, section, withDefault, type Settled } from '../schema/setting.js';

const ACCOUNTS = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  minItems: 1,
  maxItems: 16,
  uniqueItems: true,
  description: 'Provider account ids, in the order a delivery tries them (the first is the primary).',
});

/** The demotion rule's figures, each with its meaning; the section gives each its default, a channel's own leave them out. */
const FIGURES = {
  slow_ratio: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1,
    description: 'Share of accepted deliveries that were slow at or above which an account is demoted.',
  }),
  window_s: Type.Integer({ minimum: 60, maximum: 86_400, description: 'How far back accepted deliveries count, in seconds.' }),
  slow_after_s: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    description: 'A delivery is slow when it took longer than this many seconds from acceptance to delivered.',
  }),
  min_accepted: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    description: 'Fewer accepted deliveries than this in the window say nothing about an account.',
  }),
  paused_longer_than_s: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    description: 'An account paused by throttling for longer than this many seconds is demoted.',
  }),
  cool_down_s: Type.Integer({ minimum: 0, maximum: 86_400, description: 'No change to a route within this many seconds of its last one.' }),
};

/** A channel's own demotion figures for one purpose: each one it names replaces the section's. */
const DemotionOverrideSection = section(
  {
    slow_ratio: Type.Optional(FIGURES.slow_ratio),
    window_s: Type.Optional(FIGURES.window_s),
    slow_after_s: Type.Optional(FIGURES.slow_after_s),
    min_accepted: Type.Optional(FIGURES.min_accepted),
    paused_longer_than_s: Type.Optional(FIGURES.paused_longer_than_s),
    cool_down_s: Type.Optional(FIGURES.cool_down_s),
  },
  { description: "Demotion figures of the channel's routes for this purpose; a figure left out is the channel's default's, else the section's." },
);

/** A channel's demotion figures per purpose, and `default` for the purposes not named. */
const DemotionByPurpose = section(
  {
    otp: Type.Optional(DemotionOverrideSection),
    transactional: Type.Optional(DemotionOverrideSection),
    conversational: Type.Optional(DemotionOverrideSection),
    marketing: Type.Optional(DemotionOverrideSection),
    alert: Type.Optional(DemotionOverrideSection),
    default: Type.Optional(DemotionOverrideSection),
  } satisfies Record<Purpose | 'default', unknown>,
  { description: "Per purpose, and default for every purpose not named: the channel's own demotion figures (Notify's defaults are for SMS codes)." },
);

/** One channel's routes: per purpose, and `default` for the purposes not named. */
const ChannelRoutes = section(
  {
    otp: Type.Optional(ACCOUNTS),
    transactional: Type.Optional(ACCOUNTS),
    conversational: Type.Optional(ACCOUNTS),
    marketing: Type.Optional(ACCOUNTS),
    alert: Type.Optional(ACCOUNTS),
    default: Type.Optional(ACCOUNTS),
  },
  { description: 'Per purpose (otp, transactional, conversational, marketing, alert), and default for every purpose not named.' },
);

/** One tenant's own routes, per channel. */
const TenantRoutes = section({ email: Type.Optional(ChannelRoutes), sms: Type.Optional(ChannelRoutes), push: Type.Optional(ChannelRoutes) } satisfies Record<
  Channel,
  unknown
>);

/** The `routes:` section's shape and defaults. */
export const RoutesSection = section(
  {
    email: Type.Optional(ChannelRoutes),
    sms: Type.Optional(ChannelRoutes),
    push: Type.Optional(ChannelRoutes),
    tenants: byId(TenantRoutes, "Per tenant id: routes of its own, before the channel's. Every account named must be assigned to the tenant."),
    order: withDefault(
      Type.Unsafe<Partial<Record<Purpose, RouteOrder>>>({
        type: 'object',
        propertyNames: { enum: [...PURPOSES] },
        additionalProperties: { enum: [...ROUTE_ORDERS] },
        description:
          'Per purpose, how a route orders its healthy accounts: fixed (as configured) or latency (the fastest recent intake → delivered time first). Default {otp: latency}; other purposes fixed.',
      }),
      { otp: 'latency' },
    ),
    demotion: withDefault(
      section(
        {
          slow_ratio: withDefault(FIGURES.slow_ratio, DEFAULT_DEMOTION_POLICY.slowRatio),
          window_s: withDefault(FIGURES.window_s, DEFAULT_DEMOTION_POLICY.windowMs / 1000),
          slow_after_s: withDefault(FIGURES.slow_after_s, DEFAULT_DEMOTION_POLICY.slowAfterMs / 1000),
          min_accepted: withDefault(FIGURES.min_accepted, DEFAULT_DEMOTION_POLICY.minAccepted),
          paused_longer_than_s: withDefault(FIGURES.paused_longer_than_s, DEFAULT_DEMOTION_POLICY.pausedLongerThanMs / 1000),
          cool_down_s: withDefault(FIGURES.cool_down_s, DEFAULT_DEMOTION_POLICY.coolDownMs / 1000),
          evaluate_every_s: withDefault(Type.Integer({ minimum: 1, maximum: 3600, description: 'How often every process evaluates the routes.' }), 60),
          email: Type.Optional(DemotionByPurpose),
          sms: Type.Optional(DemotionByPurpose),
          push: Type.Optional(DemotionByPurpose),
        },
        {
          description:
            "When an account of a route is demoted (GOV.UK Notify's rule: 15 % of 15 minutes slower than 5 minutes, 5 minutes between changes), or over its retry budget, or paused by throttling. A channel may set its own figures per purpose (routes.demotion.sms.otp) and for every other purpose (routes.demotion.sms.default).",
        },
      ),
      {},
    ),
    on_ambiguity: withDefault(
      oneOf(['stay', 'follow_policy'], {
        description:
          "After an unknown: stay on the account (stay), or move as the account's ambiguity policy for the purpose allows, i.e. only under accept_duplicate, recorded (follow_policy).",
      }),
      'follow_policy',
    ),
  },
  {
    description:
      'Routes and failover within a channel (docs/routing.md): per channel and purpose the ordered accounts a delivery may use. Without a route a channel uses its first account (a one-account route); a notification that pins an account (provider_accounts) stays on it.',
  },
);

/** The resolved `routes:` section: what intake, the worker and the evaluator read. */
export interface RoutesConfig {
  routes: Route[];
  /** The section's figures: a route's unless its channel and purpose set their own (`demotionOverrides`, read through `demotionPolicyFor`). */
  demotion: DemotionPolicy;
  demotionOverrides: DemotionOverride[];
  evaluateEveryMs: number;
  /** Whether an `unknown` may move at all (only ever under `accept_duplicate`). */
  failoverAfterUnknown: boolean;
}

/** The settled section as the routes the domain reads. */
export function routesPolicy(r: Settled<typeof RoutesSection>): RoutesConfig {
  const routes: Route[] = [];
  const orderOf = (p: Purpose | 'default'): RouteOrder => (p === 'default' ? 'fixed' : (r.order[p] ?? 'fixed'));
  const add = (tenantId: string, channel: Channel, c: Partial<Record<Purpose | 'default', string[] | null>> | null | undefined) => {
    if (!c) return;
    for (const p of [...PURPOSES, 'default'] as const) {
      const accounts = c[p];
      if (accounts) routes.push({ tenantId, channel, purpose: p, accounts: [...accounts], order: orderOf(p) });
    }
  };
  for (const [tenantId, t] of Object.entries(r.tenants)) for (const channel of CHANNELS) add(tenantId, channel, t[channel]);
  for (const channel of CHANNELS) add(EVERY_TENANT, channel, r[channel]);
  const d = r.demotion;
  return {
    routes,
    demotion: {
      slowRatio: d.slow_ratio,
      windowMs: d.window_s * 1000,
      slowAfterMs: d.slow_after_s * 1000,
      minAccepted: d.min_accepted,
      pausedLongerThanMs: d.paused_longer_than_s * 1000,
      coolDownMs: d.cool_down_s * 1000,
      budget: DEFAULT_RETRY_BUDGET,
    },
    demotionOverrides: CHANNELS.flatMap((channel) => overridesOf(channel, d[channel])),
    evaluateEveryMs: d.evaluate_every_s * 1000,
    failoverAfterUnknown: r.on_ambiguity === 'follow_policy',
  };
}

/** A channel's `routes.demotion.<channel>` as the domain's overrides, one per purpose (or `default`) it names. */
function overridesOf(channel: Channel, c: Settled<typeof DemotionByPurpose> | null): DemotionOverride[] {
  if (!c) return [];
  return (['default', ...PURPOSES] as const).flatMap((purpose) => {
    const o = c[purpose];
    if (!o) return [];
    const figures: Partial<DemotionFigures> = {};
    if (o.slow_ratio !== null) figures.slowRatio = o.slow_ratio;
    if (o.window_s !== null) figures.windowMs = o.window_s * 1000;
    if (o.slow_after_s !== null) figures.slowAfterMs = o.slow_after_s * 1000;
    if (o.min_accepted !== null) figures.minAccepted = o.min_accepted;
    if (o.paused_longer_than_s !== null) figures.pausedLongerThanMs = o.paused_longer_than_s * 1000;
    if (o.cool_down_s !== null) figures.coolDownMs = o.cool_down_s * 1000;
    return [{ channel, purpose, figures }];
  });
}

function fieldOf(r: Route, i: number): string {
  return r.tenantId === EVERY_TENANT ? `routes.${r.channel}.${r.purpose}[${i}]` : `routes.tenants.${r.tenantId}.${r.channel}.${r.purpose}[${i}]`;
}

/** What the schema cannot check: every account a route names exists and sends the route's channel. */
export function checkRoutes(cfg: RoutesConfig, accounts: readonly ProviderAccountConfig[]): Array<{ field: string; message: string }> {
  const byId = new Map(accounts.map((a) => [a.id, a] as const));
  const problems: Array<{ field: string; message: string }> = [];
  for (const r of cfg.routes) {
    r.accounts.forEach((id, i) => {
      const a = byId.get(id);
      if (!a) problems.push({ field: fieldOf(r, i), message: `names ${id}, which is not a provider account` });
      else if (a.channel !== r.channel) problems.push({ field: fieldOf(r, i), message: `names ${id}, which sends ${a.channel}, not ${r.channel}` });
    });
  }
  return problems;
}

/**
 * The accounts a tenant's own routes name that the tenant may not use (`may`, from its
 * assignments in the database): the configuration is refused at startup with these.
 */
export function routeAssignmentProblems(cfg: RoutesConfig, may: (tenantId: string, account: string) => boolean): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  for (const r of cfg.routes) {
    if (r.tenantId === EVERY_TENANT) continue;
    r.accounts.forEach((id, i) => {
      if (!may(r.tenantId, id)) problems.push({ field: fieldOf(r, i), message: `names ${id}, which is not assigned to tenant ${r.tenantId}` });
    });
  }
  return problems;
}
