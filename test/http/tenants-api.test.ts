/**
 * Tenants, scoped keys and the audit log through the API, on both drivers: the route-scope table
 * matches the routes the app serves; out-of-scope calls are 403 scope_required naming the scope;
 * keys are created (never with more than the creator has), listed without their secret, expire,
 * record their last use at most once a minute, rotate and revoke (refused at once by the process
 * that revoked, within a second by another process's app); the operator creates tenants and assigns provider accounts, and intake refuses an
 * account the tenant was not given; GET /v1/audit pages who did what from where, and nothing edits it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { ROUTE_SCOPES } from '../../src/http/route-scopes.js';
import { LIVE_KEY_MAX_AGE_MS } from '../../src/http/live-keys.js';
import { ReplayService } from '../../src/delivery/replay-service.js';
import { IntakeService } from '../../src/intake/intake-service.js';
import { ACCOUNT_ACCESS_MAX_AGE_MS } from '../../src/intake/recent-account-access.js';
import { createHarness, DRIVERS, otpBody, type Harness, silentLogger } from '../helpers/harness.js';
import { gatewayHarness } from '../devices/gateway-harness.js';

const SECOND = 1_000;

describe('the route-scope table', () => {
  it('lists exactly the routes the app serves with every optional part on', async () => {
    const h = await gatewayHarness('sqlite', { metrics: {} });
    try {
      const served = new Set(h.app.routeTable.map((r) => r.key));
      expect([...served].filter((k) => !(k in ROUTE_SCOPES))).toEqual([]);
      expect(Object.keys(ROUTE_SCOPES).filter((k) => !served.has(k))).toEqual([]);
    } finally {
      await h.close();
    }
  });
});

describe.each(DRIVERS)('tenants and scoped keys on %s', (driver) => {
  let h: Harness;
  const call = async (key: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await h.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${key}`, ...headers },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return { status: r.statusCode, json: r.body ? r.json() : null, text: r.body };
  };
  const newKey = async (scopes: string[], over: Record<string, unknown> = {}) => {
    const r = await call(h.apiKey, 'POST', '/v1/keys', { label: scopes.join('+'), scopes, ...over });
    expect(r.status, r.text).toBe(201);
    return r.json as { id: string; key: string; scopes: string[] };
  };

  /** Another process's app: its own connection to the same database, its own caches. */
  const anotherProcess = (peer = h.openPeerStore()) =>
    buildApp({
      store: peer,
      intake: new IntakeService({ store: peer, accounts: h.config.provider_accounts, clock: h.clock, logger: silentLogger }),
      replay: new ReplayService({ store: peer, clock: h.clock }),
      accounts: h.config.provider_accounts,
      clock: h.clock,
      dashboard: null,
    });

  beforeEach(async () => {
    h = await createHarness({ driver });
  });
  afterEach(() => h.close());

  it('refuses out-of-scope calls with 403 scope_required naming the scope', async () => {
    const reader = await newKey(['read']);
    expect((await call(reader.key, 'GET', '/v1/deliveries')).status).toBe(200);
    const send = await call(reader.key, 'POST', '/v1/notifications', otpBody());
    expect(send.status).toBe(403);
    expect(send.json).toMatchObject({ code: 'scope_required', errors: [{ field: 'scope', message: 'send' }] });
    expect(send.json.detail).toContain('send scope');

    const sender = await newKey(['send']);
    const sent = await call(sender.key, 'POST', '/v1/notifications', otpBody());
    expect(sent.status, sent.text).toBe(202);
    expect((await call(sender.key, 'GET', `/v1/notifications/${sent.json.id}`)).json.code).toBe('scope_required');
    const deliveryId = (await h.get(`/v1/notifications/${sent.json.id}`)).json.deliveries[0].id;
    expect((await call(sender.key, 'POST', `/v1/deliveries/${deliveryId}/cancel`, {})).json.errors[0].message).toBe('operate');
    const operator = await newKey(['operate']);
    expect((await call(operator.key, 'POST', `/v1/deliveries/${deliveryId}/cancel`, {})).status).toBe(200);
    expect((await call(operator.key, 'GET', '/v1/keys')).json.errors[0].message).toBe('admin');
    expect((await call(h.apiKey, 'GET', '/v1/keys')).status).toBe(200);
  });

  it('creates keys with at most the creator’s scopes, shows each once, and never lists a secret', async () => {
    const admin = await newKey(['admin', 'read']);
    const escalate = await call(admin.key, 'POST', '/v1/keys', { label: 'x', scopes: ['send'] });
    expect(escalate.status).toBe(403);
    expect(escalate.json).toMatchObject({ code: 'scope_required', errors: [{ field: 'scopes' }] });
    const child = await call(admin.key, 'POST', '/v1/keys', { label: 'ci', scopes: ['read'] });
    expect(child.status).toBe(201);
    expect(child.json.key).toMatch(/^hld_sk_/);
    const listed = await call(admin.key, 'GET', '/v1/keys');
    expect(listed.text).not.toContain(child.json.key);
    expect(listed.json.items.find((k: { id: string }) => k.id === child.json.id)).toMatchObject({ label: 'ci', scopes: ['read'], revoked_at: null });
    expect((await call(h.apiKey, 'POST', '/v1/keys', { label: 'x', scopes: ['root'] })).json.code).toBe('validation_failed');
    expect(
      (await call(h.apiKey, 'POST', '/v1/keys', { label: 'x', scopes: ['read'], expires_at: new Date(h.clock.now() - SECOND).toISOString() })).json.code,
    ).toBe('validation_failed');
  });

  it('an expired key is refused like an unknown one; last use is written at most once a minute', async () => {
    const k = await newKey(['read'], { expires_at: new Date(h.clock.now() + 120 * SECOND).toISOString() });
    expect((await call(k.key, 'GET', '/v1/stats')).status).toBe(200);
    const t0 = h.clock.now();
    h.clock.advance(30 * SECOND);
    expect((await call(k.key, 'GET', '/v1/stats')).status).toBe(200);
    expect((await h.store.tenants.getKey(h.tenantId, k.id))?.lastUsedAt).toBe(t0);
    h.clock.advance(31 * SECOND);
    expect((await call(k.key, 'GET', '/v1/stats')).status).toBe(200);
    expect((await h.store.tenants.getKey(h.tenantId, k.id))?.lastUsedAt).toBe(t0 + 61 * SECOND);
    h.clock.advance(60 * SECOND);
    const expired = await call(k.key, 'GET', '/v1/stats');
    expect(expired.status).toBe(401);
    expect(expired.json.code).toBe('unauthorized');
  });

  it('a revoked or rotated key fails at once on its own process and within a second on another', async () => {
    const other = await anotherProcess();
    try {
      const onOther = async (key: string) => (await other.inject({ method: 'GET', url: '/v1/stats', headers: { authorization: `Bearer ${key}` } })).statusCode;
      const a = await newKey(['read']);
      const b = await newKey(['read']);
      expect(await onOther(a.key)).toBe(200);
      expect(await onOther(b.key)).toBe(200);
      expect((await call(a.key, 'GET', '/v1/stats')).status).toBe(200);
      const revoked = await call(h.apiKey, 'DELETE', `/v1/keys/${a.id}`);
      expect(revoked.status).toBe(200);
      expect(revoked.json.revoked_at).not.toBeNull();
      // The process that revoked it forgets it at once; the other trusts its read for under a second.
      expect((await call(a.key, 'GET', '/v1/stats')).status).toBe(401);
      h.clock.advance(LIVE_KEY_MAX_AGE_MS);
      expect(await onOther(a.key)).toBe(401);
      const rotated = await call(h.apiKey, 'POST', `/v1/keys/${b.id}/rotate`);
      expect(rotated.status, rotated.text).toBe(201);
      expect(rotated.json).toMatchObject({ replaces: b.id, scopes: ['read'], label: 'read' });
      h.clock.advance(LIVE_KEY_MAX_AGE_MS);
      expect(await onOther(b.key)).toBe(401);
      expect(await onOther(rotated.json.key)).toBe(200);
      expect((await call(h.apiKey, 'POST', `/v1/keys/${b.id}/rotate`)).status).toBe(404);
      expect((await call(h.apiKey, 'DELETE', '/v1/keys/key_nope')).status).toBe(404);
    } finally {
      await other.close();
    }
  });

  it('reads a busy key once a second, and a revoke on another process is refused within that second', async () => {
    const peer = h.openPeerStore();
    const other = await anotherProcess(peer);
    try {
      const k = await newKey(['read']);
      let reads = 0;
      const findApiKey = peer.findApiKey.bind(peer);
      peer.findApiKey = (hash) => {
        reads += 1;
        return findApiKey(hash);
      };
      const onOther = async () => (await other.inject({ method: 'GET', url: '/v1/stats', headers: { authorization: `Bearer ${k.key}` } })).statusCode;
      for (let i = 0; i < 20; i++) {
        expect(await onOther()).toBe(200);
        h.clock.advance(40);
      }
      // 20 requests over 800 ms: one read of the key's row.
      expect(reads).toBe(1);
      // Revoked on the first process 1 ms before the other's read turns a second old.
      h.clock.advance(LIVE_KEY_MAX_AGE_MS - 800 - 1);
      expect((await call(h.apiKey, 'DELETE', `/v1/keys/${k.id}`)).status).toBe(200);
      expect(await onOther()).toBe(200);
      h.clock.advance(1);
      expect(await onOther()).toBe(401);
      expect(reads).toBe(2);
      // An unknown key is read every time: nothing is kept for it.
      for (let i = 0; i < 3; i++)
        expect((await other.inject({ method: 'GET', url: '/v1/stats', headers: { authorization: 'Bearer hk_nope' } })).statusCode).toBe(401);
      expect(reads).toBe(5);
    } finally {
      await other.close();
    }
  });

  it('an assignment made on another process governs intake here within a second; tenants read their access once a second', async () => {
    const peer = h.openPeerStore();
    const other = await anotherProcess(peer);
    try {
      let reads = 0;
      const accountAccess = peer.tenants.accountAccess.bind(peer.tenants);
      peer.tenants.accountAccess = (tenantId) => {
        reads += 1;
        return accountAccess(tenantId);
      };
      const sendOnOther = async (group: string) =>
        (
          await other.inject({
            method: 'POST',
            url: '/v1/notifications',
            headers: { authorization: `Bearer ${h.apiKey}` },
            payload: otpBody({ group: { key: group, generation: 1 } }),
          })
        ).json<{ code?: string; deliveries?: unknown[] }>();
      for (let i = 0; i < 5; i++) {
        expect((await sendOnOther(`before-${i}`)).deliveries).toHaveLength(1);
        h.clock.advance(100);
      }
      // Five codes over 500 ms: one read of the default tenant's access.
      expect(reads).toBe(1);
      // sandbox-sms assigned to acme on the first process: no longer the default tenant's. The
      // other process goes on with its read until it turns a second old, then refuses.
      expect((await call(h.apiKey, 'POST', '/v1/tenants', { id: 'acme', name: 'Acme' })).status).toBe(201);
      expect((await call(h.apiKey, 'PUT', '/v1/tenants/acme/provider-accounts/sandbox-sms')).status).toBe(200);
      expect((await h.send(otpBody({ group: { key: 'here', generation: 1 } }))).json.code).toBe('provider_account_not_assigned');
      expect((await sendOnOther('stale')).deliveries).toHaveLength(1);
      h.clock.advance(ACCOUNT_ACCESS_MAX_AGE_MS - 500);
      expect((await sendOnOther('after')).code).toBe('provider_account_not_assigned');
      expect(reads).toBe(2);
    } finally {
      await other.close();
    }
  });

  it('the operator creates tenants and assigns accounts; intake refuses an account the tenant was not given', async () => {
    const created = await call(h.apiKey, 'POST', '/v1/tenants', { id: 'acme', name: 'Acme' });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ id: 'acme', name: 'Acme', provider_accounts: [], key: { scopes: ['send', 'read', 'operate', 'admin', 'dashboard'] } });
    const acme = created.json.key.key as string;
    expect((await call(h.apiKey, 'POST', '/v1/tenants', { id: 'acme', name: 'Again' })).json.code).toBe('tenant_exists');
    expect((await call(h.apiKey, 'POST', '/v1/tenants', { id: 'Bad Id', name: 'x' })).json.code).toBe('validation_failed');
    const notOperator = await call(acme, 'GET', '/v1/tenants');
    expect(notOperator.status).toBe(403);
    expect(notOperator.json.errors[0].message).toBe('tenants');
    expect((await call(acme, 'POST', '/v1/keys', { label: 'x', scopes: ['tenants'] })).status).toBe(403);

    const refused = await call(acme, 'POST', '/v1/notifications', otpBody());
    expect(refused.status).toBe(422);
    expect(refused.json).toMatchObject({ code: 'provider_account_not_assigned', errors: [{ field: 'channels' }] });
    expect((await call(acme, 'GET', '/v1/provider-accounts')).json.items).toEqual([]);

    expect((await call(h.apiKey, 'PUT', '/v1/tenants/acme/provider-accounts/nope')).status).toBe(404);
    expect((await call(h.apiKey, 'PUT', '/v1/tenants/ghost/provider-accounts/sandbox-sms')).status).toBe(404);
    const assigned = await call(h.apiKey, 'PUT', '/v1/tenants/acme/provider-accounts/sandbox-sms');
    expect(assigned.json.provider_accounts).toEqual(['sandbox-sms']);
    const sent = await call(acme, 'POST', '/v1/notifications', otpBody());
    expect(sent.status, sent.text).toBe(202);
    expect(sent.json.deliveries[0].provider_account).toBe('sandbox-sms');
    // Assigned to acme only now: the default tenant no longer sends through it.
    expect((await h.send(otpBody())).json.code).toBe('provider_account_not_assigned');
    expect((await h.send(otpBody({ channels: ['email'] }))).status).toBe(202);
    expect((await call(h.apiKey, 'GET', '/v1/tenants')).json.items.map((t: { id: string }) => t.id)).toEqual(['acme', 'default']);
    expect((await call(h.apiKey, 'DELETE', '/v1/tenants/acme/provider-accounts/sandbox-sms')).json.provider_accounts).toEqual([]);
    expect((await h.send(otpBody({ group: { key: 'g2', generation: 1 } }))).status).toBe(202);
    expect((await call(h.apiKey, 'DELETE', '/v1/tenants/acme/provider-accounts/sandbox-sms')).status).toBe(404);
  });

  it('sets rate shares on assignments, validates them with problem documents and refuses a sum past 1', async () => {
    for (const id of ['acme', 'beta']) expect((await call(h.apiKey, 'POST', '/v1/tenants', { id, name: id })).status).toBe(201);
    const url = (t: string) => `/v1/tenants/${t}/provider-accounts/sandbox-sms`;
    const set = await call(h.apiKey, 'PUT', url('acme'), { rate_share: 0.25 });
    expect(set.status, set.text).toBe(200);
    expect(set.json).toMatchObject({ provider_accounts: ['sandbox-sms'], assignments: [{ provider_account: 'sandbox-sms', rate_share: 0.25 }] });
    for (const bad of [0, -0.1, 1.5, '0.5', true, {}]) {
      const r = await call(h.apiKey, 'PUT', url('beta'), { rate_share: bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.json.code).toBe('validation_failed');
    }
    expect((await call(h.apiKey, 'PUT', url('beta'), { share: 0.5 })).json.code).toBe('validation_failed');
    const over = await call(h.apiKey, 'PUT', url('beta'), { rate_share: 0.8 });
    expect(over.status).toBe(422);
    expect(over.json).toMatchObject({ code: 'rate_shares_exceed_account', errors: [{ field: 'rate_share' }] });
    expect(over.json.detail).toContain('0.75');
    // Nothing was written: beta has no assignment.
    expect((await call(h.apiKey, 'GET', '/v1/tenants/beta')).json).toMatchObject({ provider_accounts: [], assignments: [] });
    expect((await call(h.apiKey, 'PUT', url('beta'), { rate_share: 0.75 })).status).toBe(200);
    // No body, an empty one or null: no share (the tenant competes for the whole rate).
    expect((await call(h.apiKey, 'PUT', url('default'))).status).toBe(200);
    expect((await call(h.apiKey, 'PUT', url('acme'), {})).json.assignments).toEqual([{ provider_account: 'sandbox-sms', rate_share: null }]);
    expect((await call(h.apiKey, 'PUT', url('acme'), { rate_share: null })).json.assignments).toEqual([{ provider_account: 'sandbox-sms', rate_share: null }]);
    expect((await call(h.apiKey, 'GET', '/v1/tenants/beta')).json.assignments).toEqual([{ provider_account: 'sandbox-sms', rate_share: 0.75 }]);
    expect(await h.store.tenants.accountShares('sandbox-sms')).toEqual([{ tenantId: 'beta', share: 0.75 }]);
  });

  it('GET /v1/audit pages who did what from where, newest first; nothing edits it', async () => {
    const k = await newKey(['read']);
    await call(h.apiKey, 'DELETE', `/v1/keys/${k.id}`);
    await call(h.apiKey, 'POST', '/v1/tenants', { id: 'acme', name: 'Acme' });
    await call(h.apiKey, 'PUT', '/v1/tenants/acme/provider-accounts/sandbox-email');
    await call(h.apiKey, 'PUT', '/v1/recipients/user-1/preferences', { opt_outs: [{ purpose: 'marketing' }] });
    await call(h.apiKey, 'POST', '/v1/suppressions', { channel: 'email', destination: 'gone@example.com' });
    await call(h.apiKey, 'DELETE', '/v1/suppressions', { channel: 'email', destination: 'gone@example.com' });
    await call(h.apiKey, 'DELETE', '/v1/recipients/user-9');
    const first = await call(h.apiKey, 'GET', '/v1/audit?limit=3', undefined, { 'x-forwarded-for': '198.51.100.7' });
    expect(first.status, first.text).toBe(200);
    expect(first.json.items.map((a: { action: string }) => a.action)).toEqual(['recipient_erase', 'suppression_remove', 'suppression_add']);
    expect(first.json.items[0]).toMatchObject({ by: { kind: 'api_key', id: 'key_test' }, ip: '127.0.0.1', subject_id: 'user-9' });
    expect(first.text).not.toContain('gone@example.com');
    const rest = await call(h.apiKey, 'GET', `/v1/audit?cursor=${first.json.next_cursor}`);
    expect(rest.json.items.map((a: { action: string }) => a.action)).toEqual([
      'preferences_edit',
      'account_assign',
      'tenant_create',
      'key_revoke',
      'key_create',
    ]);
    expect(rest.json.next_cursor).toBeNull();
    expect(rest.json.items[3]).toMatchObject({ subject_id: k.id });
    expect((await call(h.apiKey, 'GET', '/v1/audit?cursor=nope')).json.code).toBe('invalid_cursor');
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) expect((await call(h.apiKey, method, '/v1/audit', {})).status).toBe(404);
    // The new tenant's trail is its own: the operator's actions are on the operator's.
    const acmeKey = (await h.store.tenants.listKeys('acme'))[0]!;
    expect((await h.store.audit.list('acme', null, 10)).items).toEqual([]);
    expect(acmeKey.scopes).not.toContain('tenants');
  });

  it('a key without the dashboard scope cannot sign in to the dashboard', async () => {
    const reader = await newKey(['read']);
    const r = await h.app.inject({ method: 'POST', url: '/v1/session', payload: { api_key: reader.key } });
    expect(r.statusCode).toBe(403);
    expect(r.json().code).toBe('scope_required');
    const dash = await newKey(['dashboard', 'read']);
    const signedIn = await h.app.inject({ method: 'POST', url: '/v1/session', payload: { api_key: dash.key } });
    expect(signedIn.statusCode).toBe(201);
    // The session can do no more than its key: it reads, but cannot mint keys or send.
    const cookie = `herald_session=${signedIn.cookies.find((c) => c.name === 'herald_session')!.value}`;
    const csrf = signedIn.json().csrf_token as string;
    const viaSession = (method: 'GET' | 'POST', url: string, payload?: object) =>
      h.app.inject({ method, url, headers: { cookie, 'x-csrf-token': csrf }, ...(payload ? { payload } : {}) });
    expect((await viaSession('GET', '/v1/deliveries')).statusCode).toBe(200);
    const mint = await viaSession('POST', '/v1/keys', { label: 'x', scopes: ['read'] });
    expect(mint.statusCode).toBe(403);
    expect(mint.json()).toMatchObject({ code: 'scope_required', errors: [{ message: 'admin' }] });
    expect((await viaSession('POST', '/v1/notifications', otpBody())).json().code).toBe('scope_required');
    await call(h.apiKey, 'DELETE', `/v1/keys/${dash.id}`);
    expect((await viaSession('GET', '/v1/deliveries')).statusCode).toBe(401);
  });
});
