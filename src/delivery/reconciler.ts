/**
 * The reconciler: settles `unknown` deliveries with evidence instead of guesses. For an
 * account whose provider can be asked (`capabilities.lookup`), it looks the delivery up by its
 * stable reference: found → `accepted`; authoritatively not found once the grace period has
 * passed (the provider may still be processing) → `retryable` with the same key; no answer →
 * ask again later. For an account without look-up it applies the account's ambiguity policy
 * (`decide`'s `ambiguity_policy` event). Either way, evidence that never comes ends in
 * `terminal/unresolved` when the account's evidence window closes, and the review queue lists
 * it. Callbacks (the evidence applier) may settle a delivery first; every write is guarded.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import {
  ambiguityPolicyFor,
  decide,
  DEFAULT_ROLLOUT_STAGE,
  ladderFor,
  type AmbiguityPolicy,
  type DeliveryEvent,
  type Random,
  type RetryPolicy,
} from '../domain/index.js';
import type { DeliveryCounters } from '../metrics/counters.js';
import type { LookupResult, ProviderAccountConfig, ProviderAdapter } from '../providers/provider.js';
import type { LookupRecord, UnknownDelivery } from '../store/evidence-store.js';
import type { AttemptResolution, FailoverMove, Store } from '../store/store.js';
import { LoopService } from '../periodic/loop-service.js';
import { Failover, type FailoverRouting } from './failover.js';
import { countFailover } from './outcome-counts.js';

export interface ReconcilerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Adapters of the accounts this process reconciles (a worker's). */
  adapters: ReadonlyMap<string, ProviderAdapter>;
  accounts: readonly ProviderAccountConfig[];
  random?: Random;
  intervalMs?: number;
  batchSize?: number;
  /** The process's counters: a move after an `unknown` (accept_duplicate) is counted in `herald_failovers_total`. */
  counters?: DeliveryCounters;
  /** Wakes the claim loops of an account that has a resend due. */
  wake?: (providerAccount: string) => void;
  /**
   * Routes and their health (docs/routing.md): with them, the resend `accept_duplicate` allows
   * goes to the next healthy account of the delivery's route, recorded on the attempt.
   */
  routing?: FailoverRouting | null;
}

export interface ReconcilePass {
  foundByLookup: number;
  notFoundByLookup: number;
  resent: number;
  unresolved: number;
  deferred: number;
}

/** Defaults, in seconds: evidence may take an hour (SMS delivery reports often take minutes); a look-up's "not found" counts after 30 s. */
export const DEFAULT_EVIDENCE_WINDOW_S = 3_600;
export const DEFAULT_LOOKUP_GRACE_S = 30;
/** After a look-up that got no authoritative answer, ask again this much later. */
const LOOKUP_RETRY_MS = 15_000;
/** Look-ups in flight at once per pass: well under a provider's request budget. */
const LOOKUP_CONCURRENCY = 8;

export class Reconciler extends LoopService {
  private readonly accounts: Map<string, ProviderAccountConfig>;
  private readonly random: Random;
  private readonly failover: Failover | null;

  constructor(private readonly opts: ReconcilerOptions) {
    super({ intervalMs: opts.intervalMs ?? 1_000, logger: opts.logger, what: 'reconciliation pass' });
    this.accounts = new Map(opts.accounts.map((a) => [a.id, a]));
    this.random = opts.random ?? Math.random;
    this.failover = opts.routing ? new Failover(opts.routing, this.accounts, opts.store) : null;
  }

  /** Looks at every `unknown` delivery due for reconciliation now; resolves with what it did. */
  override async runOnce(): Promise<ReconcilePass> {
    const now = this.opts.clock.now();
    const pass: ReconcilePass = { foundByLookup: 0, notFoundByLookup: 0, resent: 0, unresolved: 0, deferred: 0 };
    // Only accounts at the `full` rollout stage are reconciled: below it an `unknown` is held for a
    // person (listed in review at once), with no look-up and no ambiguity policy. Promoting an
    // account to `full` hands its held `unknown` deliveries to this pass.
    const reconciled = [...this.opts.adapters.keys()].filter((id) => (this.accounts.get(id)?.rollout ?? DEFAULT_ROLLOUT_STAGE) === 'full');
    if (reconciled.length === 0) return pass;
    const due = await this.opts.store.evidence.listUnknownDue({ now, limit: this.opts.batchSize ?? 200, providerAccounts: reconciled });
    for (let i = 0; i < due.length; i += LOOKUP_CONCURRENCY) {
      await Promise.all(due.slice(i, i + LOOKUP_CONCURRENCY).map((u) => this.reconcile(u, now, pass)));
    }
    return pass;
  }

