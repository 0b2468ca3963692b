/**
 * The one table of what every route needs (docs/tenants.md, "Scopes"): the API key scope a
 * /v1 or SMSGate-compatible route requires, or why a route takes no API key at all. `buildApp`
 * refuses to start with a route this table does not list, so a new route must declare its scope
 * here (test/http/route-scopes.test.ts builds the app with every optional part on).
 *
 * Keyed by method and Fastify's route pattern; HEAD shares its GET's entry. The device API's
 * routes live under the configurable `devices.base_path` and are written `{devices.base_path}/…`.
 */
import type { ApiKeyScope } from '../store/store.js';

/** A route outside API keys, and what guards it instead. */
export interface NoKey {
  none: string;
}

export type RouteRequirement = ApiKeyScope | NoKey;

const DEVICE_TOKEN: NoKey = { none: "the phone's own device token (device API)" };

/** Every route Herald serves. */
export const ROUTE_SCOPES: Readonly<Record<string, RouteRequirement>> = {
  'GET /healthz': { none: 'liveness probe, says nothing about any tenant' },
  'GET /openapi.json': { none: 'the public API description' },
  'GET /metrics': { none: 'its own bearer token (metrics.token); series carry no tenant label' },
  'POST /v1/callbacks/:providerAccountId': { none: "the provider account's own signature verification" },
  'POST /v1/callbacks/:providerAccountId/inbound': { none: "the provider account's own signature verification (Twilio's X-Twilio-Signature)" },
  'GET /v1/unsubscribe/:token': { none: 'the signed one-click unsubscribe token' },
  'POST /v1/unsubscribe/:token': { none: 'the signed one-click unsubscribe token' },
  'POST /v1/session': { none: 'sign-in: a password, or a key that has the dashboard scope (checked by the route)' },
  'GET /v1/session': { none: 'the session cookie' },
  'DELETE /v1/session': { none: 'the session cookie' },
  'GET /': { none: 'a redirect to the dashboard (/dashboard/); reads nothing' },
  'GET /dashboard': { none: 'static assets of the dashboard app' },
  'GET /dashboard/*': { none: 'static assets of the dashboard app' },

  // Sending.
  'POST /v1/notifications': 'send',
  'POST /v1/notifications/batch': 'send',
  'POST /v1/notifications/:id/reports': 'send',
  'POST /v1/campaigns': 'send',
  'POST /v1/campaigns/:id/start': 'send',
  'POST /v1/audiences': 'send',
  // A producer keeps its recipients in step as it sends.
  'PUT /v1/recipients/:id': 'send',
  'PUT /v1/recipients/:id/preferences': 'send',
  'PUT /v1/recipients/:id/push-subscriptions/:subscriptionId': 'send',
  'DELETE /v1/recipients/:id/push-subscriptions/:subscriptionId': 'send',

  // Reading.
  'GET /v1/notifications/:id': 'read',
  'GET /v1/deliveries': 'read',
  'GET /v1/deliveries/:id': 'read',
  'GET /v1/review': 'read',
  'GET /v1/stats': 'read',
  'GET /v1/provider-accounts': 'read',
  'GET /v1/provider-accounts/:id/rollout': 'read',
  'GET /v1/provider-accounts/recent-errors': 'read',
  'GET /v1/campaigns': 'read',
  'GET /v1/campaigns/:id/refusals': 'read',
  'GET /v1/limits': 'read',
  'GET /v1/scheduling': 'read',
  'GET /v1/campaigns/:id': 'read',
  'GET /v1/audiences/:id': 'read',
  'GET /v1/recipients/:id': 'read',
  'GET /v1/recipients/:id/preferences': 'read',
  'GET /v1/recipients/:id/push-subscriptions': 'read',
  'GET /v1/suppressions': 'read',
  'GET /v1/alerts': 'read',
  'GET /v1/alerts/active': 'read',
  'GET /v1/events/stream': 'read',
  'GET /v1/templates': 'read',
  'GET /v1/templates/:id': 'read',
  'GET /v1/templates/:id/versions/:v': 'read',
  'GET /v1/devices': 'read',
  'GET /v1/devices/:id': 'read',
  'GET /v1/devices/:id/messages': 'read',
  'GET /v1/devices/:id/messages/:messageId': 'read',
  'GET /v1/devices/:id/sweeps': 'read',

  // Operating: retry, replay, resend, cancel (the dashboard's operator role, session-auth.ts).
  'POST /v1/deliveries/:id/retry': 'operate',
  'POST /v1/deliveries/retry': 'operate',
  'POST /v1/deliveries/:id/cancel': 'operate',
  'POST /v1/deliveries/cancel': 'operate',
  'POST /v1/notifications/:id/resend': 'operate',
  'POST /v1/devices/:id/retry-failed': 'operate',
  'POST /v1/devices/:id/messages/:messageId/retry': 'operate',
  'POST /v1/campaigns/:id/pause': 'operate',
  'POST /v1/campaigns/:id/resume': 'operate',
  'POST /v1/campaigns/:id/cancel': 'operate',

  // Administering the tenant.
  'GET /v1/keys': 'admin',
  'POST /v1/keys': 'admin',
  'GET /v1/keys/:id': 'admin',
  'DELETE /v1/keys/:id': 'admin',
  'POST /v1/keys/:id/rotate': 'admin',
  'GET /v1/audit': 'admin',
  'POST /v1/webhooks': 'admin',
  'GET /v1/webhooks': 'admin',
  'GET /v1/webhooks/:id': 'admin',
  'DELETE /v1/webhooks/:id': 'admin',
  'POST /v1/webhooks/:id/rotate-secret': 'admin',
  'POST /v1/webhooks/:id/enable': 'admin',
  'POST /v1/templates': 'admin',
  'POST /v1/templates/:id/versions': 'admin',
  'POST /v1/templates/:id/versions/:v/publish': 'admin',
  'POST /v1/templates/:id/versions/:v/preview': 'admin',
  'POST /v1/suppressions': 'admin',
  'PUT /v1/scheduling': 'admin',
  'DELETE /v1/suppressions': 'admin',
  'DELETE /v1/recipients/:id': 'admin',
  // What retention and erasure requests erased (counts and recipient ids, never the data).
  'GET /v1/erasures': 'admin',

  // The operator's: tenants and which provider accounts each may use.
  'GET /v1/tenants': 'tenants',
  'POST /v1/tenants': 'tenants',
  'GET /v1/tenants/:id': 'tenants',
  'PUT /v1/tenants/:id/provider-accounts/:accountId': 'tenants',
  'DELETE /v1/tenants/:id/provider-accounts/:accountId': 'tenants',

  // SMSGate-compatible API (Basic credentials carrying a Herald key).
  'GET /3rdparty/v1/health': 'read',
  'GET /3rdparty/v1/devices': 'read',
  'POST /3rdparty/v1/message': 'send',
  'POST /3rdparty/v1/messages': 'send',
  'GET /3rdparty/v1/message/:id': 'read',
  'GET /3rdparty/v1/messages/:id': 'read',

  // The phones' own API.
  'POST {devices.base_path}/device': DEVICE_TOKEN,
  'GET {devices.base_path}/device': DEVICE_TOKEN,
  'PATCH {devices.base_path}/device': DEVICE_TOKEN,
  'GET {devices.base_path}/message': DEVICE_TOKEN,
  'PATCH {devices.base_path}/message': DEVICE_TOKEN,
  'GET {devices.base_path}/messages': DEVICE_TOKEN,
  'PATCH {devices.base_path}/messages': DEVICE_TOKEN,
  'GET {devices.base_path}/settings': DEVICE_TOKEN,
  'GET {devices.base_path}/webhooks': DEVICE_TOKEN,
  'GET {devices.base_path}/user/code': { none: 'the device registration code flow (its own credentials)' },
  'PATCH {devices.base_path}/user/password': DEVICE_TOKEN,
  'GET {devices.base_path}/events': DEVICE_TOKEN,
  'POST {devices.base_path}/webhooks/:deviceId/:token': {
    none: 'the phone-side webhooks: a per-device unguessable path and an HMAC signature with the device key (docs/phone-gateway.md)',
  },
};

/** The table's key of a route: its method (HEAD as GET) and pattern, the device API's base path written as a placeholder. */
export function routeKey(method: string, url: string, deviceBasePath: string | null = null): string {
  const m = method === 'HEAD' ? 'GET' : method;
  const path =
    deviceBasePath !== null && (url === deviceBasePath || url.startsWith(`${deviceBasePath}/`))
      ? `{devices.base_path}${url.slice(deviceBasePath.length)}`
      : url;
  return `${m} ${path}`;
}

/** What a route needs, or undefined for a route the table does not list. */
export function requirementOf(method: string, url: string, deviceBasePath: string | null = null): RouteRequirement | undefined {
  return ROUTE_SCOPES[routeKey(method, url, deviceBasePath)];
}
