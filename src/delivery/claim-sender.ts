/**
 * The one claim → call → record path, shared by the worker's claim loops and the API process's
 * code fast path: claim a batch on one lane (attempt rows and leases committed, permits from the
 * shared limiter), call the provider for each claimed delivery concurrently, decide every outcome
 * with the domain's `decide`, and write all outcomes in one guarded batch. Persist before the call;
 * never resend on ambiguity; a write the fencing token refuses is kept on the attempt as a late
 * outcome. It has no loop of its own: the worker (worker.ts) loops over it; the fast path
 * (otp-fast-path.ts) calls `sendNow` for the deliveries it has just committed.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import {
  arrivalAllowanceMs,
  callDeadline,
  callWindowShort,
  decideAtStage,
  ladderFor,
  smsText,
  contentForChannel,
  leaseCoversCall,
  lastUsefulCall,
  leaseMarginMs,
  madeNoCall,
  plannedDelayMs,
  PURPOSES,
  type Channel,
  type MessageContent,
  type LadderName,
  type Purpose,
  type Random,
  type RetryPolicy,
  type SubmitOutcome,
} from '../domain/index.js';
import { claimGroups, workerLanes, type WorkerLane } from './worker-lanes.js';
import { RolloutOfAccounts } from './rollout-of-accounts.js';
import type { DeliveryCounters } from '../metrics/counters.js';
import type { ProviderAccountConfig, ProviderAdapter } from '../providers/provider.js';
import type { ClaimedDelivery, ClaimRequest, FailoverMove, HoldWrite, Store, TransitionWrite } from '../store/store.js';
import { SchedulingPolicies } from './scheduling-policies.js';
import { SendTimeChecks, type UnsubscribeHeaderBuilder } from './send-time-checks.js';
import { TenantShares } from './tenant-shares.js';
import { RetryBudgets } from './retry-budget.js';
import { ProviderHealthRecorder } from './provider-health.js';
import { PushTargetRetirement } from './push-target-retirement.js';
import { LateOutcomes } from './late-outcomes.js';
import { countApplied } from './outcome-counts.js';
import { Failover, type FailoverRouting } from './failover.js';

export interface ClaimSenderOptions {
  store: Store;
  /** One adapter per provider account id this worker serves. */
  adapters: Map<string, ProviderAdapter>;
  clock: Clock;
  workerId: string;
  logger: Logger;
  /** The configuration's `worker:` section, defaults filled in there: the worker has none of its own. */
  settings: WorkerSettings;
  /** The retry policy for a claimed delivery. Default: the ladder of its purpose (src/domain/ladders.ts). */
  policyFor?: (claim: ClaimedDelivery) => RetryPolicy;
  /** Provider accounts' ladder choices per purpose, replacing `accounts[].retry_ladders` (tests use it). */
  ladderOverrides?: ReadonlyMap<string, Partial<Record<Purpose, LadderName>>>;
  random?: Random;
  /** The process's delivery counters (api_attempts, accepted/ambiguous submissions, expired challenges). Default: none kept. */
  counters?: DeliveryCounters;
  /**
   * The accounts' configuration (rate, burst, lanes). With it, every call takes a permit from
   * the shared limiter in the store and claims are made per lane; without it (some tests), one
   * unlimited lane per account.
   */
  accounts?: readonly ProviderAccountConfig[];
  /** Builds the one-click unsubscribe header fields put in marketing e-mail (from config `public_url`). Without it, none are added. */
  unsubscribeLinks?: UnsubscribeHeaderBuilder | null;
  /**
   * The tenants' quiet hours and frequency caps, checked after every claim (docs/scheduling.md).
   * Default: read from the store over the issue's defaults (SchedulingPolicies); null turns
   * time-aware sending off.
   */
  scheduling?: SchedulingPolicies | null;
  /**
   * Routes and their health (docs/routing.md): with them, a delivery whose answer another account
   * of its route could overcome moves to the next healthy one, in the write that schedules its
   * retry. Without them (or a route of one account), every delivery stays on its account.
   */
  routing?: FailoverRouting | null;
}

/**
 * What the worker reads of the configuration's `worker:` section (config/config-schema.ts,
 * WorkerSection, where the defaults are): `config.worker` is passed as it is.
 */
