/**
 * The log canary (issue 18): a mixed workload with distinctive destinations, codes, content,
 * API keys, device tokens, session tokens and secrets, logged by Herald's own logger
 * (src/runtime/logger.ts, its redaction) at level trace into memory, request logs included;
 * then every log line and every line of GET /metrics is searched for each canary. The workload:
 * intake (single and batch), sends through the sandbox with its signed callbacks, the device
 * API with the phone simulator, templates (save, preview, send), customer webhooks, dashboard
 * sign-in (API key, user and password, a wrong password), suppressions, recipient profiles and
 * a one-click unsubscribe link (its token travels in the URL).
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hashPassword } from '../../src/http/passwords.js';
import { UnsubscribeLinks } from '../../src/preferences/unsubscribe-links.js';
import { createLogger } from '../../src/runtime/logger.js';
import { gatewayAccount, PHONE_TOKEN, phoneFor } from '../devices/gateway-harness.js';
import { createHarness, DRIVERS, T0, type Harness } from '../helpers/harness.js';

const CANARY = {
  phone: '+14155557391',
  phoneDigits: '4155557391',
  otherPhone: '+442079460813',
  email: 'canary.person.7g3k@example.org',
  code: '918273645',
  subject: 'Subject-canary-q8w7',
  html: 'html-canary-z1x2',
  templateText: 'tmpl-canary-51ab',
  templateData: 'data-canary-77cd',
  password: 'password-canary-Vb6n!x',
  wrongPassword: 'wrong-canary-Pz3m!y',
  metricsToken: 'metrics-canary-token-Hj2k',
  pushToken: 'push-canary-token-Qm4r',
};

describe.each(DRIVERS)('log canary (%s)', (driver) => {
  let h: Harness | null = null;
  let sim: ReturnType<typeof phoneFor> | null = null;
  afterEach(async () => {
    await sim?.close();
    await h?.close();
    h = null;
    sim = null;
  });

  it('no log line and no metric line contains a destination, code, content, key, token or secret', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const logger = createLogger('trace', sink);
    h = await createHarness({
      driver,
      logger,
      callbacks: true,
      account: (a) => gatewayAccount(a),
      devices: { keepalive_seconds: 1 },
      metrics: { token: CANARY.metricsToken, cacheMs: 0 },
      webhookAllowNetworks: ['127.0.0.0/8'],
    });
    const harness = h;
    const secrets: string[] = [harness.apiKey, PHONE_TOKEN];
    for (const a of harness.config.provider_accounts) secrets.push(...(a.callback_secrets ?? []));
    const auth = { authorization: `Bearer ${harness.apiKey}` };
    const call = async (method: 'POST' | 'PUT' | 'GET' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = auth) => {
      const r = await harness.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
      // JSON answers are read; the unsubscribe pages are HTML.
      const json = /json/.test(String(r.headers['content-type'])) && r.body ? JSON.parse(r.body) : null;
      return { status: r.statusCode, json, headers: r.headers };
    };

    // A phone, through the device API (registration returns its token, login and password).
    sim = phoneFor(harness);
    await sim.start();
    secrets.push(sim.registration!.token, ...(sim.registration!.password ? [sim.registration!.password] : []));

    // Intake: an e-mail through the sandbox, an OTP over the phone, a batch, a template.
    const email = await call('POST', '/v1/notifications', {
      recipient: { id: 'canary-user', email: CANARY.email, phone: CANARY.phone },
      purpose: 'transactional',
      channels: ['email'],
      content: { subject: CANARY.subject, text: `Your code is ${CANARY.code}`, html: `<p>${CANARY.html}</p>` },
    });
    expect(email.status).toBe(202);
    const otp = await call('POST', '/v1/notifications', {
      recipient: { id: 'canary-user', phone: CANARY.phone },
      purpose: 'otp',
      channels: ['sms'],
      content: { text: `Your code is ${CANARY.code}` },
      ttl_seconds: 600,
    });
    expect(otp.status).toBe(202);
    const batch = await call('POST', '/v1/notifications/batch', {
      items: [
        {
          recipient: { id: 'canary-2', phone: CANARY.otherPhone },
          purpose: 'otp',
          channels: ['sms'],
          content: { text: `Code ${CANARY.code}` },
          ttl_seconds: 600,
        },
      ],
    });
    expect(batch.status).toBeLessThan(300);
    // Refusals that echo nothing back either: a bad phone and a bad e-mail.
    expect(
      (
        await call('POST', '/v1/notifications', {
          recipient: { id: 'x', phone: `${CANARY.phone}99999` },
          purpose: 'otp',
          channels: ['sms'],
          content: { text: CANARY.code },
        })
      ).status,
    ).toBe(400);
    const tpl = await call('POST', '/v1/templates', {
      id: 'canary',
      name: 'Canary',
      default_locale: 'en',
      version: { locales: { en: { email: { subject: 'Hi', text: `${CANARY.templateText} {{ secret }}` } } }, publish: true },
    });
    expect(tpl.status).toBe(201);
    expect((await call('POST', '/v1/templates/canary/versions/1/preview', { data: { secret: CANARY.templateData } })).status).toBe(200);
    const templated = await call('POST', '/v1/notifications', {
      recipient: { id: 'canary-3', email: CANARY.email },
      purpose: 'transactional',
      channels: ['email'],
      template: { id: 'canary', data: { secret: CANARY.templateData } },
    });
    expect(templated.status).toBe(202);
    // A broken template render and a broken Liquid version: their errors must not quote data.
    expect(
      (await call('POST', '/v1/templates/canary/versions', { locales: { en: { email: { subject: 'x', text: `{{ ${CANARY.templateText} | nope }}` } } } }))
        .status,
    ).toBe(422);

    // Recipient profile, push subscription, suppression: destinations in bodies.
    expect((await call('PUT', '/v1/recipients/canary-4', { email: CANARY.email, phone: CANARY.phone })).status).toBeLessThan(300);
    expect((await call('PUT', '/v1/recipients/canary-4/push-subscriptions/sub-1', { type: 'fcm', token: CANARY.pushToken })).status).toBeLessThan(500);
    expect((await call('POST', '/v1/suppressions', { channel: 'email', destination: CANARY.email })).status).toBeLessThan(300);
    expect((await call('DELETE', '/v1/suppressions', { channel: 'email', destination: CANARY.email })).status).toBeLessThan(300);

    // Customer webhook: its secret is shown once.
    const hook = await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/canary', event_types: ['delivery.accepted'] });
    expect(hook.status).toBe(201);
    secrets.push(hook.json.secret);

    // Dashboard sign-in: by API key, by user and password, and a wrong password.
    await harness.store.sessions.createUser({
      id: 'usr_canary',
      tenantId: harness.tenantId,
      username: 'canary-op',
      passwordHash: await hashPassword(CANARY.password),
      role: 'admin',
      now: T0,
    });
    const byKey = await call('POST', '/v1/session', { api_key: harness.apiKey }, {});
    expect(byKey.status).toBe(201);
    const byUser = await call('POST', '/v1/session', { username: 'canary-op', password: CANARY.password }, {});
    expect(byUser.status).toBe(201);
    expect((await call('POST', '/v1/session', { username: 'canary-op', password: CANARY.wrongPassword }, {})).status).toBe(401);
    for (const s of [byKey, byUser]) {
      secrets.push(/herald_session=([^;]+)/.exec(String(s.headers['set-cookie']))![1]!, s.json.csrf_token);
    }

    // A one-click unsubscribe link: its token is a credential in the URL (GET the page, POST it).
    const link = await new UnsubscribeLinks({ store: harness.store, clock: harness.clock, publicUrl: 'http://herald.test' }).url({
      tenantId: harness.tenantId,
      recipientId: 'canary-user',
      channel: 'email',
      purpose: 'marketing',
    });
    const token = link.split('/').pop()!;
    secrets.push(token);
    expect((await call('GET', `/v1/unsubscribe/${token}`, undefined, {})).status).toBe(200);
    expect((await call('POST', `/v1/unsubscribe/${token}`, undefined, {})).status).toBe(200);
    expect((await call('GET', `/v1/unsubscribe/${token}x`, undefined, {})).status).toBe(404);

    // Sends: the sandbox's e-mail with its signed callbacks, the phone's SMS with its reports.
    for (let i = 0; i < 3; i++) {
      await harness.worker.runOnce('sandbox-email');
      await harness.worker.runOnce('sandbox-sms');
    }
    await vi.waitFor(
      async () => {
        await sim!.idle();
        await harness.devices!.reports.runOnce();
        await harness.evidence.runOnce();
        const sms = await call('GET', `/v1/notifications/${otp.json.id}`);
        expect(sms.json.deliveries[0].downstream_status).toBe('delivered');
        const mail = await call('GET', `/v1/notifications/${email.json.id}`);
        expect(mail.json.deliveries[0].downstream_status).not.toBe('accepted');
      },
      { timeout: 15_000, interval: 100 },
    );
    await harness.sweeper.runOnce();
    await harness.reconciler.runOnce();

    // A callback with a wrong signature, and the metrics scrape with its token.
    expect((await call('POST', '/v1/callbacks/sandbox-email', { data: { to: CANARY.email } }, { 'webhook-signature': `v1,${CANARY.code}` })).status).toBe(401);
    const metrics = await harness.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${CANARY.metricsToken}` } });
    expect(metrics.statusCode).toBe(200);
    secrets.push(CANARY.metricsToken);

    expect(lines.length, 'the workload logged (request logs at least)').toBeGreaterThan(50);
    const canaries = [...Object.values(CANARY).filter((c) => c !== CANARY.metricsToken), ...secrets];
    const leaksIn = (where: string, found: string[]) =>
      found.flatMap((line) => canaries.filter((c) => line.includes(c)).map((c) => `${where}: ${c} in ${line.slice(0, 300)}`));
    // The search finds what it looks for (a line as a careless log call would write it).
    expect(leaksIn('log', [JSON.stringify({ msg: 'sent', to: CANARY.phone, key: harness.apiKey })]).length).toBeGreaterThanOrEqual(2);
    expect([...leaksIn('log', lines), ...leaksIn('metrics', metrics.body.split('\n'))]).toEqual([]);
  }, 60_000);
});
