/**
 * A whole Herald for fuzzing (both drivers): the harness with its sandbox accounts signing
 * callbacks, the SMS account an Android gateway (so the device API and the SMSGate third-party
 * API are registered), the dashboard on a tiny built web root, /metrics; plus the credentials
 * and real ids the generated requests use, and a check of each answer.
 */
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERROR_CODES } from '../../src/errors.js';
import { signWebhook } from '../../src/signing/standard-webhooks.js';
import { gatewayAccount, PHONE_TOKEN } from '../devices/gateway-harness.js';
import { createHarness, otpBody, type Driver, type Harness } from '../helpers/harness.js';
import type { FuzzContext, FuzzRequest } from './request-arbitrary.js';

/** A file beside the web root: no dashboard path may ever serve it. */
export const OUTSIDE_CANARY = 'canary-outside-web-root-5b8e1f';

export interface FuzzTarget {
  h: Harness;
  ctx: FuzzContext;
}

/** Starts the Herald under fuzz and makes the things its requests refer to. */
export async function startFuzzTarget(driver: Driver): Promise<FuzzTarget> {
  const web = mkdtempSync(join(tmpdir(), 'herald-fuzz-web-'));
  const webRoot = join(web, 'dist');
  mkdirSync(join(webRoot, 'assets'), { recursive: true });
  writeFileSync(join(webRoot, 'index.html'), '<!doctype html><title>Herald</title><script type="module" src="/dashboard/assets/app.js"></script>');
  writeFileSync(join(webRoot, 'assets', 'app.js'), 'export {};');
  writeFileSync(join(web, 'secret.txt'), OUTSIDE_CANARY);
  const h = await createHarness({
    driver,
    callbacks: true,
    account: (a) => gatewayAccount(a),
    devices: { keepalive_seconds: 1 },
    webhookAllowNetworks: ['127.0.0.0/8'],
    dashboard: { webRoot },
    metrics: {},
  });
  const auth = { authorization: `Bearer ${h.apiKey}` };
  const json = async (method: 'POST' | 'PUT', url: string, body: unknown, headers: Record<string, string> = auth) => {
    const r = await h.app.inject({ method, url, headers, payload: body as object });
    if (r.statusCode >= 300) throw new Error(`setup ${method} ${url}: ${r.statusCode} ${r.body}`);
    return { json: r.json(), headers: r.headers };
  };
  const session = await json('POST', '/v1/session', { api_key: h.apiKey }, {});
  const sessionCookie = /herald_session=([^;]+)/.exec(String(session.headers['set-cookie']))![1]!;
  const device = await json(
    'POST',
    `${h.devices!.basePath}/device`,
    { name: 'fuzz-phone', pushToken: null, simCards: [{ slotIndex: 0, simNumber: 1, phoneNumber: '+15550001234', carrierName: 'C', iccid: null }] },
    { authorization: `Bearer ${PHONE_TOKEN}` },
  );
  const email = await json('POST', '/v1/notifications', otpBody({ recipient: { id: 'user-1', email: 'ada@example.com' }, channels: ['email'] }));
  const note = await h.get(`/v1/notifications/${email.json.id}`);
  await json('POST', '/v1/templates', {
    id: 'welcome',
    name: 'Welcome',
    default_locale: 'en',
    version: { locales: { en: { sms: { text: 'Hi {{ name }}' }, email: { subject: 'Hi', text: 'Hi {{ name }}' } } }, publish: true },
  });
  const webhook = await json('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', event_types: ['delivery.accepted'] });
  await json('PUT', '/v1/recipients/user-1', { email: 'ada@example.com', phone: '+14155550123' });
  // The unsubscribe key is made on first use (server_secrets); make it now, so the fuzz's first
  // unsubscribe request, refused, does not count the install's one-time secret as its write.
  await h.app.inject({ method: 'GET', url: '/v1/unsubscribe/warm-up' });
  const ids = [
    email.json.id,
    note.json.deliveries[0].id,
    webhook.json.id,
    'user-1',
    'welcome',
    '1',
    'sandbox-email',
    'sandbox-sms',
    'sandbox-push',
    device.json.id,
    'web-1',
  ].filter((x): x is string => typeof x === 'string');
  const callbackSecrets = Object.fromEntries(h.config.provider_accounts.filter((a) => a.callback_secrets).map((a) => [a.id, a.callback_secrets!]));
  const ctx: FuzzContext = {
    apiKey: h.apiKey,
    sessionCookie,
    csrfToken: session.json.csrf_token,
    deviceToken: device.json.token,
    phoneToken: PHONE_TOKEN,
    ids,
    callbackSecrets,
    deviceBasePath: h.devices!.basePath,
    sign: (secrets, body) => ({ ...signWebhook(secrets, `evt_${body.length}_${Math.random().toString(36).slice(2)}`, h.clock.now(), body) }),
    seeds: seedBodies(),
  };
  return { h, ctx };
}

