/**
 * GET /v1/deliveries as the dashboard's message list, on both drivers: the new filters reach
 * the store, each row carries recipient, operation, campaign, device, destination and its last
 * event time, the destination is masked for a viewer session, and bad filters are 400s naming
 * the parameter.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/http/passwords.js';
import { createHarness, DRIVERS, otpBody, T0, type Harness } from '../helpers/harness.js';

describe.each(DRIVERS)('GET /v1/deliveries filters and rows on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  it('filters by q, account, time and reason, and shows the row fields', async () => {
    h = await createHarness({ driver });
    const a = await h.send(otpBody({ recipient: { id: 'cust-42', phone: '+447911123789' }, group: { key: 'signin-42', generation: 1 } }));
    expect(a.status, JSON.stringify(a.json)).toBe(202);
    h.clock.advance(60_000);
    const b = await h.send(otpBody({ recipient: { id: 'cust-43', phone: '+14155550123' } }));
    await h.worker.drain();
    const list = await h.get('/v1/deliveries?q=cust-42');
    expect(list.status).toBe(200);
    expect(list.json.items).toHaveLength(1);
    expect(list.json.items[0]).toMatchObject({
      id: a.json.deliveries[0].id,
      notification_id: a.json.id,
      recipient_id: 'cust-42',
      operation_id: 'signin-42',
      campaign_id: null,
      device_id: null,
      destination: '+447911123789',
      last_event_at: expect.any(String),
    });
    expect((await h.get('/v1/deliveries?q=signin-42')).json.items.map((d: { id: string }) => d.id)).toEqual([a.json.deliveries[0].id]);
    expect((await h.get(`/v1/deliveries?q=${b.json.deliveries[0].id}`)).json.items).toHaveLength(1);
    const since = new Date(T0 + 30_000).toISOString();
    expect((await h.get(`/v1/deliveries?since=${since}`)).json.items.map((d: { id: string }) => d.id)).toEqual([b.json.deliveries[0].id]);
    expect((await h.get(`/v1/deliveries?until=${since}`)).json.items.map((d: { id: string }) => d.id)).toEqual([a.json.deliveries[0].id]);
    const account = list.json.items[0].provider_account as string;
    expect((await h.get(`/v1/deliveries?provider_account=${account}`)).json.items).toHaveLength(2);
    expect((await h.get('/v1/deliveries?provider_account=nope')).json.items).toEqual([]);
    expect((await h.get('/v1/deliveries?terminal_reason=cancelled')).json.items).toEqual([]);
    expect((await h.get('/v1/deliveries?downstream_status=delivered&campaign=cmp_x&device=dev_x')).json.items).toEqual([]);

    // A viewer session sees the destination masked.
    await h.store.sessions.createUser({
      id: 'usr_v',
      tenantId: h.tenantId,
      username: 'vic',
      passwordHash: await hashPassword('a viewer password'),
      role: 'viewer',
      now: T0,
    });
    const s = await h.app.inject({ method: 'POST', url: '/v1/session', payload: { username: 'vic', password: 'a viewer password' } });
    const cookie = String(s.headers['set-cookie']).split(';')[0]!;
    const masked = await h.app.inject({ method: 'GET', url: '/v1/deliveries?q=cust-42', headers: { cookie } });
    expect(masked.json().items[0].destination).toBe('+44•••••789');
  });

  it('failed=true lists the failed messages only, by the one definition', async () => {
    h = await createHarness({ driver });
    h.sandbox.faults.set({ mode: 'reject_permanent', count: 1 });
    const refused = await h.send(otpBody({ recipient: { id: 'cust-refused', phone: '+14155550102' } }));
    await h.worker.drain();
    const ok = await h.send(otpBody({ recipient: { id: 'cust-ok', phone: '+14155550101' } }));
    await h.worker.drain();
    const ids = async (query: string) => (await h.get(`/v1/deliveries?${query}`)).json.items.map((d: { id: string; state: string }) => [d.id, d.state]);
    expect(await ids('failed=true')).toEqual([[refused.json.deliveries[0].id, 'terminal']]);
    expect(await ids('failed=false')).toHaveLength(2);
    expect((await ids('')).map(([id]: [string]) => id)).toContain(ok.json.deliveries[0].id);
    expect(await ids('failed=true&q=cust-ok')).toEqual([]);
  });

  it('refuses bad filters with 400 validation_failed naming the parameter', async () => {
    h = await createHarness({ driver });
    for (const [query, field] of [
      ['since=yesterday', 'query.since'],
      ['until=2026-13-45T00:00:00Z', 'query.until'],
      ['terminal_reason=lost', 'query.terminal_reason'],
      ['downstream_status=maybe', 'query.downstream_status'],
      ['q=', 'query.q'],
      ['failed=yes', 'query.failed'],
      ['colour=red', 'query.colour'],
    ]) {
      const r = await h.get(`/v1/deliveries?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.json.code, query).toBe('validation_failed');
      expect(r.json.errors[0].field, query).toBe(field);
    }
  });
});
