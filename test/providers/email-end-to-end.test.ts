/**
 * Resend and Postmark accounts in a whole Herald (the harness, both store drivers), against
 * their fakes: a send is accepted with the provider's id; a signed (Resend) or authenticated
 * (Postmark) callback moves the downstream status through the real callback route, and a
 * forged one is refused with 401 and changes nothing; a lost answer is settled the way each
 * provider allows: Resend by sending again with the same key (one e-mail), Postmark by the
 * look-up by metadata (found: accepted, nothing resent; authoritatively absent: resent once).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderAccountConfig } from '../../src/providers/provider.js';
import { generateWebhookSecret } from '../../src/signing/standard-webhooks.js';
import { createHarness, DRIVERS, type Harness } from '../helpers/harness.js';
import { postmarkRecords, postmarkWebhook, startPostmarkFake, type PostmarkFake } from './fakes/postmark.js';
import { resendWebhook, startResendFake, type ResendFake } from './fakes/resend.js';

const RESEND_KEY = 're_e2e_canary_51d2';
const POSTMARK_TOKEN = 'pm-e2e-canary-0c4f';
const WEBHOOK = { username: 'herald', password: 'pm-e2e-hook-9a1b' };
const ADDRESS = 'ada@example.com';

const emailBody = (i: number, purpose = 'transactional') => ({
  recipient: { id: `user-${i}`, email: ADDRESS },
  purpose,
  channels: ['email'],
  content: { subject: 'Receipt', text: `Receipt ${i}` },
  ttl_seconds: 3600,
});

describe.each(DRIVERS)('e-mail providers end to end on %s', (driver) => {
  let h: Harness | undefined;
  let resend: ResendFake | undefined;
  let postmark: PostmarkFake | undefined;
  afterEach(async () => {
    await h?.close();
    await resend?.close();
    await postmark?.close();
    h = resend = postmark = undefined;
  });

  const deliveryOf = async (notificationId: string) => (await h!.get(`/v1/notifications/${notificationId}`)).json.deliveries[0];
  const callback = (rawBody: Buffer, headers: Record<string, string | string[] | undefined>) =>
    h!.app.inject({ method: 'POST', url: '/v1/callbacks/sandbox-email', headers: headers as Record<string, string>, payload: rawBody });

  describe('resend', () => {
    const secret = generateWebhookSecret();
    const start = async (timeoutMs = 2_000) => {
      resend = await startResendFake({ apiKey: RESEND_KEY });
      const url = resend.url;
      h = await createHarness({
        driver,
        timeoutMs,
        account: (a): ProviderAccountConfig =>
          a.channel !== 'email'
            ? a
            : {
                ...a,
                kind: 'resend',
                base_url: url,
                settings: { api_key: RESEND_KEY, from: 'Herald <noreply@herald.test>' },
                callback_secrets: [secret],
                ambiguity_policy: 'resend_same_key',
                capabilities: { lookup: false, dedupes_by_key: true },
              },
      });
    };

    it("accepted with Resend's id; a signed callback moves the status; a forged one is 401 and changes nothing", async () => {
      await start();
      const sent = await h!.send(emailBody(1));
      expect(sent.status).toBe(202);
      await h!.worker.drain();
      const d0 = await deliveryOf(sent.json.id);
      expect(d0).toMatchObject({ state: 'accepted', provider_message_id: resend!.emails[0]?.id });
      expect(resend!.received[0]?.idempotencyKey).toBe(d0.idempotency_key);

      const delivered = resendWebhook(
        { type: 'email.delivered', emailId: d0.provider_message_id, reference: d0.idempotency_key },
        { secrets: [secret], svixId: 'msg_e2e_1', atMs: h!.clock.now() },
      );
      expect((await callback(delivered.rawBody, delivered.headers)).statusCode).toBe(200);
      // Svix retries the event under the same svix-id: recorded once.
      const again = await callback(delivered.rawBody, delivered.headers);
      expect(again.json()).toEqual({ received: 0, duplicates: 1 });
      await h!.evidence.runOnce();
      expect(await deliveryOf(sent.json.id)).toMatchObject({ downstream_status: 'delivered' });

      const forged = resendWebhook(
        { type: 'email.bounced', emailId: d0.provider_message_id, reference: d0.idempotency_key, bounceType: 'Permanent' },
        { secrets: [generateWebhookSecret()], svixId: 'msg_e2e_2', atMs: h!.clock.now() },
      );
      const refused = await callback(forged.rawBody, forged.headers);
      expect(refused.statusCode).toBe(401);
      await h!.evidence.runOnce();
      expect(await deliveryOf(sent.json.id)).toMatchObject({ downstream_status: 'delivered' });
      expect(await h!.store.preferences.getSuppression(h!.tenantId, 'email', ADDRESS)).toBeNull();

      const bounced = resendWebhook(
        { type: 'email.bounced', emailId: d0.provider_message_id, reference: d0.idempotency_key, bounceType: 'Permanent' },
        { secrets: [secret], svixId: 'msg_e2e_3', atMs: h!.clock.now() },
      );
      expect((await callback(bounced.rawBody, bounced.headers)).statusCode).toBe(200);
      await h!.evidence.runOnce();
      expect(await h!.store.preferences.getSuppression(h!.tenantId, 'email', ADDRESS)).not.toBeNull();
    });

    it('a lost answer: unknown, resent with the same key by the policy, and Resend answers with the first id (one e-mail)', async () => {
      await start(300);
      resend!.script({ kind: 'accept_then_hang' });
      const sent = await h!.send(emailBody(2));
      await h!.worker.drain();
      expect((await deliveryOf(sent.json.id)).state).toBe('unknown');
      const pass = await h!.reconciler.runOnce();
      expect(pass.resent).toBe(1);
      await h!.worker.drain();
      const d = await deliveryOf(sent.json.id);
      expect(d).toMatchObject({ state: 'accepted', provider_message_id: resend!.emails[0]?.id });
      expect(d.attempts[0]).toMatchObject({ outcome: 'unknown', resolution: 'policy_resend' });
      expect(resend!.emails).toHaveLength(1);
      expect(resend!.received.map((r) => r.idempotencyKey)).toEqual([d.idempotency_key, d.idempotency_key]);
    });
  });

  describe('postmark', () => {
    const start = async (timeoutMs = 2_000) => {
      postmark = await startPostmarkFake({ serverToken: POSTMARK_TOKEN });
      const url = postmark.url;
      h = await createHarness({
        driver,
        timeoutMs,
        account: (a): ProviderAccountConfig =>
          a.channel !== 'email'
            ? a
            : {
                ...a,
                kind: 'postmark',
                base_url: url,
                settings: {
                  server_token: POSTMARK_TOKEN,
                  from: 'Herald <noreply@herald.test>',
                  webhook_username: WEBHOOK.username,
                  webhook_password: WEBHOOK.password,
                },
                ambiguity_policy: 'wait_for_evidence',
                capabilities: { lookup: true, dedupes_by_key: false },
              },
      });
    };

    it('accepted with the MessageID; an authenticated webhook moves the status; wrong credentials are 401 and change nothing', async () => {
      await start();
      const sent = await h!.send(emailBody(3));
      await h!.worker.drain();
      const d0 = await deliveryOf(sent.json.id);
      expect(d0).toMatchObject({ state: 'accepted', provider_message_id: postmark!.messages[0]?.MessageID });
      expect(postmark!.messages[0]).toMatchObject({ MessageStream: 'outbound', Metadata: { herald_reference: d0.idempotency_key } });

      const delivery = postmarkWebhook(postmarkRecords.delivery(d0.provider_message_id, d0.idempotency_key), WEBHOOK);
      expect((await callback(delivery.rawBody, delivery.headers)).statusCode).toBe(200);
      expect((await callback(delivery.rawBody, delivery.headers)).json()).toEqual({ received: 0, duplicates: 1 });
      await h!.evidence.runOnce();
      expect(await deliveryOf(sent.json.id)).toMatchObject({ downstream_status: 'delivered' });

      const forged = postmarkWebhook(postmarkRecords.bounce(d0.provider_message_id, d0.idempotency_key, 'HardBounce'), { ...WEBHOOK, password: 'guess' });
      expect((await callback(forged.rawBody, forged.headers)).statusCode).toBe(401);
      const anonymous = postmarkWebhook(postmarkRecords.bounce(d0.provider_message_id, d0.idempotency_key, 'HardBounce'), null);
      expect((await callback(anonymous.rawBody, anonymous.headers)).statusCode).toBe(401);
      await h!.evidence.runOnce();
      expect(await deliveryOf(sent.json.id)).toMatchObject({ downstream_status: 'delivered' });
      expect(await h!.store.preferences.getSuppression(h!.tenantId, 'email', ADDRESS)).toBeNull();
    });

    it('a lost answer: the look-up by metadata finds the message, accepted with its id, nothing resent', async () => {
      await start(300);
      postmark!.script({ kind: 'accept_then_hang' });
      const sent = await h!.send(emailBody(4));
      await h!.worker.drain();
      expect((await deliveryOf(sent.json.id)).state).toBe('unknown');
      expect(await h!.reconciler.runOnce()).toMatchObject({ foundByLookup: 1, resent: 0 });
      const d = await deliveryOf(sent.json.id);
      expect(d).toMatchObject({ state: 'accepted', provider_message_id: postmark!.messages[0]?.MessageID });
      expect(d.attempts[0]).toMatchObject({ outcome: 'unknown', resolution: 'found_by_lookup' });
      await h!.worker.drain();
      expect(postmark!.received).toHaveLength(1);
    });

    it('a 500 that lost the message: not found once the grace has passed, sent again once', async () => {
      await start();
      postmark!.script({ kind: 'server_error', created: false });
      const sent = await h!.send(emailBody(5, 'marketing'));
      await h!.worker.drain();
      expect((await deliveryOf(sent.json.id)).state).toBe('unknown');
      // Within the grace a "not found" may be Postmark still indexing: asked again later.
      expect(await h!.reconciler.runOnce()).toMatchObject({ notFoundByLookup: 0, deferred: 1 });
      h!.clock.advance(31_000);
      expect(await h!.reconciler.runOnce()).toMatchObject({ notFoundByLookup: 1 });
      // Retryable with the same key, on the purpose's ladder.
      const waiting = await deliveryOf(sent.json.id);
      expect(waiting.state).toBe('retryable');
      h!.clock.set(Date.parse(waiting.next_attempt_at));
      await h!.worker.drain();
      const d = await deliveryOf(sent.json.id);
      expect(d).toMatchObject({ state: 'accepted', provider_message_id: postmark!.messages[0]?.MessageID });
      expect(postmark!.messages).toHaveLength(1);
      expect(postmark!.messages[0]?.MessageStream).toBe('broadcast');
      // Both streams were searched before anything was sent again.
      expect(new Set(postmark!.lookups.map((q) => q.get('messagestream')))).toEqual(new Set(['outbound', 'broadcast']));
    });
  });
});