/** Hand-written valid bodies for the routes whose schema alone rarely yields an accepted request. */
function seedBodies(): Record<string, unknown[]> {
  const sms = otpBody({ recipient: { id: 'user-2', phone: '+14155550124' } });
  const email = {
    recipient: { id: 'user-3', email: 'bob@example.com' },
    purpose: 'transactional',
    channels: ['email'],
    content: { subject: 'Hello', text: 'Hi', html: '<p>Hi</p>' },
  };
  const templated = {
    recipient: { id: 'user-4', phone: '+14155550125' },
    purpose: 'otp',
    channels: ['sms'],
    template: { id: 'welcome', data: { name: 'Ada' } },
    ttl_seconds: 300,
  };
  return {
    'POST /v1/notifications': [sms, email, templated],
    'POST /v1/notifications/batch': [{ items: [sms, email] }, { items: [templated] }],
    'POST /v1/templates': [{ id: 'promo', name: 'Promo', default_locale: 'en', version: { locales: { en: { sms: { text: 'Sale {{ pct }}%' } } } } }],
    'POST /v1/templates/:id/versions': [{ locales: { en: { sms: { text: 'v2 {{ name }}' } } } }],
    'POST /v1/templates/:id/versions/:v/preview': [{ data: { name: 'Ada' }, locale: 'en' }],
    'POST /v1/webhooks': [{ url: 'http://127.0.0.1:9/other', event_types: ['delivery.terminal'] }],
    'PUT /v1/recipients/:id': [{ email: 'eve@example.com', phone: '+14155550199', locale: 'fr-FR' }],
    'PUT /v1/recipients/:id/preferences': [{ opt_outs: [{ channel: 'email', purpose: 'marketing' }] }],
    'POST /v1/suppressions': [{ channel: 'email', destination: 'gone@example.com' }],
    'DELETE /v1/suppressions': [{ channel: 'email', destination: 'gone@example.com' }],
    'POST /v1/session': [{ api_key: 'hk_not_a_key' }, { username: 'nobody', password: 'wrong-password' }],
    'POST /v1/notifications/:id/reports': [{ kind: 'not_received', channel: 'email' }],
    'POST /3rdparty/v1/message': [{ phoneNumbers: ['+14155550126'], textMessage: { text: 'Hello' } }],
    'POST /3rdparty/v1/messages': [{ phoneNumbers: ['+14155550127'], textMessage: { text: 'Hello' } }],
    'POST /v1/callbacks/:providerAccountId': [
      {
        type: 'message.delivered',
        timestamp: '2026-11-29T12:00:00.000Z',
        data: { event_id: 'e1', provider_message_id: 'p1', reference: 'r1', channel: 'email', status: 'delivered' },
      },
    ],
    'POST /mobile/v1/device': [{ name: 'other-phone', pushToken: null, simCards: [] }],
    'PATCH /mobile/v1/message': [[{ id: 'm1', state: 'Sent', recipients: [{ phoneNumber: '+14155550123', state: 'Sent' }] }]],
  };
}

/** What is wrong with an answer (null: nothing). Refusals must be problem documents with a registered code, or the device API's `{message}`. */
export function answerProblem(
  req: FuzzRequest,
  res: { statusCode: number; headers: Record<string, string | string[] | number | undefined>; body: string },
  deviceBasePath: string,
): string | null {
  if (res.statusCode >= 500) return `status ${res.statusCode}: ${res.body.slice(0, 500)}`;
  if (res.body.includes(OUTSIDE_CANARY)) return 'served a file outside the web root';
  if (res.statusCode < 400 || req.method === 'HEAD') return null;
  const type = String(res.headers['content-type'] ?? '');
  let body: any;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `refusal ${res.statusCode} is not JSON (${type}): ${res.body.slice(0, 200)}`;
  }
  // The device API and the SMSGate-compatible API answer as SMSGate's server does: `{message}`.
  // (A URL that does not reach their routes, such as `..` or a broken encoding, is refused by
  // the app's router with a problem document, which is checked as any other.)
  const smsgate = req.route.startsWith(`${deviceBasePath}/`) || req.route.startsWith('/3rdparty/');
  if (smsgate && !type.startsWith('application/problem+json')) {
    return type.startsWith('application/json') && typeof body?.message === 'string'
      ? null
      : `SMSGate-shaped refusal is not {message}: ${res.body.slice(0, 200)}`;
  }
  if (!type.startsWith('application/problem+json')) return `refusal ${res.statusCode} has content-type ${type}`;
  if (!(body?.code in ERROR_CODES)) return `refusal code ${String(body?.code)} is not registered`;
  const registered = ERROR_CODES[body.code as keyof typeof ERROR_CODES].status;
  if (body.status !== res.statusCode || registered !== res.statusCode)
    return `code ${body.code} answered ${res.statusCode}, document says ${body.status}, registry ${registered}`;
  return null;
}