export interface WorkerSettings {
  batch_size: number;
  loops_per_account: number;
  lease_ms: number;
  poll_interval_ms: number;
}

/**
 * Per claimed delivery, the end of the lease this worker still holds: the claim's, moved on by
 * each renewal that counted; absent once a renewal found it rescued. (Today a batch's calls all
 * start as its renewals begin, so their checks see the claim's own lease end; a call started
 * later would see what the renewals left.)
 */

type HeldLeases = Map<string, number>;

/** A lease to renew: the delivery and the fencing token it was claimed under. */
type LeaseRef = { deliveryId: string; leaseVersion: number };

export interface BatchResult {
  claimed: number;
  applied: number;
  /** Outcomes refused by the fencing token: the lease had already been rescued. */
  stale: number;
  /** Set when the rate limiter, not the queue, cut the claim short: when permits are available again. */
  permitsAt?: number | null;
}

/** Claims, calls and records batches on the lanes of the accounts it has adapters for; see the file header. */
export class ClaimSender {
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly policyFor: (claim: ClaimedDelivery) => RetryPolicy;
  private readonly random: Random;
  /** Per account, its lanes with their purposes, batch size and limits. */
  private readonly lanes: Map<string, WorkerLane[]>;
  /** Opt-outs and suppressions, checked after every claim and before any call. */
  private readonly checks: SendTimeChecks;
  /** Per account, its calls' timeout (`timeout_ms`): a call starts only if its lease covers it. */
  private readonly timeouts: Map<string, number>;
  /** Per account, its rollout stage and how its `unknown` answers are settled at `full`. */
  private readonly rollout: RolloutOfAccounts;
  /** The accounts' configuration, by id (rate and burst for the tenants' rows). */
  private readonly configs: Map<string, ProviderAccountConfig>;
  /** Per account, the tenants' rate shares, re-read every few seconds. */
  private readonly shares: TenantShares;
  /** Per account, its retry budget from the health buckets, re-read every few seconds. */
  private readonly budgets: RetryBudgets;
  /** Each batch's calls into the account's health bucket. */
  private readonly health: ProviderHealthRecorder;
  /** Push targets a push service said are gone. */
  private readonly pushTargets: PushTargetRetirement;
  /** Outcomes fenced off by a rescue, kept as evidence. */
  private readonly late: LateOutcomes;
  /** Per account and lane, how many claim rounds with shares it made: which group goes first. */
  private readonly turns = new Map<string, number>();
  /** Where a delivery goes after an answer another account of its route could overcome; null without routes. */
  private readonly failover: Failover | null;

  constructor(private readonly opts: ClaimSenderOptions) {
    this.batchSize = opts.settings.batch_size;
    this.leaseMs = opts.settings.lease_ms;
    const configs = new Map((opts.accounts ?? []).map((a) => [a.id, a] as const));
    this.configs = configs;
    // Without an account's configuration (tests with in-process fakes) its timeout is unknown:
    // the lease check then keeps only the margin.
    this.timeouts = new Map([...opts.adapters.keys()].map((id) => [id, configs.get(id)?.timeout_ms ?? 0] as const));
    for (const [id, timeoutMs] of this.timeouts) {
      // Configuration refuses this too (config.ts); a worker built by hand must not start a loop that can never send.
      if (!leaseCoversCall(this.leaseMs, timeoutMs)) {
        throw new Error(
          `a ${this.leaseMs} ms lease cannot cover a call to provider account ${id}: its timeout_ms (${timeoutMs}) + the lease margin (${leaseMarginMs(this.leaseMs)}) must be less than the lease, or nothing could ever be sent`,
        );
      }
    }
    // The notification's choice, else the provider account's for the purpose, else the purpose's own.
    this.policyFor =
      opts.policyFor ??
      ((c) => ladderFor(c.purpose, c.retryLadder, opts.ladderOverrides?.get(c.providerAccount) ?? configs.get(c.providerAccount)?.retry_ladders));
    this.random = opts.random ?? Math.random;
    this.rollout = new RolloutOfAccounts(configs, opts.adapters);
    this.checks = new SendTimeChecks({
      store: opts.store,
      clock: opts.clock,
      logger: opts.logger,
      links: opts.unsubscribeLinks ?? null,
      scheduling: opts.scheduling === undefined ? new SchedulingPolicies(opts.store, opts.clock) : opts.scheduling,
      usefulUntil: (c) => this.lastUsefulCall(c),
    });
    this.shares = new TenantShares(opts.store, opts.clock);
    this.budgets = new RetryBudgets(opts.store, opts.logger);
    this.health = new ProviderHealthRecorder(opts.store, opts.logger);
    this.pushTargets = new PushTargetRetirement(opts.store, opts.logger);
    this.late = new LateOutcomes({
      store: opts.store,
      logger: opts.logger,
      ...(opts.counters ? { counters: opts.counters } : {}),
      policyFor: this.policyFor,
      random: this.random,
    });
    this.failover = opts.routing ? new Failover(opts.routing, configs, opts.store) : null;
    this.lanes = new Map(
      [...opts.adapters.keys()].map((id) => [id, workerLanes(configs.get(id), { batchSize: this.batchSize, loops: opts.settings.loops_per_account })] as const),
    );
  }