  private async reconcile(u: UnknownDelivery, now: number, pass: ReconcilePass): Promise<void> {
    const adapter = this.opts.adapters.get(u.providerAccount);
    const account = this.accounts.get(u.providerAccount);
    if (!adapter || !account) return;
    const windowEnds = u.unknownSince + (account.evidence_window_seconds ?? DEFAULT_EVIDENCE_WINDOW_S) * 1000;
    if (adapter.capabilities.lookup && adapter.lookup) {
      const result = await adapter
        .lookup({ idempotencyKey: u.idempotencyKey, channel: u.channel })
        .catch((err): LookupResult => ({ kind: 'error', code: 'adapter_error', message: err instanceof Error ? err.name : 'lookup failed' }));
      // The clock again: a slow look-up must not decide with a stale `now`.
      const at = this.opts.clock.now();
      // Every look-up is recorded with the write it leads to (the delivery's evidence shows it).
      const answer = result.kind === 'found' ? 'found' : result.kind === 'not_found' ? 'not_found' : 'no_answer';
      const lookup = (ledTo: LookupRecord['ledTo']): LookupRecord => ({
        at,
        result: answer,
        ledTo,
        providerMessageId: result.kind === 'found' ? result.providerMessageId : null,
        errorCode: result.kind === 'error' ? result.code : null,
      });
      if (result.kind === 'found') {
        const ev: DeliveryEvent = { type: 'evidence', found: true, providerMessageId: result.providerMessageId };
        if (await this.resolve(u, ev, at, null, 'found_by_lookup', lookup('accepted'))) pass.foundByLookup++;
        return;
      }
      const graceEnds = u.unknownSince + (account.lookup_grace_seconds ?? DEFAULT_LOOKUP_GRACE_S) * 1000;
      if (result.kind === 'not_found' && at >= graceEnds) {
        const ev: DeliveryEvent = { type: 'evidence', found: false, authoritative: true, windowClosed: false };
        if (await this.resolve(u, ev, at, null, 'not_found_by_lookup', lookup('retryable'))) pass.notFoundByLookup++;
        return;
      }
      if (at >= windowEnds) {
        const ev: DeliveryEvent = { type: 'evidence', found: false, authoritative: false, windowClosed: true };
        if (await this.resolve(u, ev, at, null, 'window_closed', lookup('unresolved'))) pass.unresolved++;
        return;
      }
      if (result.kind === 'error')
        this.opts.logger.warn({ deliveryId: u.deliveryId, code: result.code }, 'look-up gave no authoritative answer; asking again later');
      const next = result.kind === 'not_found' ? graceEnds : Math.min(at + LOOKUP_RETRY_MS, windowEnds);
      await this.defer(u, next, null, lookup('asked_later'), pass);
      return;
    }
    await this.applyPolicy(u, ambiguityPolicyFor(u.purpose, account.ambiguity_policy, account.ambiguity_policies), adapter, windowEnds, now, pass);
  }

