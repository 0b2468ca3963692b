/**
 * The staged rollout per provider account (docs/operations.md#staged-rollout), through the
 * whole Herald with the sandbox's faults on both drivers: `shadow` holds a retryable and an
 * unknown and retries neither; `definite_retries` retries a 503 on its ladder and holds an unknown
 * (the reconciler leaves it alone); `full` is today's behaviour. The sandbox's ledger is the
 * referee for how many submissions the provider really received.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RolloutStage } from '../../src/domain/index.js';
import { Reconciler } from '../../src/delivery/reconciler.js';
import { createAdapter } from '../../src/runtime/node.js';
import { createHarness, DRIVERS, otpBody, silentLogger, type Harness } from '../helpers/harness.js';

const MINUTE = 60_000;

describe.each(DRIVERS)('staged rollout on %s', (driver) => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });

  const start = async (stage: RolloutStage | null) => {
    h = await createHarness({ driver, account: (a) => (stage === null ? a : { ...a, rollout: stage }) });
  };
  /** Sends one code with a sandbox fault on its first submission and lets the worker answer it; returns its delivery as GET /v1/deliveries/:id shows it. */
  const sendWith = async (mode: 'server_error' | 'lose_response_after_accept' | 'reject_permanent') => {
    h.sandbox.faults.set({ mode, count: 1 });
    const sent = await h.send(otpBody());
    expect(sent.status).toBe(202);
    await h.worker.drain();
    const n = await h.get(`/v1/notifications/${sent.json.id}`);
    return delivery(n.json.deliveries[0].id);
  };
  const delivery = async (id: string) => {
    const r = await h.get(`/v1/deliveries/${id}`);
    expect(r.status).toBe(200);
    return r.json;
  };
  const review = async (reason?: string) =>
    (await h.get(`/v1/review${reason ? `?reason=${reason}` : ''}`)).json.items.map((d: any) => [d.id, d.state, d.review_reason]);
  /** The review queue's size as herald_review_queue_size reads it (store.observability), to agree with GET /v1/review. */
  const reviewGauge = async () => {
    const now = h.clock.now();
    const state = await h.store.observability.systemState({
      now,
      unknownAfterMs: 15 * MINUTE,
      acceptedProgressAfterMs: 30 * MINUTE,
      healthSince: now - MINUTE,
    });
    return state.deliveries.reduce((n, g) => n + g.inReview, 0);
  };
  const rolloutOf = async (account: string) => {
    const r = await h.get(`/v1/provider-accounts/${account}/rollout`);
    expect(r.status).toBe(200);
    return r.json;
  };

  it('shadow: a 503 ends held (no retry), listed in review, and replay from review sends it once', async () => {
    await start('shadow');
    const d = await sendWith('server_error');
    expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'held', next_attempt_at: null });
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ outcome: 'retryable', decision: { kind: 'review', retry_at: null } });
    // What definite_retries would have done: the code's ladder, 1 s later (jitter only ever delays).
    expect(d.attempts[0].next_stage_decision.kind).toBe('retry_at');
    expect(Date.parse(d.attempts[0].next_stage_decision.retry_at)).toBeGreaterThan(Date.parse(d.attempts[0].finished_at));
    // Nothing is retried automatically, however long we wait.
    h.clock.advance(4 * MINUTE);
    expect((await h.worker.drain()).claimed).toBe(0);
    expect(h.sandbox.ledger.countByKey(d.idempotency_key)).toBe(0);
    expect(await review()).toEqual([[d.id, 'terminal', 'held']]);
    expect(await review('held')).toEqual([[d.id, 'terminal', 'held']]);
    expect(await review('exhausted')).toEqual([]);
    expect(await reviewGauge()).toBe(1);
    // A person replays it from review: same key, no duplicate risk to accept (the 503 was definite).
    const replay = await h.post(`/v1/deliveries/${d.id}/retry`);
    expect(replay.status).toBe(202);
    expect(replay.json.state).toBe('ready');
    await h.worker.drain();
    const after = await delivery(d.id);
    expect(after).toMatchObject({ state: 'accepted', idempotency_key: d.idempotency_key });
    expect(after.attempts[1]).toMatchObject({ outcome: 'accepted', decision: { kind: 'accept' }, next_stage_decision: { kind: 'accept' } });
    expect(h.sandbox.ledger.countByKey(d.idempotency_key)).toBe(1);
    expect(await review()).toEqual([]);
  });

  it('shadow: an unknown stays unknown, is listed in review at once, and the reconciler leaves it alone', async () => {
    await start('shadow');
    const d = await sendWith('lose_response_after_accept');
    expect(d.state).toBe('unknown');
    expect(d.attempts[0]).toMatchObject({ outcome: 'unknown', decision: { kind: 'review' }, next_stage_decision: { kind: 'review' } });
    expect(await review('held')).toEqual([[d.id, 'unknown', 'held']]);
    expect(await reviewGauge()).toBe(1);
    const pass = await h.reconciler.runOnce();
    expect(pass).toMatchObject({ foundByLookup: 0, notFoundByLookup: 0, resent: 0, unresolved: 0, deferred: 0 });
    h.clock.advance(2 * MINUTE);
    await h.reconciler.runOnce();
    expect(await h.worker.drain()).toMatchObject({ claimed: 0 });
    expect((await delivery(d.id)).state).toBe('unknown');
    expect(h.sandbox.ledger.countByKey(d.idempotency_key)).toBe(1);
    // Replay from review needs the duplicate risk accepted, as for any unknown.
    expect((await h.post(`/v1/deliveries/${d.id}/retry`)).status).toBe(409);
    expect((await h.post(`/v1/deliveries/${d.id}/retry`, { accept_duplicate_risk: true })).status).toBe(202);
  });

  it('shadow: a permanent refusal is held too, and the rollout summary shows what definite_retries would change', async () => {
    await start('shadow');
    const rejected = await sendWith('reject_permanent');
    expect(rejected).toMatchObject({ state: 'terminal', terminal_reason: 'held' });
    expect(rejected.attempts[0]).toMatchObject({ outcome: 'permanent', decision: { kind: 'review' }, next_stage_decision: { kind: 'reject' } });
    for (const mode of ['server_error', 'lose_response_after_accept', 'server_error'] as const) await sendWith(mode);
    const account = rejected.provider_account as string;
    const accounts = (await h.get('/v1/provider-accounts')).json.items;
    expect(accounts.find((a: any) => a.id === account).rollout).toBe('shadow');
    const summary = await rolloutOf(account);
    expect(summary).toMatchObject({ id: account, stage: 'shadow', next_stage: 'definite_retries', decided_attempts: 4, would_change: 3 });
    expect(summary.changes).toEqual([
      { decision: 'review', next_stage_decision: 'reject', attempts: 1 },
      { decision: 'review', next_stage_decision: 'retry_at', attempts: 2 },
    ]);
    expect(summary.decisions).toContainEqual({ decision: 'review', next_stage_decision: 'review', attempts: 1 });
    // Outside the 24 h window nothing is counted.
    h.clock.advance(24 * 60 * MINUTE + 1);
    expect(await rolloutOf(account)).toMatchObject({ decided_attempts: 0, would_change: 0, changes: [] });
    expect((await h.get('/v1/provider-accounts/nope/rollout')).status).toBe(404);
  });

  it('definite_retries: a 503 retries on its ladder; an unknown is held and the reconciler leaves it alone', async () => {
    await start('definite_retries');
    const d = await sendWith('server_error');
    expect(d.state).toBe('retryable');
    expect(d.attempts[0].decision).toEqual(d.attempts[0].next_stage_decision);
    expect(d.attempts[0].decision).toEqual({ kind: 'retry_at', retry_at: d.next_attempt_at });
    h.clock.set(Date.parse(d.next_attempt_at));
    await h.worker.drain();
    expect((await delivery(d.id)).state).toBe('accepted');
    expect(h.sandbox.ledger.countByKey(d.idempotency_key)).toBe(1);

    const u = await sendWith('lose_response_after_accept');
    expect(u.state).toBe('unknown');
    // The sandbox can be looked up: at full the reconciler would look it up.
    expect(u.attempts[0]).toMatchObject({ decision: { kind: 'review' }, next_stage_decision: { kind: 'reconcile_lookup' } });
    expect(await h.reconciler.runOnce()).toMatchObject({ foundByLookup: 0, deferred: 0 });
    expect((await delivery(u.id)).state).toBe('unknown');
    expect(await review()).toEqual([[u.id, 'unknown', 'held']]);
    const summary = await rolloutOf(u.provider_account);
    expect(summary).toMatchObject({ stage: 'definite_retries', next_stage: 'full', would_change: 1 });
    expect(summary.changes).toEqual([{ decision: 'review', next_stage_decision: 'reconcile_lookup', attempts: 1 }]);
  });

  it('promoting to full (a restarted reconciler with the new configuration) hands the held unknown to reconciliation', async () => {
    await start('definite_retries');
    const u = await sendWith('lose_response_after_accept');
    expect(await h.reconciler.runOnce()).toMatchObject({ foundByLookup: 0 });
    const promoted = h.config.provider_accounts.map((a) => ({ ...a, rollout: 'full' as const }));
    const adapters = new Map(promoted.map((a) => [a.id, createAdapter(a, h.config.public_url)] as const));
    try {
      const reconciler = new Reconciler({ store: h.store, clock: h.clock, logger: silentLogger, adapters, accounts: promoted, random: () => 0.5 });
      expect(await reconciler.runOnce()).toMatchObject({ foundByLookup: 1 });
    } finally {
      await Promise.allSettled([...adapters.values()].map((a) => a.close()));
    }
    const d = await delivery(u.id);
    expect(d.state).toBe('accepted');
    expect(d.attempts[0]).toMatchObject({ decision: { kind: 'review' }, resolution: 'found_by_lookup' });
    expect(h.sandbox.ledger.countByKey(d.idempotency_key)).toBe(1);
    expect(await review()).toEqual([]);
  });

  it('full (the default): a 503 retries, an unknown is looked up and settled; nothing is held', async () => {
    await start(null);
    const d = await sendWith('server_error');
    expect(d.state).toBe('retryable');
    expect(d.attempts[0].decision).toEqual({ kind: 'retry_at', retry_at: d.next_attempt_at });
    expect(d.attempts[0].next_stage_decision).toEqual(d.attempts[0].decision);
    const u = await sendWith('lose_response_after_accept');
    expect(u.attempts[0]).toMatchObject({ decision: { kind: 'reconcile_lookup' }, next_stage_decision: { kind: 'reconcile_lookup' } });
    expect(await h.reconciler.runOnce()).toMatchObject({ foundByLookup: 1 });
    expect((await delivery(u.id)).state).toBe('accepted');
    expect(await review()).toEqual([]);
    const summary = await rolloutOf(u.provider_account);
    expect(summary).toMatchObject({ stage: 'full', next_stage: 'full', would_change: 0, changes: [] });
    expect((await h.get('/v1/provider-accounts')).json.items.every((a: any) => a.rollout === 'full')).toBe(true);
    const bad = await h.get('/v1/review?reason=bogus');
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('validation_failed');
  });
});