  /** The accounts this sender has adapters for. */
  accounts(): IterableIterator<string> {
    return this.opts.adapters.keys();
  }

  /** The account's lanes (purposes, batch size, limits). */
  lanesOf(providerAccount: string): readonly WorkerLane[] {
    const lanes = this.lanes.get(providerAccount);
    if (!lanes) throw new Error(`no adapter for provider account ${providerAccount}`);
    return lanes;
  }

  /**
   * Claims and processes these deliveries only (the API process's fast path for a code it has
   * just committed), in the lane that carries `purpose`, exactly as a claim loop would: permits
   * from the same limiter rows, lease and attempt row committed before the call, the outcome
   * fenced by the lease. Claims nothing when they are no longer due (a worker took them) or the
   * lane has no permit now; a worker's claim loop then sends them as usual.
   */
  async sendNow(providerAccount: string, purpose: Purpose, deliveryIds: readonly string[]): Promise<BatchResult> {
    const lane = this.lanesOf(providerAccount).find((l) => l.purposes.includes(purpose));
    if (!lane) throw new Error(`provider account ${providerAccount} has no lane for purpose ${purpose}`);
    if (deliveryIds.length === 0) return { claimed: 0, applied: 0, stale: 0 };
    return this.runLane(providerAccount, lane, deliveryIds);
  }

  /**
   * Claims and processes one batch on one lane of the account (or only `deliveryIds`, when given);
   * resolves when its outcomes are written.
   */
  async runLane(providerAccount: string, lane: WorkerLane, deliveryIds?: readonly string[]): Promise<BatchResult> {
    const adapter = this.opts.adapters.get(providerAccount);
    if (!adapter) throw new Error(`no adapter for provider account ${providerAccount}`);
    const req = {
      providerAccount,
      ...(lane.purposes.length === PURPOSES.length ? {} : { purposes: lane.purposes }),
      ...(deliveryIds ? { deliveryIds } : {}),
      workerId: this.opts.workerId,
      now: this.opts.clock.now(),
      leaseMs: this.leaseMs,
      limit: deliveryIds ? Math.min(deliveryIds.length, lane.batchSize) : lane.batchSize,
    };
    // With a limiter, the claim takes no more deliveries than the shared limiter grants right
    // now and spends one permit per delivery (reserved first, the unused refunded: see
    // limiter-store.ts): every worker of every process draws on the same rows, so together they
    // never exceed the account's rate.
    const { claimed, retryAt } = lane.limits
      ? await this.claimPermitted(providerAccount, lane, lane.limits, req)
      : { claimed: await this.opts.store.claimBatch(req), retryAt: null };
    if (claimed.length === 0) return { claimed: 0, applied: 0, stale: 0, permitsAt: retryAt };
    // Preferences and suppression at every attempt (send-time-checks.ts): one query for the
    // batch; what must not be sent is stopped here and written with the others' outcomes.
    const { send, stopped, held: holds } = await this.checks.check(claimed, { policyFor: this.policyFor, random: this.random });
    // Quiet hours and frequency caps: the held deliveries are written now, before any call
    // (persist before call), each with its claim's attempt withdrawn or closed in the same write.
    const holdResult = await this.writeHolds(claimed, holds);
    // Every other claimed lease is renewed, the stopped ones too: they are written with the batch
    // at the end, and a lease that ran out meanwhile would be declared `unknown` though nothing was sent.
    const heldIds = new Set(holds.map((h) => h.write.deliveryId));
    const renewed = claimed.filter((c) => !heldIds.has(c.deliveryId));
    const held: HeldLeases = new Map(renewed.map((c) => [c.deliveryId, c.leaseUntil] as const));
    const stopRenewing = this.renewWhileRunning(renewed, held);
    let outcomes: SubmitOutcome[];
    try {
      await this.renewShortLeases(send, held);
      outcomes = await Promise.all(send.map((c) => this.call(adapter, c, held.get(c.deliveryId))));
    } finally {
      stopRenewing();
    }
    await this.throttleIfRefused(providerAccount, lane, outcomes);
    const recorded = await this.record(send, outcomes, stopped);
    return {
      claimed: recorded.claimed + holdResult.claimed,
      applied: recorded.applied + holdResult.applied,
      stale: recorded.stale + holdResult.stale,
      permitsAt: retryAt,
    };
  }

