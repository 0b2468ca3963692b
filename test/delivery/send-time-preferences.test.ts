/**
 * Preferences and suppression checked at every attempt, end to end on both drivers: marketing
 * e-mail carries RFC 8058 one-click headers to the sandbox; POSTing that link mid-stream stops
 * every remaining marketing send to the recipient (terminal/unsubscribed, no more ledger
 * entries) while a code to the same address still goes; a hard bounce stops everything to the
 * address (terminal/suppressed), a complaint only the optional purposes; lifting the entry
 * makes the address sendable again; a check that cannot be read sends nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import type { ProviderAdapter } from '../../src/providers/provider.js';
import { createAdapter } from '../../src/runtime/node.js';
import type { Store } from '../../src/store/store.js';
import { createHarness, DRIVERS, silentLogger, type Harness, WORKER_DEFAULTS } from '../helpers/harness.js';
import { UnsubscribeLinks } from '../../src/preferences/unsubscribe-links.js';

const ADA = 'ada@example.com';
const PUBLIC_URL = 'https://herald.example.test';

const body = (purpose: string, text: string, email = ADA) => ({
  recipient: { id: 'user-1', email },
  purpose,
  channels: ['email'],
  content: { subject: text, text },
  ttl_seconds: 3600,
});

describe.each(DRIVERS)('send-time preferences on %s', (driver) => {
  let h: Harness;
  const adapters: ProviderAdapter[] = [];
  beforeEach(async () => {
    h = await createHarness({ driver });
    // These tests send one person many marketing messages at once: the default frequency cap
    // (2 a day, time-aware-sending.test.ts) is turned off so only preferences decide.
    await h.store.scheduling.putPolicy(h.tenantId, { frequency_caps: { marketing: null } }, h.clock.now());
  });
  afterEach(async () => {
    await Promise.allSettled(adapters.splice(0).map((a) => a.close()));
    await h.close();
  });

  /** A worker with one unlimited lane of `batchSize`, building unsubscribe links to PUBLIC_URL. */
  function worker(batchSize: number, store: Store = h.store): DeliveryWorker {
    const map = new Map(h.config.provider_accounts.map((a) => [a.id, createAdapter(a)] as const));
    adapters.push(...map.values());
    return new DeliveryWorker({
      store,
      adapters: map,
      clock: h.clock,
      logger: silentLogger,
      workerId: 'w-prefs',
      settings: { ...WORKER_DEFAULTS, batch_size: batchSize },
      random: () => 0.5,
      unsubscribeLinks: new UnsubscribeLinks({ store, clock: h.clock, publicUrl: PUBLIC_URL }),
    });
  }
  const sendOk = async (b: unknown): Promise<string> => {
    const r = await h.send(b);
    expect(r.status).toBe(202);
    return r.json.id as string;
  };
  const deliveryOf = async (id: string) => (await h.get(`/v1/notifications/${id}`)).json.deliveries[0];
  const ledgerFor = (email: string) => h.sandbox.ledger.entries({ channel: 'email' }).filter((e) => e.destination === email);

  it('an unsubscribe mid-campaign stops the remaining marketing sends; a code to the same recipient still goes', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await sendOk(body('marketing', `Offer ${i}`)));
    const w = worker(4);
    expect((await w.runOnce('sandbox-email')).claimed).toBe(4);

    const sent = ledgerFor(ADA);
    expect(sent).toHaveLength(4);
    for (const e of sent) {
      expect(e.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
      expect(e.headers?.['List-Unsubscribe']).toMatch(new RegExp(`^<${PUBLIC_URL}/v1/unsubscribe/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}>$`));
    }
    // The recipient clicks "unsubscribe" in their mail client: a POST of the RFC 8058 body to the header's URL.
    const url = new URL(sent[0]!.headers!['List-Unsubscribe']!.slice(1, -1));
    const click = await h.app.inject({
      method: 'POST',
      url: url.pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(click.statusCode).toBe(200);
    expect((await h.get('/v1/recipients/user-1/preferences')).json.opt_outs).toEqual([
      { channel: 'email', purpose: 'marketing', source: 'one_click', opted_out_at: new Date(h.clock.now()).toISOString() },
    ]);

    const otp = await sendOk(body('otp', 'Your code is 123456'));
    await w.drain();

    // Four went before the click; the other six were stopped at their claim, with a reason.
    const states = await Promise.all(ids.map(deliveryOf));
    expect(states.slice(0, 4).map((d) => d.state)).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);
    for (const d of states.slice(4)) {
      expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'unsubscribed', attempt_count: 1 });
      expect(d.attempts).toEqual([expect.objectContaining({ outcome: 'retryable', error: expect.objectContaining({ code: 'unsubscribed_before_send' }) })]);
    }
    // No further marketing entry for the address; the code went, without an unsubscribe link.
    const after = ledgerFor(ADA);
    expect(after).toHaveLength(5);
    expect(after.slice(0, 4)).toEqual(sent);
    expect(after[4]!.idempotency_key).toBe((await deliveryOf(otp)).idempotency_key);
    expect(after[4]!.headers).toBeUndefined();
    expect((await deliveryOf(otp)).state).toBe('accepted');
  });

  it('an opt-out recorded through the API stops a retry waiting between attempts', async () => {
    h.sandbox.faults.set({ mode: 'rate_limit', count: 1, retry_after_seconds: 5 });
    const id = await sendOk(body('conversational', 'Your reply'));
    const w = worker(4);
    await w.drain();
    expect(await deliveryOf(id)).toMatchObject({ state: 'retryable', attempt_count: 1 });
    // Every channel, every optional purpose ({} is the same as nulls).
    const put = await h.app.inject({
      method: 'PUT',
      url: '/v1/recipients/user-1/preferences',
      headers: { authorization: `Bearer ${h.apiKey}` },
      payload: { opt_outs: [{}] },
    });
    expect(put.statusCode).toBe(200);
    h.clock.advance(10 * 60_000);
    await w.drain();
    expect(await deliveryOf(id)).toMatchObject({ state: 'terminal', terminal_reason: 'unsubscribed', attempt_count: 2 });
    expect(ledgerFor(ADA)).toHaveLength(0);
  });

  it('a hard bounce suppresses the address for every purpose; lifting the entry makes it sendable again', async () => {
    const first = await sendOk(body('transactional', 'Receipt'));
    const w = worker(8);
    await w.drain();
    const d = await deliveryOf(first);
    // The provider reports a hard bounce; evidence puts the address on the list.
    await h.store.evidence.recordProviderEvents([
      {
        providerAccount: 'sandbox-email',
        eventId: 'bounce-1',
        status: 'bounced',
        providerMessageId: d.provider_message_id,
        reference: null,
        occurredAt: null,
        suppress: 'bounced',
        receivedAt: h.clock.now(),
      },
    ]);
    await h.evidence.runOnce();
    expect(await h.store.preferences.getSuppression(h.tenantId, 'email', ADA)).toMatchObject({ reason: 'bounced' });

    const entries = ledgerFor(ADA).length;
    const otp = await sendOk(body('otp', 'Your code is 654321'));
    const mkt = await sendOk(body('marketing', 'Offer'));
    await w.drain();
    expect(await deliveryOf(otp)).toMatchObject({ state: 'terminal', terminal_reason: 'suppressed' });
    expect((await deliveryOf(otp)).attempts[0]).toMatchObject({ outcome: 'retryable', error: { code: 'suppressed_before_send' } });
    expect(await deliveryOf(mkt)).toMatchObject({ state: 'terminal', terminal_reason: 'suppressed' });
    expect(ledgerFor(ADA)).toHaveLength(entries);

    const lift = await h.app.inject({
      method: 'DELETE',
      url: '/v1/suppressions',
      headers: { authorization: `Bearer ${h.apiKey}` },
      payload: { channel: 'email', destination: ADA },
    });
    expect(lift.statusCode).toBe(200);
    const again = await sendOk(body('otp', 'Your code is 111111'));
    await w.drain();
    expect((await deliveryOf(again)).state).toBe('accepted');
    expect(ledgerFor(ADA)).toHaveLength(entries + 1);
  });

  it('a complaint stops marketing to the address but not a code or a receipt', async () => {
    const bob = 'bob@example.com';
    const first = await sendOk(body('marketing', 'Offer', bob));
    const w = worker(8);
    await w.drain();
    const d = await deliveryOf(first);
    await h.store.evidence.recordProviderEvents([
      {
        providerAccount: 'sandbox-email',
        eventId: 'complaint-1',
        status: 'complained',
        providerMessageId: d.provider_message_id,
        reference: null,
        occurredAt: null,
        suppress: 'complained',
        receivedAt: h.clock.now(),
      },
    ]);
    await h.evidence.runOnce();
    const mkt = await sendOk(body('marketing', 'Another offer', bob));
    const receipt = await sendOk(body('transactional', 'Receipt', bob));
    await w.drain();
    expect(await deliveryOf(mkt)).toMatchObject({ state: 'terminal', terminal_reason: 'suppressed' });
    expect((await deliveryOf(receipt)).state).toBe('accepted');
  });

  it.runIf(driver === 'sqlite')('sends nothing when the check cannot be read: the attempts close not sent and retry', async () => {
    const id = await sendOk(body('marketing', 'Offer'));
    // The same store, except that the send-time check fails (as a lost connection would).
    const preferences = Object.create(h.store.preferences, { sendabilityOf: { value: async () => Promise.reject(new Error('connection lost')) } });
    const failing = Object.create(h.store, { preferences: { value: preferences } }) as Store;
    await worker(4, failing).runOnce('sandbox-email');
    expect(await deliveryOf(id)).toMatchObject({ state: 'retryable', attempt_count: 1 });
    expect((await deliveryOf(id)).attempts[0]).toMatchObject({ outcome: 'retryable', error: { code: 'preference_check_failed' } });
    expect(ledgerFor(ADA)).toHaveLength(0);
  });
});
