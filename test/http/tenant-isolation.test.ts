/**
 * The tenant-isolation suite, generated from the app's own route table (`app.routeTable`, filled
 * by buildApp's onRoute hook): for every route with a path parameter, tenant B's key on tenant
 * A's ids answers 404, never 403 or 200, on both drivers. A (the default tenant) owns one of
 * everything, and for the GET routes A's own key must find it (a 404 from a bogus id proves
 * nothing). A new route with a parameter fails this test until it gets a fixture here or an
 * exemption with its reason.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DRIVERS, type Harness } from '../helpers/harness.js';
import { gatewayHarness, messageIdOf, PHONE_TOKEN, sendSms } from '../devices/gateway-harness.js';

/** A's ids, as the seed made them. */
interface Ids {
  notification: string;
  delivery: string;
  campaign: string;
  audience: string;
  webhook: string;
  device: string;
  message: string;
  key: string;
  thirdParty: string;
}

interface Fixture {
  url: (ids: Ids) => string;
  body?: unknown;
}

const RECIPIENT = 'user-a';

/** Every route with a path parameter, and how to call it on A's ids. */
const FIXTURES: Record<string, Fixture> = {
  'GET /v1/notifications/:id': { url: (i) => `/v1/notifications/${i.notification}` },
  'POST /v1/notifications/:id/resend': { url: (i) => `/v1/notifications/${i.notification}/resend`, body: {} },
  'POST /v1/notifications/:id/reports': { url: (i) => `/v1/notifications/${i.notification}/reports`, body: { kind: 'not_received' } },
  'GET /v1/deliveries/:id': { url: (i) => `/v1/deliveries/${i.delivery}` },
  'POST /v1/deliveries/:id/retry': { url: (i) => `/v1/deliveries/${i.delivery}/retry`, body: { accept_duplicate_risk: true } },
  'POST /v1/deliveries/:id/cancel': { url: (i) => `/v1/deliveries/${i.delivery}/cancel`, body: {} },
  'GET /v1/campaigns/:id': { url: (i) => `/v1/campaigns/${i.campaign}` },
  'GET /v1/campaigns/:id/refusals': { url: (i) => `/v1/campaigns/${i.campaign}/refusals` },
  'POST /v1/campaigns/:id/start': { url: (i) => `/v1/campaigns/${i.campaign}/start` },
  'POST /v1/campaigns/:id/pause': { url: (i) => `/v1/campaigns/${i.campaign}/pause` },
  'POST /v1/campaigns/:id/resume': { url: (i) => `/v1/campaigns/${i.campaign}/resume` },
  'POST /v1/campaigns/:id/cancel': { url: (i) => `/v1/campaigns/${i.campaign}/cancel` },
  'GET /v1/audiences/:id': { url: (i) => `/v1/audiences/${i.audience}` },
  'GET /v1/recipients/:id': { url: () => `/v1/recipients/${RECIPIENT}` },
  'GET /v1/webhooks/:id': { url: (i) => `/v1/webhooks/${i.webhook}` },
  'DELETE /v1/webhooks/:id': { url: (i) => `/v1/webhooks/${i.webhook}` },
  'POST /v1/webhooks/:id/rotate-secret': { url: (i) => `/v1/webhooks/${i.webhook}/rotate-secret`, body: {} },
  'POST /v1/webhooks/:id/enable': { url: (i) => `/v1/webhooks/${i.webhook}/enable`, body: {} },
  'GET /v1/templates/:id': { url: () => '/v1/templates/welcome' },
  'POST /v1/templates/:id/versions': { url: () => '/v1/templates/welcome/versions', body: { locales: { en: { sms: { text: 'Hi' } } } } },
  'GET /v1/templates/:id/versions/:v': { url: () => '/v1/templates/welcome/versions/1' },
  'POST /v1/templates/:id/versions/:v/publish': { url: () => '/v1/templates/welcome/versions/1/publish', body: {} },
  'POST /v1/templates/:id/versions/:v/preview': { url: () => '/v1/templates/welcome/versions/1/preview', body: { data: {} } },
  'GET /v1/provider-accounts/:id/rollout': { url: () => '/v1/provider-accounts/sandbox-email/rollout' },
  'GET /v1/devices/:id': { url: (i) => `/v1/devices/${i.device}` },
  'GET /v1/devices/:id/messages': { url: (i) => `/v1/devices/${i.device}/messages` },
  'GET /v1/devices/:id/sweeps': { url: (i) => `/v1/devices/${i.device}/sweeps` },
  'POST /v1/devices/:id/retry-failed': { url: (i) => `/v1/devices/${i.device}/retry-failed`, body: {} },
  'GET /v1/devices/:id/messages/:messageId': { url: (i) => `/v1/devices/${i.device}/messages/${i.message}` },
  'POST /v1/devices/:id/messages/:messageId/retry': { url: (i) => `/v1/devices/${i.device}/messages/${i.message}/retry`, body: {} },
  'GET /v1/keys/:id': { url: (i) => `/v1/keys/${i.key}` },
  'DELETE /v1/keys/:id': { url: (i) => `/v1/keys/${i.key}` },
  'POST /v1/keys/:id/rotate': { url: (i) => `/v1/keys/${i.key}/rotate` },
  'GET /3rdparty/v1/message/:id': { url: (i) => `/3rdparty/v1/message/${i.thirdParty}` },
  'GET /3rdparty/v1/messages/:id': { url: (i) => `/3rdparty/v1/messages/${i.thirdParty}` },
};