  /**
   * Writes the send-time check's holds (one transaction) and counts the applied ones in
   * `herald_scheduling_holds_total`. A hold whose lease was rescued meanwhile is stale: nothing
   * was sent, and its `unknown` is reconciled as usual.
   */
  private async writeHolds(claimed: ClaimedDelivery[], holds: HoldWrite[]): Promise<BatchResult> {
    if (holds.length === 0) return { claimed: 0, applied: 0, stale: 0 };
    const results = await this.opts.store.scheduling.holdClaimed(holds);
    const byId = new Map(claimed.map((c) => [c.deliveryId, c] as const));
    let applied = 0;
    results.forEach((r, i) => {
      if (!r.applied) return;
      applied++;
      const h = holds[i]!;
      const c = byId.get(r.deliveryId)!;
      const t = h.write.transition;
      const outcome = t.to === 'ready' ? 'deferred' : t.terminalReason === 'expired' ? 'expired' : 'suppressed';
      this.opts.counters?.series.schedulingHolds.inc({ channel: c.channel, purpose: c.purpose, reason: h.reason, outcome });
    });
    return { claimed: holds.length, applied, stale: holds.length - applied };
  }

  /**
   * A lane's permitted claim. Without rate shares on the account: one claim on the lane's rows,
   * as always. With them: one claim per group (`claimGroups`: the tenants without a share
   * together, each tenant with a share alone with its own row added), until the batch is full;
   * the earliest `retryAt` of a group the limiter cut short is the lane's.
   */
  private async claimPermitted(
    providerAccount: string,
    lane: WorkerLane,
    limits: NonNullable<WorkerLane['limits']>,
    req: ClaimRequest,
  ): Promise<{ claimed: ClaimedDelivery[]; retryAt: number | null }> {
    const base = { ...req, lane: lane.name, laneLimit: limits.lane, accountLimit: limits.account };
    const shares = await this.shares.of(providerAccount);
    const config = this.configs.get(providerAccount);
    if (shares.length === 0 || !config) return this.opts.store.limiter.claimWithPermits({ ...base, sources: limits.plan.sources });
    const key = `${providerAccount}\u0000${lane.name}`;
    const turn = this.turns.get(key) ?? 0;
    this.turns.set(key, turn + 1);
    const claimed: ClaimedDelivery[] = [];
    let retryAt: number | null = null;
    for (const g of claimGroups(config, limits.plan.sources, shares, turn)) {
      const left = req.limit - claimed.length;
      if (left <= 0) break;
      const r = await this.opts.store.limiter.claimWithPermits({ ...base, ...g, limit: left });
      claimed.push(...r.claimed);
      if (r.retryAt !== null) retryAt = retryAt === null ? r.retryAt : Math.min(retryAt, r.retryAt);
    }
    return { claimed, retryAt };
  }

