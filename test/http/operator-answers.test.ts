/**
 * The answers of the operator's routes (review and replay, provider accounts, stats, campaigns,
 * phones) are serialized by their response schemas (src/http/operator-schemas.ts,
 * campaign-schemas.ts, response-schemas.ts): a field a schema forgets is dropped, a null listed
 * as a string is written "", a rate listed as an integer is truncated. The harness keeps each
 * answer as its route built it, before serialization (`recordAnswers`); every answer here must
 * come out whole: every field, every null, every fraction.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PhoneSim } from '../../src/devices/phone-sim.js';
import { EVERY_TENANT, type Route } from '../../src/domain/index.js';
import { createHarness, otpBody, type Harness, type HarnessOptions } from '../helpers/harness.js';
import { ACCOUNT, gatewayHarness, messageIdOf, MINUTE, phoneFor, sendSms, until } from '../devices/gateway-harness.js';

let h: Harness;
afterEach(() => h.close());

/** What JSON makes of a value (dates already strings, undefined dropped). */
const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

/** Asks `method url` and checks the answer is exactly what the route built; returns it. */
async function whole(method: 'GET' | 'POST', url: string, body?: unknown): Promise<any> {
  const before = h.answers.length;
  const r = method === 'GET' ? await h.get(url) : await h.post(url, body);
  expect(r.status, `${method} ${url}: ${JSON.stringify(r.json)}`).toBeLessThan(300);
  const built = h.answers.slice(before).find((a) => a.method === method && a.url === url);
  expect(built, `${method} ${url} recorded`).toBeDefined();
  expect(r.json).toEqual(asJson(built!.payload));
  return r.json;
}

const harness = (opts: HarnessOptions = {}) => createHarness({ ...opts, recordAnswers: true });

/** E-mail for marketing over two accounts, the second a copy of the first. */
const ROUTE: Route = { tenantId: EVERY_TENANT, channel: 'email', purpose: 'marketing', accounts: ['sandbox-email', 'email-backup'], order: 'fixed' };
const withRoute: HarnessOptions = {
  moreAccounts: (accounts) => [{ ...accounts.find((a) => a.id === 'sandbox-email')!, id: 'email-backup' }],
  routes: { routes: [ROUTE] },
};

/** The route's second account demoted a minute ago, as the route evaluator records it. */
async function demoteBackup(): Promise<void> {
  const change = {
    routeKey: '*/email/marketing',
    seq: 1,
    providerAccount: 'email-backup',
    action: 'demote' as const,
    reasons: ['slow_delivery' as const],
    figures: { account: 'email-backup', accepted: 20, slow: 5, calls: 20, failures: 0, pausedSince: null },
    decidedAt: h.clock.now() - MINUTE,
  };
  expect(await h.store.routes.recordChange(change)).toBe(true);
}