/**
 * Routes with a path parameter that are not "B's key on A's id → 404", and why. Those marked
 * checked are exercised below in their own way.
 */
const EXEMPT: Record<string, string> = {
  'POST /v1/callbacks/:providerAccountId': 'provider callbacks carry no API key: verified by the account’s own signature',
  'POST /v1/callbacks/:providerAccountId/inbound':
    'incoming messages carry no API key: verified by the account’s own signature; the tenant is chosen from the account (test/providers/twilio/inbound.e2e.test.ts covers a shared account)',
  'POST {devices.base_path}/webhooks/:deviceId/:token':
    'a phone’s own webhooks carry no API key: the device id, its path token and its signing key name the device, whose tenant is its account’s (test/devices/phone-webhooks.test.ts refuses another device’s path and key)',
  'GET /v1/unsubscribe/:token': 'no API key: the signed token names its tenant, and a token is not an id another tenant could try',
  'POST /v1/unsubscribe/:token': 'no API key: the signed token names its tenant',
  'GET /dashboard/*': 'static assets, the same for everyone',
  'PUT /v1/recipients/:id': 'checked: an upsert by an id the tenant chooses; B writes its own recipient of that name and A’s is unchanged',
  'PUT /v1/recipients/:id/preferences': 'checked: an upsert under B’s own recipient of that name; A’s opt-outs are unchanged',
  'GET /v1/recipients/:id/preferences': 'checked: answers an empty list for any recipient never seen; B sees none of A’s opt-outs',
  'GET /v1/recipients/:id/push-subscriptions': 'checked: answers an empty list for any recipient never seen; B sees none of A’s subscriptions',
  'PUT /v1/recipients/:id/push-subscriptions/:subscriptionId': 'checked: an upsert under B’s own recipient; A’s subscription is unchanged',
  'DELETE /v1/recipients/:id/push-subscriptions/:subscriptionId': 'checked: B has no such subscription (404) and A’s stays',
  'DELETE /v1/recipients/:id': 'checked: erasure is idempotent (nothing of B’s to erase: zero counts); A’s notification keeps its content',
  'GET /v1/tenants/:id': 'operator routes: a tenant key lacks the tenants scope (403 scope_required, test/http/tenants-api.test.ts)',
  'PUT /v1/tenants/:id/provider-accounts/:accountId': 'operator routes: a tenant key lacks the tenants scope',
  'DELETE /v1/tenants/:id/provider-accounts/:accountId': 'operator routes: a tenant key lacks the tenants scope',
};

const hasParam = (url: string) => url.includes(':') || url.includes('*');