  /** No look-up: the account's ambiguity policy decides, and is recorded on the attempt. */
  private async applyPolicy(
    u: UnknownDelivery,
    configured: AmbiguityPolicy,
    adapter: ProviderAdapter,
    windowEnds: number,
    now: number,
    pass: ReconcilePass,
  ): Promise<void> {
    let policy = configured;
    if (policy === 'resend_same_key' && !adapter.capabilities.dedupesByKey) {
      // Configuration checks refuse this; if it happens anyway, never resend on a provider that would send twice.
      this.opts.logger.error({ providerAccount: u.providerAccount }, 'resend_same_key on a provider that does not dedupe by key; waiting for evidence instead');
      policy = 'wait_for_evidence';
    }
    const ev: DeliveryEvent = { type: 'ambiguity_policy', policy, dedupesByKey: adapter.capabilities.dedupesByKey, windowClosed: now >= windowEnds };
    const resolution: AttemptResolution = policy === 'wait_for_evidence' ? 'window_closed' : policy === 'user_resend' ? 'policy_user_resend' : 'policy_resend';
    const d = decide(this.snapshot(u), ev, { now, policy: this.retryPolicy(u), random: this.random });
    if (!d.ok) {
      // wait_for_evidence with the window open: look again when it closes (a callback may settle it first).
      await this.defer(u, windowEnds, policy, null, pass);
      return;
    }
    // The one move after an `unknown`: the account's policy already accepts a duplicate, so the
    // resend may go to the next healthy account of the route; the attempt records why.
    const move = d.to === 'retryable' && policy === 'accept_duplicate' ? await this.moveAfterUnknown(u, now) : null;
    if (!(await this.write(u, d, now, policy, resolution, null, move))) return;
    if (move && this.opts.counters) countFailover(this.opts.counters, u, move);
    if (d.to === 'retryable') {
      pass.resent++;
      this.opts.wake?.(move?.to ?? u.providerAccount);
    } else pass.unresolved++;
  }

  private async resolve(
    u: UnknownDelivery,
    ev: DeliveryEvent,
    now: number,
    policy: AmbiguityPolicy | null,
    resolution: AttemptResolution,
    lookup: LookupRecord,
  ): Promise<boolean> {
    const d = decide(this.snapshot(u), ev, { now, policy: this.retryPolicy(u), random: this.random });
    if (!d.ok) return false;
    const ok = await this.write(u, d, now, policy, resolution, lookup);
    if (ok && d.to === 'retryable') this.opts.wake?.(u.providerAccount);
    return ok;
  }

  private write(
    u: UnknownDelivery,
    transition: Extract<ReturnType<typeof decide>, { ok: true }>,
    now: number,
    policy: AmbiguityPolicy | null,
    resolution: AttemptResolution,
    lookup: LookupRecord | null = null,
    move: FailoverMove | null = null,
  ): Promise<boolean> {
    return this.opts.store.evidence.resolveUnknown({
      write: { deliveryId: u.deliveryId, expect: { state: 'unknown', leaseVersion: u.leaseVersion }, transition, now, ...(move ? { move } : {}) },
      attemptNumber: u.attemptCount,
      policy,
      resolution,
      lookup,
    });
  }

  /** Where an `unknown` under `accept_duplicate` resends, when its route has another healthy account (null: the same account). */
  private async moveAfterUnknown(u: UnknownDelivery, now: number): Promise<FailoverMove | null> {
    if (!this.failover) return null;
    const outcome = { kind: 'unknown', code: 'unresolved_ambiguity', message: 'the first submission may have arrived' } as const;
    const [move] = await this.failover.movesFor([{ subject: u, outcome, ctx: { now, overRetryBudget: false, ladderDelayMs: 0 } }]);
    return move ?? null;
  }

  /** Looks at the delivery again at `at` (guarded by its lease version), recording the policy and the look-up that found no answer yet; counted when it held. */
  private async defer(u: UnknownDelivery, at: number, policy: AmbiguityPolicy | null, lookup: LookupRecord | null, pass: ReconcilePass): Promise<void> {
    const deferred = await this.opts.store.evidence.deferReconcile({
      deliveryId: u.deliveryId,
      leaseVersion: u.leaseVersion,
      at,
      attemptNumber: u.attemptCount,
      policy,
      lookup,
    });
    if (deferred) pass.deferred++;
  }

  private snapshot(u: UnknownDelivery) {
    return { state: 'unknown' as const, attemptCount: u.attemptCount, expiresAt: u.expiresAt, nextAttemptAt: null };
  }

  /** The ladder a retry follows: the notification's choice, else the account's for the purpose, else the purpose's. */
  private retryPolicy(u: UnknownDelivery): RetryPolicy {
    return ladderFor(u.purpose, u.retryLadder, this.accounts.get(u.providerAccount)?.retry_ladders);
  }
}