describe('answers serialized whole by their response schemas', () => {
  it('the review queue, a replay, a bulk replay (and its dry run), a resend', async () => {
    h = await harness();
    h.sandbox.faults.set({ mode: 'reject_permanent', count: 2 });
    const sent = [await h.send(otpBody()), await h.send(otpBody({ recipient: { id: 'user-2', phone: '+14155550124' } }))];
    await h.worker.drain();
    const review = await whole('GET', '/v1/review');
    expect(review.items.map((d: any) => [d.review_reason, d.provider_message_id, d.hold_reason])).toEqual([
      ['rejected', null, null],
      ['rejected', null, null],
    ]);
    await whole('GET', '/v1/review?limit=1');
    const one = await whole('POST', `/v1/deliveries/${review.items[0].id}/retry`, { note: 'fixed the number' });
    expect(one).toMatchObject({ state: 'ready', terminal_reason: null });
    const filter = { state: 'terminal', created_after: new Date(h.clock.now() - MINUTE).toISOString() };
    expect(await whole('POST', '/v1/deliveries/retry', { dry_run: true, filter })).toMatchObject({ dry_run: true, matched: 1, would_retry: 1 });
    expect(await whole('POST', '/v1/deliveries/retry', { filter })).toMatchObject({ matched: 1, scheduled: 1, refused: {} });
    expect(await whole('POST', `/v1/notifications/${sent[0]!.json.id}/resend`, {})).toMatchObject({ resend_of: sent[0]!.json.id });
  });

  it('the provider accounts, their recent errors and rollout summary, and the stats of both windows', async () => {
    h = await harness({ ...withRoute, account: (a) => ({ ...a, rate_per_second: 2.5, rollout: a.channel === 'email' ? 'shadow' : 'full' }) });
    await demoteBackup();
    h.sandbox.faults.set({ mode: 'server_error', count: 1 });
    await h.send(otpBody({ channels: ['sms', 'email'] }));
    await h.worker.drain();
    const list = await whole('GET', '/v1/provider-accounts');
    expect(list.items[0].rate_per_second).toBe(2.5);
    expect(list.items[0].lanes.some((l: any) => !Number.isInteger(l.max_rate))).toBe(true);
    expect(list.routes[0].accounts.map((a: any) => [a.state, a.last_change?.action ?? null])).toEqual([
      ['in_service', null],
      ['demoted', 'demote'],
    ]);
    expect(list.route_changes).toHaveLength(1);
    const errors = await whole('GET', '/v1/provider-accounts/recent-errors');
    expect(errors.items.flatMap((i: any) => i.attempts)).not.toEqual([]);
    for (const a of list.items) await whole('GET', `/v1/provider-accounts/${a.id}/rollout`);
    const stats = await whole('GET', '/v1/stats');
    expect(stats.series.points).toHaveLength(60);
    await whole('GET', '/v1/stats?window=day');
  });

  it('an audience upload, and a campaign through create (infeasible, and started at once), list, get, start, pause, resume and cancel', async () => {
    // 0.05 msg/s: the plan's rates are fractions, and 3 recipients in a minute are more than the lane gives.
    h = await harness({ ...withRoute, account: (a) => (a.channel === 'email' ? { ...a, rate_per_second: 0.05 } : a) });
    await demoteBackup();
    const body = (name: string, n: number, more: Record<string, unknown> = {}) => ({
      name,
      channel: 'email',
      purpose: 'marketing',
      content: { subject: 'Sale', text: 'Everything must go' },
      deadline_at: new Date(h.clock.now() + MINUTE).toISOString(),
      audience: { recipients: Array.from({ length: n }, (_, i) => ({ id: `${name}-${i}`, email: `${name}${i}@example.com`, time_zone: 'Europe/Paris' })) },
      ...more,
    });
    // An uploaded audience (a stream, so not through `whole`): its 201 and GET are what the route built.
    const before = h.answers.length;
    const upload = await h.app.inject({
      method: 'POST',
      url: '/v1/audiences',
      headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'application/x-ndjson' },
      payload: '{"id":"a1","email":"a1@example.com"}\n{"id":"a1","email":"again@example.com"}\n{"id":"a2","phone":"+14155550123"}\n',
    });
    expect(upload.statusCode, upload.body).toBe(201);
    expect(upload.json()).toEqual(asJson(h.answers[before]!.payload));
    expect(upload.json()).toMatchObject({ source: 'ndjson', size: 2, duplicates: 1, with_address: { email: 1, sms: 1, push: 0 } });
    await whole('GET', `/v1/audiences/${upload.json().id}`);

    const late = await whole('POST', '/v1/campaigns', body('late', 3));
    expect(late.plan).toMatchObject({
      feasible: false,
      options: { smaller_audience: { max_audience: 2 } },
      capacity: { route: '*/email/marketing', left_out: [{ provider_account: 'email-backup', reason: 'demoted' }] },
    });
    const soon = await whole('POST', '/v1/campaigns', body('soon', 1, { start: 'if_feasible', metadata: { wave: 1 } }));
    expect(soon).toMatchObject({ status: 'running', template: null, paused_at: null });
    await h.campaigns.runOnce();
    await whole('GET', '/v1/campaigns');
    await whole('GET', `/v1/campaigns/${late.id}`);
    for (const action of ['start', 'pause', 'resume', 'cancel']) await whole('POST', `/v1/campaigns/${late.id}/${action}`, {});
    expect((await whole('GET', `/v1/campaigns/${late.id}`)).actions.map((a: any) => a.action)).toEqual([
      'campaign_pause',
      'campaign_resume',
      'campaign_cancel',
    ]);
  });

  describe('a phone', () => {
    let sim: PhoneSim;
    afterEach(() => sim.close());

    it('its health (with and without a ping), messages, one message, sweeps, and both retries', async () => {
      h = await gatewayHarness('sqlite', { recordAnswers: true });
      sim = phoneFor(h, { battery: { percent: 40, drainPerPing: 1, chargePerPing: 5 } });
      await sim.start();
      const id = sim.registration!.id;
      expect((await whole('GET', '/v1/devices')).items[0].phone_health).toBeNull();
      expect((await sim.ping()).status).toBe(200);
      expect((await whole('GET', `/v1/devices/${id}`)).phone_health).toMatchObject({ battery_percent: 40, low_battery: false });

      sim.script({ kind: 'fail', error: 'Send result: RESULT_ERROR_RADIO_OFF (Failed because radio was explicitly turned off)' });
      const failed = await sendSms(h, { purpose: 'transactional' });
      await h.worker.runOnce(ACCOUNT);
      const messageId = await messageIdOf(h, failed);
      await until(sim, () => expect(sim.message(messageId)?.state).toBe('Failed'));
      await h.devices!.reports.runOnce();

      await whole('GET', '/v1/devices');
      await whole('GET', `/v1/devices/${id}/messages`);
      await whole('GET', `/v1/devices/${id}/messages?limit=1`);
      expect(await whole('GET', `/v1/devices/${id}/messages/${messageId}`)).toMatchObject({ phone_state: 'Failed', pulled_at: expect.any(String) });
      expect(await whole('POST', `/v1/devices/${id}/messages/${messageId}/retry`)).toMatchObject({ action: 'retried' });
      expect(await whole('POST', `/v1/devices/${id}/retry-failed`)).toMatchObject({ cause: 'operator', away_since: null });
      await whole('GET', `/v1/devices/${id}/sweeps`);
      expect((await whole('GET', `/v1/devices/${id}`)).actions).toHaveLength(2);
    });
  });
});
