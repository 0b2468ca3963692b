/**
 * Campaigns end to end through the real sandbox, on both drivers: a feasible campaign started
 * with `if_feasible` fans out and is delivered; a draft sends nothing until confirmed; a pause
 * holds everything (calls in flight finish, what fails meanwhile is retried after the resume),
 * and a paused and resumed campaign loses nothing and sends nothing twice; what expires while
 * paused is counted as expired; a cancel ends what is queued.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, T0, type Harness } from '../helpers/harness.js';

const recipients = (n: number, from = 1) => Array.from({ length: n }, (_, i) => ({ id: `u${from + i}`, email: `u${from + i}@example.com` }));

const campaignBody = (over: Record<string, unknown> = {}) => ({
  name: 'November newsletter',
  channel: 'email',
  purpose: 'marketing',
  content: { subject: 'News', text: 'Hello from Herald' },
  deadline_at: new Date(T0 + 3600_000).toISOString(),
  audience: { recipients: recipients(10) },
  ...over,
});

describe.each(DRIVERS)('campaigns on %s', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ driver });
  });
  afterEach(async () => {
    await h.close();
  });

  const campaign = async (id: string) => (await h.get(`/v1/campaigns/${id}`)).json;
  /** Sandbox ledger entries per idempotency key: every key once means nothing was sent twice. */
  const ledgerKeys = () => {
    const counts = new Map<string, number>();
    for (const e of h.sandbox.ledger.entries()) counts.set(e.idempotency_key, (counts.get(e.idempotency_key) ?? 0) + 1);
    return counts;
  };
  const destinations = () => new Set(h.sandbox.ledger.entries().map((e) => e.destination));

  it('a feasible campaign with start "if_feasible" starts at once, fans out and is delivered', async () => {
    const created = await h.post('/v1/campaigns', campaignBody({ start: 'if_feasible' }));
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      status: 'running',
      channel: 'email',
      lane: 'bulk',
      audience: { size: 10 },
      plan: { feasible: true, audience_size: 10 },
    });
    expect(created.json.id).toMatch(/^cmp_/);
    expect(created.json.progress).toMatchObject({ fanned_out: 0, not_fanned_out: 10, queued: 0 });

    expect(await h.campaigns.runOnce()).toMatchObject({ fannedOut: 10 });
    expect((await campaign(created.json.id)).progress).toMatchObject({ fanned_out: 10, not_fanned_out: 0, queued: 10 });
    await h.worker.drain();
    expect((await h.campaigns.runOnce()).finished).toBe(1);

    const done = await campaign(created.json.id);
    expect(done.status).toBe('completed');
    expect(done.progress).toMatchObject({ fanned_out: 10, queued: 0, accepted: 10, failed: 0, projected_finish: { remaining: 0 } });
    expect(destinations()).toEqual(new Set(recipients(10).map((r) => r.email)));
    expect([...ledgerKeys().values()].every((n) => n === 1)).toBe(true);
    // Each message is an ordinary notification of its campaign, its own challenge group.
    const [d] = (await h.get('/v1/deliveries?limit=1')).json.items;
    const n = (await h.get(`/v1/notifications/${d.notification_id}`)).json;
    expect(n).toMatchObject({ purpose: 'marketing', metadata: { campaign_id: created.json.id }, group: { generation: 1 } });
    expect(n.group.key).toMatch(new RegExp(`^cmp:${created.json.id}:u\\d+$`));
  });

  it('a retried POST with the same Idempotency-Key replays the first answer: one campaign, sent once', async () => {
    const key = { 'idempotency-key': 'newsletter-2026-11' };
    const first = await h.post('/v1/campaigns', campaignBody({ start: 'if_feasible' }), key);
    const again = await h.post('/v1/campaigns', campaignBody({ start: 'if_feasible' }), key);
    expect(again).toMatchObject({ status: 201, headers: { 'idempotent-replayed': 'true' }, json: { id: first.json.id } });
    expect((await h.post('/v1/campaigns', campaignBody({ name: 'other' }), key)).json.code).toBe('idempotency_key_mismatch');
    // A refused request does not use its key up.
    const refused = await h.post('/v1/campaigns', campaignBody({ audience: { recipients: [] } }), { 'idempotency-key': 'k2' });
    expect(refused.json.code).toBe('audience_empty');
    expect((await h.post('/v1/campaigns', campaignBody(), { 'idempotency-key': 'k2' })).status).toBe(201);
    await h.campaigns.runOnce();
    await h.worker.drain();
    expect(h.sandbox.ledger.entries()).toHaveLength(10);
  });

  it('a draft sends nothing until confirmed; the start re-plans for now', async () => {
    const created = await h.post('/v1/campaigns', campaignBody());
    expect(created.json.status).toBe('draft');
    await h.campaigns.runOnce();
    await h.worker.drain();
    expect(h.sandbox.ledger.entries()).toHaveLength(0);
    expect((await campaign(created.json.id)).progress.projected_finish.finish_at).toBeNull();

    h.clock.advance(60_000);
    const started = await h.post(`/v1/campaigns/${created.json.id}/start`);
    expect(started.status).toBe(200);
    expect(started.json).toMatchObject({ status: 'running', started_at: new Date(T0 + 60_000).toISOString(), plan: { start_at: T0 + 60_000, feasible: true } });
    expect((await h.post(`/v1/campaigns/${created.json.id}/start`)).json.code).toBe('campaign_state_conflict');
    await h.campaigns.runOnce();
    await h.worker.drain();
    await h.campaigns.runOnce();
    expect((await campaign(created.json.id)).progress.accepted).toBe(10);
    expect(destinations().size).toBe(10);
  });

  it('pause holds the queue (in-flight calls finish, failures wait); resume retries them: nothing lost, nothing twice', async () => {
    const created = await h.post('/v1/campaigns', campaignBody({ start: 'if_feasible', audience: { recipients: recipients(40) } }));
    const id = created.json.id;
    await h.campaigns.runOnce();
    // One worker batch in flight when the pause comes: slow, and the first 5 calls answered 503.
    h.sandbox.faults.set({ mode: 'latency', latency_ms: 300, count: 40 });
    h.sandbox.faults.set({ mode: 'server_error', count: 5 });
    const inFlight = h.worker.runOnce('sandbox-email');
    // The batch is claimed (committed) before its calls start; they take 300 ms each.
    await expect
      .poll(async () => (await campaign(id)).progress.sending, { timeout: 5_000, interval: 1, message: 'the worker never claimed a batch' })
      .toBeGreaterThan(0);
    const paused = await h.post(`/v1/campaigns/${id}/pause`);
    const sending = paused.json.progress.sending as number;
    // The audit trail names who paused it (docs/dashboard.md).
    expect((await campaign(id)).actions).toEqual([expect.objectContaining({ action: 'campaign_pause', by: { kind: 'api_key', id: 'key_test', name: null } })]);
    expect(sending).toBeGreaterThan(5);
    expect(paused.json).toMatchObject({ status: 'paused', progress: { queued: 40 - sending, held: 40 - sending } });
    expect(await inFlight).toMatchObject({ claimed: sending, applied: sending });
    expect((await campaign(id)).progress).toMatchObject({ accepted: sending - 5, queued: 45 - sending, held: 40 - sending });
    // The runner holds what failed while paused.
    expect((await h.campaigns.runOnce()).held).toBe(5);
    expect((await campaign(id)).progress).toMatchObject({
      queued: 45 - sending,
      held: 45 - sending,
      projected_finish: { remaining: 45 - sending, finish_at: null },
    });

    // An hour paused: past every retry time, and nothing is sent.
    h.clock.advance(3600_000);
    await h.worker.drain();
    await h.sweeper.runOnce();
    expect(h.sandbox.ledger.entries()).toHaveLength(sending - 5);
    expect((await h.post(`/v1/campaigns/${id}/pause`)).status).toBe(409);

    const resumed = await h.post(`/v1/campaigns/${id}/resume`);
    expect(resumed.json).toMatchObject({ status: 'running', paused_at: null, progress: { queued: 45 - sending, held: 0 } });
    await h.campaigns.runOnce();
    await h.worker.drain();
    expect((await h.campaigns.runOnce()).finished).toBe(1);

    const done = await campaign(id);
    expect(done).toMatchObject({ status: 'completed', progress: { accepted: 40, queued: 0, failed: 0, expired: 0 } });
    expect(destinations()).toEqual(new Set(recipients(40).map((r) => r.email)));
    const keys = ledgerKeys();
    expect(keys.size).toBe(40);
    expect([...keys.values()].every((n) => n === 1)).toBe(true);
  });

  it('what expires while paused is counted as expired, and the campaign still completes', async () => {
    const created = await h.post('/v1/campaigns', campaignBody({ start: 'if_feasible', ttl_seconds: 120, audience: { recipients: recipients(4) } }));
    const id = created.json.id;
    await h.campaigns.runOnce();
    await h.post(`/v1/campaigns/${id}/pause`);
    h.clock.advance(121_000);
    await h.sweeper.runOnce();
    expect((await campaign(id)).progress).toMatchObject({ expired: 4, queued: 0 });
    await h.post(`/v1/campaigns/${id}/resume`);
    await h.worker.drain();
    await h.campaigns.runOnce();
    expect(h.sandbox.ledger.entries()).toHaveLength(0);
    expect(await campaign(id)).toMatchObject({ status: 'completed', progress: { expired: 4, accepted: 0, queued: 0 } });
  });

  it('cancel ends what is queued and fans out nothing more', async () => {
    const created = await h.post('/v1/campaigns', campaignBody({ start: 'if_feasible', audience: { recipients: recipients(8) } }));
    const id = created.json.id;
    await h.campaigns.runOnce();
    const cancelled = await h.post(`/v1/campaigns/${id}/cancel`);
    expect(cancelled.json.status).toBe('cancelled');
    expect(await h.campaigns.runOnce()).toMatchObject({ cancelled: 8, finished: 1 });
    await h.worker.drain();
    expect(h.sandbox.ledger.entries()).toHaveLength(0);
    expect(await campaign(id)).toMatchObject({ status: 'cancelled', progress: { cancelled: 8, queued: 0, projected_finish: { remaining: 0 } } });
    expect((await campaign(id)).finished_at).not.toBeNull();
  });

  it('an unsubscribe mid-campaign stops the remaining send to that recipient: terminal/unsubscribed, never in the ledger', async () => {
    const created = await h.post('/v1/campaigns', campaignBody({ start: 'if_feasible', audience: { recipients: recipients(40) } }));
    expect(created.status).toBe(201);
    await h.campaigns.runOnce();
    // Part of the campaign goes out...
    const w = h.newWorker({ batchSize: 4 });
    await w.runOnce('sandbox-email', 'bulk');
    await w.runOnce('sandbox-email', 'bulk');
    const sent = destinations();
    expect(sent.size).toBeGreaterThan(0);
    expect(sent.size).toBeLessThan(40);
    // ...then a recipient still queued unsubscribes from marketing e-mail.
    const quitter = recipients(40).find((r) => !sent.has(r.email))!;
    const put = await h.app.inject({
      method: 'PUT',
      url: `/v1/recipients/${quitter.id}/preferences`,
      headers: { authorization: `Bearer ${h.apiKey}` },
      payload: { opt_outs: [{ channel: 'email', purpose: 'marketing' }] },
    });
    expect(put.statusCode).toBe(200);
    await h.worker.drain();
    await h.campaigns.runOnce();
    expect(destinations().has(quitter.email)).toBe(false);
    expect(destinations().size).toBe(39);
    const done = await campaign(created.json.id);
    expect(done.progress).toMatchObject({ accepted: 39, unsubscribed: 1, queued: 0 });
    expect([...ledgerKeys().values()].every((n) => n === 1)).toBe(true);
  });
});