  /** A 429 means the account's budget is overspent somewhere: pause every worker of the account, honouring Retry-After. */
  private async throttleIfRefused(account: string, lane: WorkerLane, outcomes: SubmitOutcome[]): Promise<void> {
    if (!lane.limits) return;
    // Only an account-wide throttle pauses the account; one device's limit (scope destination)
    // holds back that delivery alone, on its own ladder.
    const throttled = outcomes.filter((o): o is Extract<SubmitOutcome, { kind: 'throttled' }> => o.kind === 'throttled' && o.scope !== 'destination');
    if (throttled.length === 0) return;
    const retryAfterMs = Math.max(0, ...throttled.map((o) => o.retryAfterMs ?? 0)) || null;
    await this.opts.store.limiter
      .throttleAccount({ providerAccount: account, now: this.opts.clock.now(), retryAfterMs, limit: lane.limits.account, rows: lane.limits.plan.throttleRows })
      .catch((err) =>
        this.opts.logger.warn({ err, providerAccount: account }, 'cannot record the provider throttle; the retry schedule still honours Retry-After'),
      );
  }

  /**
   * Renews the batch's leases every third of the lease while its calls run, so a slow
   * provider is not mistaken for a dead worker. A lease that could not be renewed (already
   * rescued) is simply not renewed again: its outcome will be fenced off and kept as late.
   * `held` follows what the worker may rely on: a refused renewal drops the lease, a renewal
   * counts only if it was answered before the lease it extends ran out.
   */
  private renewWhileRunning(claimed: ClaimedDelivery[], held: HeldLeases): () => void {
    let renewing: LeaseRef[] = claimed.map((c) => ({ deliveryId: c.deliveryId, leaseVersion: c.leaseVersion }));
    const timer = setInterval(
      () => {
        this.renew(renewing, held).then(
          (still) => (renewing = renewing.filter((l) => still.has(l.deliveryId))),
          (err: unknown) => this.opts.logger.warn({ err }, 'lease renewal failed; the rescuer may declare these unknown'),
        );
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * Renews, in one statement and before their calls start, the leases of `send` whose call window
   * is short (`callWindowShort`): on a busy machine or with a tight lease, the claim's round trip
   * and the send-time check can use most of the window, and giving the attempt up
   * (`lease_lapsed_before_send`) costs a retry step that one renewal avoids. What the renewal does
   * not cover (refused: rescued; answered after the lease ended) is still refused by `call`.
   */
  private async renewShortLeases(send: ClaimedDelivery[], held: HeldLeases): Promise<void> {
    const now = this.opts.clock.now();
    const short = send.filter((c) => {
      const until = held.get(c.deliveryId);
      return until !== undefined && callWindowShort(until, this.leaseMs, this.timeouts.get(c.providerAccount) ?? 0, now);
    });
    if (short.length === 0) return;
    await this.renew(
      short.map((c) => ({ deliveryId: c.deliveryId, leaseVersion: c.leaseVersion })),
      held,
    ).catch((err: unknown) => this.opts.logger.warn({ err }, 'lease renewal before the calls failed; calls the lease no longer covers are not made'));
  }

  /**
   * One renewal of `leases`, applied to `held`: a refused renewal drops the lease, an accepted one
   * counts only if it was answered before the lease it extends ran out. A rescuer may have read
   * the lease as expired before it, and the rescue is guarded by the fencing token, which a
   * renewal does not change, so it still lands. Returns the ids the store renewed.
   */
  private async renew(leases: LeaseRef[], held: HeldLeases): Promise<Set<string>> {
    const now = this.opts.clock.now();
    const leaseUntil = now + this.leaseMs;
    const renewed = new Set(await this.opts.store.renewLeases({ leases, workerId: this.opts.workerId, leaseUntil, now }));
    const answeredAt = this.opts.clock.now();
    for (const l of leases) {
      const until = held.get(l.deliveryId);
      if (!renewed.has(l.deliveryId)) held.delete(l.deliveryId);
      else if (until !== undefined && answeredAt < until) held.set(l.deliveryId, leaseUntil);
    }
    return renewed;
  }

  /** The moment from which a call for `c` is no longer useful: its expiry less its account's arrival allowance. */
  private lastUsefulCall(c: ClaimedDelivery): number {
    return lastUsefulCall(c.expiresAt, arrivalAllowanceMs(c.channel, this.configs.get(c.providerAccount)?.arrival_allowance_ms));
  }

  /** Calls the provider for one claim, unless its challenge expired or its lease (`leaseUntil`, absent: lost) no longer covers the call. */
  private async call(adapter: ProviderAdapter, c: ClaimedDelivery, leaseUntil: number | undefined): Promise<SubmitOutcome> {
    const now = this.opts.clock.now();
    // The challenge clock again, at the moment of the call: the claim compared expires_at with a
    // `now` read before its query ran, and a batch can wait (pool, busy event loop) before its
    // calls start. Nothing is sent at or after expires_at; the attempt closes as not sent and
    // `decide` ends the delivery terminal/expired (no retry fits before expiry).
    // Less than the channel's arrival allowance counts as expired (src/domain/arrival.ts): a
    // message that would arrive after its expiry is not sent.
    const usefulUntil = this.lastUsefulCall(c);
    if (now >= usefulUntil) {
      return {
        kind: 'retryable',
        code: 'expired_before_send',
        message:
          now >= c.expiresAt
            ? 'expires_at passed before the call started; nothing was sent'
            : `expires_at was less than the channel's arrival allowance (${c.expiresAt - usefulUntil} ms) away when the call was to start; nothing was sent`,
      };
    }
    // The lease too, at the same moment. A worker frozen since its claim (GC pause, blocked
    // query, SIGSTOP, suspended VM) may have outlived its lease: the rescuer has declared the
    // delivery `unknown`, reconciliation found nothing and another worker may have sent it under
    // the same key. The fencing token guards Herald's rows, not the provider, so the only defence
    // is not to call. The whole call must fit in the lease held now (now + timeout + margin <
    // lease end, src/domain/lease.ts), so it never depends on a renewal arriving in time. The
    // attempt closes as not sent: applied if the row is still ours (nothing went out), else kept
    // as a late outcome while reconciliation settles the rescuer's `unknown` as usual.
    const writeBy = leaseUntil === undefined ? -Infinity : callDeadline(leaseUntil, this.leaseMs, this.timeouts.get(c.providerAccount) ?? 0);
    if (now >= writeBy) {
      return { kind: 'retryable', code: 'lease_lapsed_before_send', message: 'the lease no longer covered the call when it was to start; nothing was sent' };
    }
    // Counted before the call: a call that throws may still have reached the provider.
    this.opts.counters?.inc('api_attempts', c);
    // The call's own duration, by the process's monotonic clock (not Herald's, which tests hold still).
    const started = performance.now();
    try {
      return await adapter.submit({
        deliveryId: c.deliveryId,
        idempotencyKey: c.idempotencyKey,
        channel: c.channel,
        purpose: c.purpose,
        destination: c.destination,
        // An SMS carries its one-time code marked up as intake resolved it (WebOTP, SMS Retriever).
        // A rendered template's SMS and push parts replace the e-mail's (contentForChannel).
        content: withSmsMarkup(c.channel, contentForChannel(c.content, c.channel)),
        expiresAt: c.expiresAt,
        // The same rules where the bytes leave: the transport only knows the wall clock, so it
        // gets the time left by Herald's clock, counted from the wall clock's now, until the
        // earlier of the last useful moment (expiry less the arrival allowance) and `writeBy`,
        // the last moment a write still leaves the whole timeout inside the lease. With the
        // defaults (lease 30 s, timeout 10 s, margin 3 s) a call started at its claim may write
        // until 17 s after it; the sandbox transport's own 10 s timer, started before connecting,
        // ends a wait for a socket first, so this binds only when something between the check
        // above and the request (an adapter fetching a token, an event loop stalled for seconds)
        // pushes the write past the lease's reach: the same freeze, a few lines later.
        // eslint-disable-next-line no-restricted-syntax -- sendBy is wall-clock by contract (providers/provider.ts)
        sendBy: Date.now() + (Math.min(usefulUntil, writeBy) - now),
      });
    } catch (err) {
      // An adapter must classify, not throw. If one throws anyway, the request may have gone
      // out: that is ambiguity, never failure.
      this.opts.logger.error({ err, deliveryId: c.deliveryId }, 'adapter threw instead of classifying; recording unknown');
      return { kind: 'unknown', code: 'adapter_error', message: 'the adapter failed unexpectedly' };
    } finally {
      this.opts.counters?.series.providerCallDuration.observe(
        { channel: c.channel, purpose: c.purpose, provider_account: c.providerAccount },
        (performance.now() - started) / 1000,
      );
    }
  }

  /** Per claim, the account of its route it moves to after its answer (null: it stays); all null without routes. */
  private async movesFor(claimed: ClaimedDelivery[], outcomes: SubmitOutcome[], now: number, overRetryBudget: boolean): Promise<Array<FailoverMove | null>> {
    if (!this.failover) return claimed.map(() => null);
    return this.failover.movesFor(
      claimed.map((c, i) => ({
        subject: c,
        outcome: outcomes[i]!,
        ctx: { now, overRetryBudget, ladderDelayMs: plannedDelayMs(this.policyFor(c), Math.max(1, c.attemptNumber)) },
      })),
    );
  }

  /** Writes the calls' outcomes and the deliveries the send-time checks stopped (`stopped`) in one batch. */
  private async record(claimed: ClaimedDelivery[], outcomes: SubmitOutcome[], stopped: TransitionWrite[] = []): Promise<BatchResult> {
    const now = this.opts.clock.now();
    const account = claimed[0]?.providerAccount;
    const budget = account === undefined ? 'healthy' : (await this.budgets.of(account, now)).state;
    const moves = await this.movesFor(claimed, outcomes, now, budget === 'degraded');
    const writes: TransitionWrite[] = [];
    claimed.forEach((c, i) => {
      const outcome = outcomes[i]!;
      const move = moves[i] ?? null;
      // The account's rollout stage decides what is done with the answer; both the decision taken
      // and the next stage's are kept on the attempt (src/domain/rollout.ts). A delivery that moves
      // to another account waits one step of its ladder, not the first account's Retry-After nor
      // its retry budget's spread: those are the first account's.
      const { transition, decision, nextStageDecision } = decideAtStage(
        // A retry is scheduled only where a call would still be useful: before the arrival allowance.
        { state: 'submitting', attemptCount: c.attemptNumber, expiresAt: this.lastUsefulCall(c), nextAttemptAt: null },
        move ? withoutRetryAfter(outcome) : outcome,
        {
          now,
          policy: this.policyFor(c),
          random: this.random,
          budget: move ? 'healthy' : budget,
          stage: this.rollout.stageOf(c.providerAccount),
          unknownSettlement: this.rollout.unknownSettlement(c),
          notCalled: madeNoCall(outcome),
        },
      );
      writes.push({
        deliveryId: c.deliveryId,
        expect: { state: 'submitting', leaseVersion: c.leaseVersion },
        transition,
        now,
        attempt: { number: c.attemptNumber, outcome, decisions: { decision, nextStageDecision } },
        // Only a retry moves (not one the ladder exhausted, the expiry ended or the rollout stage held).
        ...(move && transition.to === 'retryable' ? { move } : {}),
      });
    });
    const all = await this.opts.store.applyTransitions([...writes, ...stopped]);
    const results = all.slice(0, writes.length);
    // A stopped delivery whose lease was rescued meanwhile was not sent either: its `unknown` is reconciled as usual.
    const stoppedApplied = all.slice(writes.length).filter((r) => r.applied).length;
    results.forEach((r, i) => {
      if (r.applied && this.opts.counters) countApplied(this.opts.counters, claimed[i]!, outcomes[i]!, writes[i]!);
    });
    const late = results.flatMap((r, i) => (r.applied ? [] : [{ claim: claimed[i]!, outcome: outcomes[i]! }]));
    if (late.length > 0) await this.late.record(late, now);
    if (account !== undefined) await this.health.record(account, outcomes, now);
    await this.pushTargets.retireRefused(claimed, outcomes, now);
    return {
      claimed: claimed.length + stopped.length,
      applied: results.length - late.length + stoppedApplied,
      stale: late.length + stopped.length - stoppedApplied,
    };
  }
}

/** The answer without the first account's Retry-After: the next account's wait is the ladder's. */
function withoutRetryAfter(o: SubmitOutcome): SubmitOutcome {
  return o.kind === 'retryable' || o.kind === 'throttled' ? { ...o, retryAfterMs: null } : o;
}

/** An SMS carries its one-time code marked up as intake resolved it (WebOTP, SMS Retriever); other channels as they are. */
function withSmsMarkup(channel: Channel, content: MessageContent): MessageContent {
  return channel === 'sms' && content.otp ? { ...content, text: smsText(content) } : content;
}
