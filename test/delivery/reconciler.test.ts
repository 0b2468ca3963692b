/**
 * The reconciler settles `unknown` with evidence: a look-up by reference where the provider
 * offers one, else the provider account's ambiguity policy. The sandbox's ledger is the
 * referee for how many submissions the provider really received.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AmbiguityPolicy } from '../../src/domain/index.js';
import { createHarness, DRIVERS, otpBody, type Harness, type HarnessOptions } from '../helpers/harness.js';

const SECOND = 1_000;

describe.each(DRIVERS)('reconciler on %s', (driver) => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });

  const start = async (opts: Omit<HarnessOptions, 'driver'> = {}) => {
    h = await createHarness({ driver, ...opts });
  };
  const deliveryOf = async (notificationId: string) => {
    const r = await h.get(`/v1/notifications/${notificationId}`);
    expect(r.status).toBe(200);
    return r.json.deliveries[0];
  };
  /** Sends one OTP whose provider response is lost (accepted and recorded, never answered); returns its delivery. */
  const sendLost = async (mode: 'lose_response_after_accept' | 'timeout_before_accept' = 'lose_response_after_accept') => {
    h.sandbox.faults.set({ mode, count: 1 });
    const sent = await h.send(otpBody());
    expect(sent.status).toBe(202);
    await h.worker.drain();
    const d = await deliveryOf(sent.json.id);
    expect(d.state).toBe('unknown');
    return { id: sent.json.id as string, key: d.idempotency_key as string };
  };

  describe('with look-up (the sandbox answers by reference)', () => {
    it('lost response after accept: unknown, then found by look-up: accepted with the provider id; one submission in the ledger', async () => {
      await start();
      const { id, key } = await sendLost();
      const pass = await h.reconciler.runOnce();
      expect(pass.foundByLookup).toBe(1);
      const d = await deliveryOf(id);
      expect(d.state).toBe('accepted');
      expect(d.provider_message_id).toBe(h.sandbox.ledger.entries({ idempotency_key: key })[0]!.provider_message_id);
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0]).toMatchObject({ outcome: 'unknown', resolution: 'found_by_lookup' });
      expect(h.sandbox.ledger.countByKey(key)).toBe(1);
      // Nothing left to send or reconcile.
      expect((await h.worker.drain()).claimed).toBe(0);
      expect(await h.reconciler.runOnce()).toMatchObject({ foundByLookup: 0, deferred: 0 });
      expect(h.sandbox.ledger.countByKey(key)).toBe(1);
    });

    it('timeout before accept: not found counts only after the grace period, then a retry with the same key', async () => {
      await start();
      const { id, key } = await sendLost('timeout_before_accept');
      expect(h.sandbox.ledger.countByKey(key)).toBe(0);
      // Within the grace period "not found" may only mean "not processed yet": wait.
      expect(await h.reconciler.runOnce()).toMatchObject({ notFoundByLookup: 0, deferred: 1 });
      expect((await deliveryOf(id)).state).toBe('unknown');
      h.clock.advance(29 * SECOND);
      expect(await h.reconciler.runOnce()).toMatchObject({ notFoundByLookup: 0, deferred: 0 }); // deferred to grace end
      h.clock.advance(1 * SECOND);
      expect(await h.reconciler.runOnce()).toMatchObject({ notFoundByLookup: 1 });
      const retry = await deliveryOf(id);
      expect(retry.state).toBe('retryable');
      expect(retry.attempts[0].resolution).toBe('not_found_by_lookup');
      h.clock.set(Date.parse(retry.next_attempt_at));
      await h.worker.drain();
      const d = await deliveryOf(id);
      expect(d.state).toBe('accepted');
      expect(d.idempotency_key).toBe(key);
      expect(h.sandbox.ledger.countByKey(key)).toBe(1);
    });

    it('a look-up that gets no answer asks again later, and the evidence window ends it unresolved (review queue)', async () => {
      await start({ account: (a) => ({ ...a, evidence_window_seconds: 60 }) });
      const { id, key } = await sendLost('timeout_before_accept');
      h.sandbox.faults.set({ mode: 'lookup_unavailable', probability: 1 });
      expect(await h.reconciler.runOnce()).toMatchObject({ deferred: 1 });
      h.clock.advance(15 * SECOND);
      expect(await h.reconciler.runOnce()).toMatchObject({ deferred: 1 });
      expect((await deliveryOf(id)).state).toBe('unknown');
      h.clock.advance(60 * SECOND);
      expect(await h.reconciler.runOnce()).toMatchObject({ unresolved: 1 });
      const d = await deliveryOf(id);
      expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'unresolved' });
      expect(d.attempts[0].resolution).toBe('window_closed');
      const review = await h.get('/v1/review');
      expect(review.json.items.map((i: { id: string }) => i.id)).toContain(d.id);
      expect(h.sandbox.ledger.countByKey(key)).toBe(0);
    });
  });

  describe('without look-up: the account ambiguity policy, recorded on the attempt', () => {
    const noLookup =
      (policy: AmbiguityPolicy, extra: Record<string, unknown> = {}) =>
      (a: Parameters<NonNullable<HarnessOptions['account']>>[0]) => ({
        ...a,
        ambiguity_policy: policy,
        capabilities: { lookup: false, ...extra },
        evidence_window_seconds: 120,
      });

    it('wait_for_evidence: waits (no resend) until the window closes, then terminal/unresolved', async () => {
      await start({ account: noLookup('wait_for_evidence') });
      const { id, key } = await sendLost();
      expect(await h.reconciler.runOnce()).toMatchObject({ deferred: 1, resent: 0, unresolved: 0 });
      let d = await deliveryOf(id);
      expect(d.state).toBe('unknown');
      expect(d.attempts[0]).toMatchObject({ ambiguity_policy: 'wait_for_evidence', resolution: null });
      h.clock.advance(119 * SECOND);
      expect(await h.reconciler.runOnce()).toMatchObject({ deferred: 0, unresolved: 0 });
      expect((await h.worker.drain()).claimed).toBe(0);
      h.clock.advance(1 * SECOND);
      expect(await h.reconciler.runOnce()).toMatchObject({ unresolved: 1 });
      d = await deliveryOf(id);
      expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'unresolved' });
      expect(d.attempts[0]).toMatchObject({ ambiguity_policy: 'wait_for_evidence', resolution: 'window_closed' });
      expect(h.sandbox.ledger.countByKey(key)).toBe(1);
    });

    it('user_resend: terminal/unresolved at once, in the review queue, and a person can resend it as a new generation', async () => {
      await start({ account: noLookup('user_resend') });
      const { id, key } = await sendLost();
      expect(await h.reconciler.runOnce()).toMatchObject({ unresolved: 1 });
      const d = await deliveryOf(id);
      expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'unresolved' });
      expect(d.attempts[0]).toMatchObject({ ambiguity_policy: 'user_resend', resolution: 'policy_user_resend' });
      const review = await h.get('/v1/review');
      expect(review.json.items.find((i: { id: string }) => i.id === d.id)).toMatchObject({ review_reason: 'unresolved' });
      const resent = await h.post(`/v1/notifications/${id}/resend`);
      expect(resent.status).toBe(202);
      await h.worker.drain();
      const again = await deliveryOf(resent.json.id);
      expect(again.state).toBe('accepted');
      expect(again.idempotency_key).not.toBe(key);
      expect(h.sandbox.ledger.countByKey(key)).toBe(1);
    });

    it('resend_same_key on a provider that dedupes by key: resent at once, and the provider still has one message', async () => {
      await start({ account: noLookup('resend_same_key', { dedupes_by_key: true }) });
      h.sandbox.behaviour.set({ dedupe_by_key: true });
      const { id, key } = await sendLost();
      const original = h.sandbox.ledger.entries({ idempotency_key: key })[0]!;
      expect(await h.reconciler.runOnce()).toMatchObject({ resent: 1 });
      const between = await deliveryOf(id);
      expect(between.state).toBe('retryable');
      expect(between.attempts[0]).toMatchObject({ ambiguity_policy: 'resend_same_key', resolution: 'policy_resend' });
      await h.worker.drain();
      const d = await deliveryOf(id);
      expect(d.state).toBe('accepted');
      expect(d.attempts).toHaveLength(2);
      expect(d.provider_message_id).toBe(original.provider_message_id);
      expect(h.sandbox.ledger.countByKey(key)).toBe(1);
    });

    it('accept_duplicate: resent at once; the ledger shows the duplicate the account accepted', async () => {
      await start({ account: noLookup('accept_duplicate') });
      const { id, key } = await sendLost();
      expect(await h.reconciler.runOnce()).toMatchObject({ resent: 1 });
      await h.worker.drain();
      const d = await deliveryOf(id);
      expect(d.state).toBe('accepted');
      expect(d.attempts[0]).toMatchObject({ ambiguity_policy: 'accept_duplicate', resolution: 'policy_resend' });
      expect(h.sandbox.ledger.countByKey(key)).toBe(2);
    });

    it('accept_duplicate never resends past expiry: the delivery ends expired', async () => {
      await start({ account: noLookup('accept_duplicate') });
      const { id, key } = await sendLost();
      h.clock.advance(300 * SECOND); // the OTP's TTL
      await h.reconciler.runOnce();
      const d = await deliveryOf(id);
      expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'expired' });
      expect((await h.worker.drain()).claimed).toBe(0);
      expect(h.sandbox.ledger.countByKey(key)).toBe(1);
    });

    it('a per-purpose policy wins for its purpose: an alert resends (accept_duplicate) while a code on the same account waits for evidence', async () => {
      await start({ account: (a) => ({ ...noLookup('wait_for_evidence')(a), ambiguity_policies: { alert: 'accept_duplicate' } }) });
      const code = await sendLost();
      h.sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
      const sent = await h.send(otpBody({ purpose: 'alert', content: { text: 'disk full on db-1' } }));
      await h.worker.drain();
      const alert = { id: sent.json.id as string, key: (await deliveryOf(sent.json.id)).idempotency_key as string };
      expect(await h.reconciler.runOnce()).toMatchObject({ resent: 1 });
      await h.worker.drain();
      const a = await deliveryOf(alert.id);
      expect(a.state).toBe('accepted');
      expect(a.attempts[0]).toMatchObject({ ambiguity_policy: 'accept_duplicate', resolution: 'policy_resend' });
      expect(h.sandbox.ledger.countByKey(alert.key)).toBe(2);
      const c = await deliveryOf(code.id);
      expect(c.state).toBe('unknown');
      expect(h.sandbox.ledger.countByKey(code.key)).toBe(1);
      const accounts = await h.get('/v1/provider-accounts');
      const sms = (accounts.json.items as Array<{ id: string; ambiguity_policies: Record<string, string> }>).find((x) => x.id === 'sandbox-sms')!;
      expect(sms.ambiguity_policies).toMatchObject({ otp: 'wait_for_evidence', alert: 'accept_duplicate', marketing: 'wait_for_evidence' });
    });

    it('shows each account’s ambiguity policy in the API', async () => {
      await start({ account: noLookup('user_resend') });
      const r = await h.get('/v1/provider-accounts');
      expect(r.status).toBe(200);
      for (const a of r.json.items ?? r.json) expect(a.ambiguity_policy).toBe('user_resend');
    });
  });
});