describe.each(DRIVERS)('tenant isolation on %s', (driver) => {
  let h: Harness;
  let keyB: string;
  let ids: Ids;

  const call = async (key: string, method: string, url: string, body?: unknown, basic = false) => {
    const authorization = basic ? `Basic ${Buffer.from(`login:${key}`).toString('base64')}` : `Bearer ${key}`;
    const r = await h.app.inject({ method: method as 'GET', url, headers: { authorization }, ...(body === undefined ? {} : { payload: body as object }) });
    return { status: r.statusCode, json: r.body ? r.json() : null, text: r.body };
  };

  beforeEach(async () => {
    h = await gatewayHarness(driver, { webhookAllowNetworks: ['127.0.0.0/8'], metrics: {} });
    // A (the default tenant) is given every account explicitly, so B has none.
    for (const a of h.config.provider_accounts) await h.store.tenants.assignAccount(h.tenantId, a.id, h.clock.now());
    const created = await call(h.apiKey, 'POST', '/v1/tenants', { id: 'tenant-b', name: 'B' });
    expect(created.status, created.text).toBe(201);
    keyB = created.json.key.key;

    const a = h.apiKey;
    const reg = await h.app.inject({
      method: 'POST',
      url: '/mobile/v1/device',
      headers: { authorization: `Bearer ${PHONE_TOKEN}` },
      payload: { name: 'pixel' },
    });
    expect(reg.statusCode, reg.body).toBe(201);
    const notification = await sendSms(h, { recipient: { id: RECIPIENT, phone: '+14155550123' } });
    await h.worker.drain();
    const message = await messageIdOf(h, notification);
    const delivery = (await h.get(`/v1/notifications/${notification}`)).json.deliveries[0].id as string;
    expect((await call(a, 'PUT', `/v1/recipients/${RECIPIENT}`, { email: 'a@example.com' })).status).toBeLessThan(300);
    expect((await call(a, 'PUT', `/v1/recipients/${RECIPIENT}/preferences`, { opt_outs: [{ purpose: 'marketing' }] })).status).toBeLessThan(300);
    const sub = await call(a, 'PUT', `/v1/recipients/${RECIPIENT}/push-subscriptions/phone`, { type: 'fcm', token: 'fcm-token-a' });
    expect(sub.status, sub.text).toBeLessThan(300);
    const webhook = await call(a, 'POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', event_types: ['notification.created'] });
    expect(webhook.status, webhook.text).toBe(201);
    const template = await call(a, 'POST', '/v1/templates', {
      id: 'welcome',
      name: 'Welcome',
      default_locale: 'en',
      version: { locales: { en: { sms: { text: 'Hi' } } } },
    });
    expect(template.status, template.text).toBe(201);
    const upload = await h.app.inject({
      method: 'POST',
      url: '/v1/audiences',
      headers: { authorization: `Bearer ${a}`, 'content-type': 'application/x-ndjson' },
      payload: '{"id":"r1","email":"r1@example.com"}\n',
    });
    expect(upload.statusCode, upload.body).toBeLessThan(300);
    const audience = { json: upload.json<{ id: string }>() };
    const campaign = await call(a, 'POST', '/v1/campaigns', {
      channel: 'email',
      purpose: 'marketing',
      content: { subject: 'News', text: 'Hello' },
      deadline_at: new Date(h.clock.now() + 3_600_000).toISOString(),
      audience: { audience_id: audience.json.id },
    });
    expect(campaign.status, campaign.text).toBe(201);
    const third = await call(a, 'POST', '/3rdparty/v1/message', { id: 'msg-a-1', message: 'hello', phoneNumbers: ['+14155550124'] }, true);
    expect(third.status, third.text).toBeLessThan(300);
    const device = (await call(a, 'GET', '/v1/devices')).json.items[0].id as string;
    const key = (await call(a, 'GET', '/v1/keys')).json.items[0].id as string;
    ids = {
      notification,
      delivery,
      campaign: campaign.json.id,
      audience: audience.json.id,
      webhook: webhook.json.id,
      device,
      message,
      key,
      thirdParty: 'msg-a-1',
    };
  });
  afterEach(() => h.close());

  it('covers every route with a path parameter: a fixture or an exemption with its reason', () => {
    const withParams = [...new Set(h.app.routeTable.filter((r) => r.method !== 'HEAD' && hasParam(r.url)).map((r) => r.key))];
    expect(withParams.length).toBeGreaterThan(40);
    const uncovered = withParams.filter((k) => !FIXTURES[k] && !EXEMPT[k]);
    expect(uncovered, 'routes with an id parameter need a fixture in FIXTURES or a reason in EXEMPT').toEqual([]);
    const stale = [...Object.keys(FIXTURES), ...Object.keys(EXEMPT)].filter((k) => !withParams.includes(k));
    expect(stale, 'fixtures for routes that no longer exist').toEqual([]);
  });

  it("B's key on A's ids is 404 on every route; A's own key finds each of them", async () => {
    const routes = [...new Set(h.app.routeTable.filter((r) => r.method !== 'HEAD' && FIXTURES[r.key]).map((r) => r.key))];
    // Reads first, mutations after, so A's positive checks see A's data as seeded.
    routes.sort((x, y) => Number(!x.startsWith('GET ')) - Number(!y.startsWith('GET ')));
    for (const route of routes) {
      const [method] = route.split(' ');
      const f = FIXTURES[route]!;
      const basic = route.includes('/3rdparty/');
      const b = await call(keyB, method!, f.url(ids), f.body, basic);
      expect(b.status, `${route} with B's key: ${b.text}`).toBe(404);
      if (!basic) expect(b.json?.code, route).toBe('not_found');
      if (method === 'GET') {
        const own = await call(h.apiKey, 'GET', f.url(ids), undefined, basic);
        expect(own.status, `${route} with A's key: ${own.text}`).toBe(200);
      }
    }
    // Nothing B tried changed A's things.
    expect((await call(h.apiKey, 'GET', `/v1/webhooks/${ids.webhook}`)).status).toBe(200);
    expect((await call(h.apiKey, 'GET', `/v1/keys/${ids.key}`)).json.revoked_at).toBeNull();
    expect((await call(h.apiKey, 'GET', `/v1/campaigns/${ids.campaign}`)).json.status).toBe('draft');
    expect((await call(h.apiKey, 'GET', '/v1/templates/welcome')).json.versions ?? []).not.toHaveLength(2);
  });

  it('the exempted recipient routes: B writes and erases only its own, and reads none of A’s', async () => {
    expect((await call(keyB, 'GET', `/v1/recipients/${RECIPIENT}/preferences`)).json.opt_outs).toEqual([]);
    expect((await call(keyB, 'GET', `/v1/recipients/${RECIPIENT}/push-subscriptions`)).json.items).toEqual([]);
    expect((await call(keyB, 'DELETE', `/v1/recipients/${RECIPIENT}/push-subscriptions/phone`)).status).toBe(404);
    expect((await call(keyB, 'PUT', `/v1/recipients/${RECIPIENT}`, { email: 'b@example.com' })).status).toBeLessThan(300);
    expect((await call(keyB, 'PUT', `/v1/recipients/${RECIPIENT}/preferences`, { opt_outs: [] })).status).toBeLessThan(300);
    expect((await call(keyB, 'PUT', `/v1/recipients/${RECIPIENT}/push-subscriptions/phone`, { type: 'fcm', token: 'fcm-token-b' })).status).toBeLessThan(300);
    const erased = await call(keyB, 'DELETE', `/v1/recipients/${RECIPIENT}`);
    expect(erased.status).toBe(200);
    expect(erased.json.notifications_erased).toBe(0);

    expect((await call(h.apiKey, 'GET', `/v1/recipients/${RECIPIENT}`)).json.email).toBe('a@example.com');
    expect((await call(h.apiKey, 'GET', `/v1/recipients/${RECIPIENT}/preferences`)).json.opt_outs).toHaveLength(1);
    const subs = (await call(h.apiKey, 'GET', `/v1/recipients/${RECIPIENT}/push-subscriptions`)).json.items;
    expect(subs.map((s: { id: string }) => s.id)).toEqual(['phone']);
    expect((await call(h.apiKey, 'GET', `/v1/notifications/${ids.notification}`)).json.content?.erased).toBeUndefined();
  });

  it("the lists show B none of A's things", async () => {
    for (const url of [
      '/v1/deliveries',
      '/v1/review',
      '/v1/webhooks',
      '/v1/templates',
      '/v1/devices',
      '/v1/suppressions',
      '/v1/keys',
      '/v1/audit',
      '/v1/provider-accounts',
    ]) {
      const r = await call(keyB, 'GET', url);
      expect(r.status, `${url}: ${r.text}`).toBe(200);
      const items = r.json.items as Array<{ id?: string }>;
      // B's only key is its own; B's audit trail is empty (tenant creation is on the operator's).
      if (url === '/v1/keys') expect(items.map((k) => k.id)).not.toContain(ids.key);
      else expect(items, url).toEqual([]);
    }
    const stats = await call(keyB, 'GET', '/v1/stats');
    expect(stats.status).toBe(200);
    expect(JSON.stringify(stats.json)).not.toContain(ids.notification);
    const devices3p = await call(keyB, 'GET', '/3rdparty/v1/devices', undefined, true);
    expect(devices3p.json).toEqual([]);
    // /metrics is the operator's (its own token): its series carry no tenant label and no message
    // or recipient ids (a phone's id is a label of the operator's device gauges, by design).
    const metrics = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).not.toMatch(/[{,]tenant[a-z_]*=/);
    for (const id of [ids.notification, ids.delivery, ids.campaign, RECIPIENT]) expect(metrics.body).not.toContain(id);
  });
});
