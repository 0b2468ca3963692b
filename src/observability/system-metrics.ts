/**
 * `SystemMetrics`: what `GET /metrics` serves, in the Prometheus text format (prom-client),
 * from a registry of this process's own (never prom-client's global one, so two Heralds in one
 * test process do not share series).
 *
 * Two kinds of series (docs/operations.md, "Metrics", lists each):
 * - gauges of the system's state, read from the store at scrape time (`store.observability`),
 *   every tenant together: every process reports the same truth, so any one may be scraped;
 * - counters and histograms of this process (src/metrics/counters.ts).
 *
 * The store read is cached for `cacheMs` (default 5 s): several scrapers, or one scraping
 * every second, cost one fixed set of aggregate statements per 5 s, and concurrent scrapes share
 * the read in flight. Label values come only from closed sets (states, terminal reasons,
 * channels, purposes, lanes, statuses, classes) or are ids an operator configured or created
 * (provider accounts, gateway devices, campaigns of the moment): no destination, recipient,
 * tenant or free text is ever a label.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import {
  assessBudget,
  CHANNELS,
  DEFAULT_LANES,
  DELIVERY_STATES,
  HEALTH_WINDOW_MS,
  laneFor,
  PURPOSES,
  TERMINAL_REASONS,
  type Channel,
  type DeliveryState,
  type LaneConfig,
  type Purpose,
  type TerminalReason,
} from '../domain/index.js';
import { CAMPAIGN_DELIVERY_STATUSES } from '../store/observability-store.js';
import { COUNTER_NAMES, type CounterName, type DeliveryCounters } from '../metrics/counters.js';
import type { Store, SystemState } from '../store/store.js';

export interface SystemMetricsOptions {
  store: Store;
  clock: Clock;
  counters: DeliveryCounters;
  /** Configured provider accounts: each reports its per-account series (zero when it has nothing), due work per lane of its lanes. */
  accounts: readonly MetricsAccount[];
  /** After how long without a call a gateway device is away (config `devices.away_after_seconds`, the heartbeat sweep's threshold). Default 120 s. */
  deviceAwayMs?: number;
  /** How long one store read serves scrapes. Default 5,000 ms. */
  cacheMs?: number;
  /** When an `unknown` delivery joins the review queue (as the API's review route). Default 15 minutes. */
  reviewUnknownAfterMs?: number;
  /** When an accepted delivery without downstream progress counts (config `metrics.accepted_progress_after_s`). Default 30 minutes. */
  acceptedProgressAfterMs?: number;
}

/** What each process counter means, for its HELP line. */
const COUNTER_HELP: Record<CounterName, string> = {
  api_attempts: 'Provider API calls this process made (one per attempt).',
  accepted_submissions: 'Submissions a provider acknowledged (state accepted), in this process.',
  ambiguous_submissions: 'Submissions whose outcome was unknown (timeout, reset, crash after sending), in this process.',
  expired_challenges: 'Deliveries this process stopped as terminal/expired (the challenge clock ran out).',
  superseded_deliveries: 'Pending deliveries a newer challenge generation superseded, in this process.',
  replays: 'Operator replays this process performed.',
  user_resends: 'Resends a user asked for through this process (a new generation).',
  user_reported_duplicates: 'Reports filed through this process that a person received a notification more than once.',
  user_reported_not_received: 'Reports filed through this process that a person did not receive a notification.',
};

/** What the metrics need of a configured provider account (structurally a ProviderAccountConfig). */
export interface MetricsAccount {
  id: string;
  channel: Channel;
  /** The account's lanes; absent: DEFAULT_LANES. */
  lanes?: readonly LaneConfig[] | undefined;
  /**
   * Whether anything ever reports progress past `accepted` for this account (provider callbacks,
   * a phone's reports). False (SMTP, push, an account without a callback secret): its accepted
   * deliveries never progress, so it has no herald_accepted_without_progress series. Default true.
   */
  reportsProgress?: boolean;
}

/** Sets one series of a gauge: its labels (none for a gauge without labels) and its value. */
type SetSeries = (labels: Record<string, string>, value: number) => void;

const DEFAULT_CACHE_MS = 5_000;
const DEFAULT_DEVICE_AWAY_MS = 120_000;
const DEFAULT_REVIEW_UNKNOWN_AFTER_MS = 15 * 60_000;
const DEFAULT_ACCEPTED_PROGRESS_AFTER_MS = 30 * 60_000;

/** The `/metrics` registry of one process: store gauges collected at scrape time, and its counters. */
export class SystemMetrics {
  readonly registry = new Registry();
  private readonly cacheMs: number;
  private readonly unknownAfterMs: number;
  private readonly acceptedProgressAfterMs: number;
  private cached: { at: number; state: SystemState } | null = null;
  private inFlight: Promise<{ at: number; state: SystemState }> | null = null;

  constructor(private readonly opts: SystemMetricsOptions) {
    this.cacheMs = opts.cacheMs ?? DEFAULT_CACHE_MS;
    this.unknownAfterMs = opts.reviewUnknownAfterMs ?? DEFAULT_REVIEW_UNKNOWN_AFTER_MS;
    this.acceptedProgressAfterMs = opts.acceptedProgressAfterMs ?? DEFAULT_ACCEPTED_PROGRESS_AFTER_MS;
    this.defineGauges();
    this.defineCounters();
  }

  /** The exposition's media type (Prometheus text format 0.0.4). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every series in the Prometheus text format; reads the store at most once per `cacheMs`. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** The store's state, at most `cacheMs` old; concurrent callers share one read. */
  private async snapshot(): Promise<{ at: number; state: SystemState }> {
    const now = this.opts.clock.now();
    if (this.cached && now - this.cached.at < this.cacheMs && now >= this.cached.at) return this.cached;
    this.inFlight ??= this.opts.store.observability
      .systemState({ now, unknownAfterMs: this.unknownAfterMs, acceptedProgressAfterMs: this.acceptedProgressAfterMs, healthSince: now - HEALTH_WINDOW_MS })
      .then((state) => (this.cached = { at: now, state }))
      .finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  private defineGauges(): void {
    const registry = this.registry;
    const read = () => this.snapshot();
    /**
     * A gauge of the store's state: at each scrape it reads the cached snapshot, drops its old
     * series, and `fill` sets each one it has now (a label set no longer set is gone).
     */
    const gauge = (name: string, help: string, labelNames: readonly string[], fill: (set: SetSeries, snapshot: { at: number; state: SystemState }) => void) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers: [registry],
        async collect() {
          const snapshot = await read();
          this.reset();
          fill((labels, value) => this.set(labels, value), snapshot);
        },
      });
    gauge('herald_deliveries', 'Deliveries in each state of the delivery state machine, every tenant (store, cached 5 s).', ['state'], (set, { state }) => {
      const by = new Map<DeliveryState, number>(DELIVERY_STATES.map((s) => [s, 0]));
      for (const g of state.deliveries) by.set(g.state, (by.get(g.state) ?? 0) + g.count);
      for (const [s, n] of by) set({ state: s }, n);
    });
    gauge('herald_deliveries_terminal', 'Terminal deliveries by terminal reason, every tenant (store).', ['reason'], (set, { state }) => {
      const by = new Map<TerminalReason, number>(TERMINAL_REASONS.map((r) => [r, 0]));
      for (const g of state.deliveries) if (g.state === 'terminal' && g.terminalReason) by.set(g.terminalReason, (by.get(g.terminalReason) ?? 0) + g.count);
      for (const [r, n] of by) set({ reason: r }, n);
    });
    gauge(
      'herald_deliveries_unknown',
      'Deliveries in state unknown: the submission may have crossed the boundary and reconciliation has not settled it (store).',
      [],
      (set, { state }) =>
        set(
          {},
          state.deliveries.filter((g) => g.state === 'unknown').reduce((n, g) => n + g.count, 0),
        ),
    );
    gauge(
      'herald_unknown_oldest_age_seconds',
      'Seconds since the oldest unknown delivery last changed (became unknown); 0 when none is unknown (store).',
      [],
      (set, { at, state }) => {
        const oldest = state.deliveries.filter((g) => g.state === 'unknown' && g.count > 0).map((g) => g.oldestUpdatedAt);
        set({}, oldest.length ? ageSeconds(at, Math.min(...oldest)) : 0);
      },
    );
    const accounts = this.opts.accounts;
    const laneOf = (account: string, purpose: Purpose): string => laneFor(purpose, accounts.find((a) => a.id === account)?.lanes ?? DEFAULT_LANES).name;
    /** Every configured account × lane × purpose of the lane, so an idle lane reads 0 instead of vanishing. */
    const dueZeros = (): { provider_account: string; lane: string; purpose: Purpose }[] =>
      accounts.flatMap((a) => (a.lanes ?? DEFAULT_LANES).flatMap((l) => l.purposes.map((purpose) => ({ provider_account: a.id, lane: l.name, purpose }))));
    /** A gauge per provider account, lane and purpose of the due deliveries; 0 for an idle lane. */
    const dueGauge = (name: string, help: string, value: (d: SystemState['due'][number], at: number) => number) =>
      gauge(name, help, ['provider_account', 'lane', 'purpose'], (set, { at, state }) => {
        for (const z of dueZeros()) set(z, 0);
        for (const d of state.due) set({ provider_account: d.providerAccount, lane: laneOf(d.providerAccount, d.purpose), purpose: d.purpose }, value(d, at));
      });
    dueGauge(
      'herald_due_deliveries',
      'Deliveries due now and not expired (ready or retryable, next_attempt_at passed), per provider account, lane and purpose (store).',
      (d) => d.count,
    );
    dueGauge(
      'herald_due_oldest_age_seconds',
      'Seconds the oldest due, unexpired delivery has waited past its next_attempt_at, per provider account, lane and purpose; 0 when none is due (store).',
      (d, at) => ageSeconds(at, d.oldestDueAt),
    );
    const afterS = this.acceptedProgressAfterMs / 1000;
    gauge(
      'herald_accepted_without_progress',
      `Deliveries the provider accepted whose downstream status has not moved past accepted for longer than metrics.accepted_progress_after_s (${afterS} s), per provider account and channel (store).`,
      ['provider_account', 'channel'],
      (set, { state }) => {
        const silent = new Set(accounts.filter((a) => a.reportsProgress === false).map((a) => a.id));
        for (const a of accounts) if (!silent.has(a.id)) set({ provider_account: a.id, channel: a.channel }, 0);
        for (const g of state.acceptedWithoutProgress)
          if (!silent.has(g.providerAccount)) set({ provider_account: g.providerAccount, channel: g.channel }, g.count);
      },
    );
    gauge(
      'herald_deadline_misses_last_hour',
      'Deliveries that ended terminal/expired in the last hour without ever being accepted, per channel and purpose (store).',
      ['channel', 'purpose'],
      (set, { state }) => {
        for (const channel of CHANNELS) for (const purpose of PURPOSES) set({ channel, purpose }, 0);
        for (const g of state.deadlineMissesLastHour) set({ channel: g.channel, purpose: g.purpose }, g.count);
      },
    );
    /** Configured accounts first (zeros), then any other account the store has rows for. */
    const perAccount = (state: SystemState) => {
      const rows = new Map(
        accounts.map((a) => [
          a.id,
          { providerAccount: a.id, failuresLast15m: 0, refusedAttemptsLast15m: 0, healthCalls: 0, healthFailures: 0, pausedUntil: null as number | null },
        ]),
      );
      for (const r of state.providerAccounts) rows.set(r.providerAccount, r);
      return [...rows.values()];
    };
    /** A gauge with one series per provider account (`perAccount`), its value read from the account's row. */
    const accountGauge = (name: string, help: string, value: (a: ReturnType<typeof perAccount>[number], at: number) => number) =>
      gauge(name, help, ['provider_account'], (set, { at, state }) => {
        for (const a of perAccount(state)) set({ provider_account: a.providerAccount }, value(a, at));
      });
    accountGauge(
      'herald_provider_failures_last_15m',
      'Messages that failed in the last 15 minutes, per provider account (store): ended rejected, exhausted, unresolved or expired ' +
        'unaccepted, or waiting to retry after a definite refusal. A phone offer is not a failure (docs/operations.md, failed messages).',
      (a) => a.failuresLast15m,
    );
    accountGauge(
      'herald_provider_refused_attempts_last_15m',
      'Attempts in the last 15 minutes a provider (or the phone gateway) definitely refused (retryable, throttled, permanent), per provider account (store): attempts, not messages.',
      (a) => a.refusedAttemptsLast15m,
    );
    accountGauge(
      'herald_provider_retry_budget_degraded',
      `1 while the provider account's retry budget is degraded (more than half of at least 20 calls in the last ${HEALTH_WINDOW_MS / 1000} s failed retryably), else 0 (store.health).`,
      (a) => (assessBudget({ calls: a.healthCalls, failures: a.healthFailures }).state === 'degraded' ? 1 : 0),
    );
    accountGauge(
      'herald_provider_throttle_pause_remaining_seconds',
      "Seconds until a provider's throttle (429) pause of the account ends; 0 when it is not paused (store.limiter).",
      (a, at) => (a.pausedUntil === null ? 0 : Math.max(0, (a.pausedUntil - at) / 1000)),
    );
    const awayMs = this.opts.deviceAwayMs ?? DEFAULT_DEVICE_AWAY_MS;
    const online = (at: number, lastSeenAt: number) => at - lastSeenAt <= awayMs;
    gauge(
      'herald_devices',
      `Android gateway devices online (a call within devices.away_after_seconds, ${awayMs / 1000} s) and offline (store).`,
      ['status'],
      (set, { at, state }) => {
        const on = state.devices.filter((d) => online(at, d.lastSeenAt)).length;
        set({ status: 'online' }, on);
        set({ status: 'offline' }, state.devices.length - on);
      },
    );
    gauge(
      'herald_device_away_seconds',
      'Seconds since an offline gateway device was last seen; 0 while it is online (store).',
      ['device'],
      (set, { at, state }) => {
        for (const d of state.devices) set({ device: d.id }, online(at, d.lastSeenAt) ? 0 : ageSeconds(at, d.lastSeenAt));
      },
    );
    gauge(
      'herald_device_away_threshold_seconds',
      'After how long without a call the gateway device counts as away (devices.away_after_seconds).',
      ['device'],
      (set, { state }) => {
        for (const d of state.devices) set({ device: d.id }, awayMs / 1000);
      },
    );
    gauge(
      'herald_campaign_deliveries',
      'Deliveries of each campaign not yet finished, by status: queued, accepted, delivered, failed, suppressed, expired (store).',
      ['campaign', 'status'],
      (set, { state }) => {
        for (const id of new Set(state.campaigns.map((g) => g.campaignId))) for (const status of CAMPAIGN_DELIVERY_STATUSES) set({ campaign: id, status }, 0);
        for (const g of state.campaigns) set({ campaign: g.campaignId, status: g.status }, g.count);
      },
    );
    gauge(
      'herald_review_queue_size',
      'Deliveries the review queue lists, every tenant: terminal exhausted, rejected or unresolved, and unknown past the review threshold (store).',
      [],
      (set, { state }) =>
        set(
          {},
          state.deliveries.reduce((n, g) => n + g.inReview, 0),
        ),
    );
  }

  private defineCounters(): void {
    const counters = this.opts.counters;
    for (const name of COUNTER_NAMES) {
      new Counter({
        name: `herald_${name}_total`,
        help: COUNTER_HELP[name],
        labelNames: ['channel', 'purpose'],
        registers: [this.registry],
        collect() {
          // The counters live in DeliveryCounters; prom-client only copies them out at scrape time.
          this.reset();
          for (const s of counters.snapshot()) if (s.name === name) this.inc({ channel: s.channel, purpose: s.purpose }, s.value);
        },
      });
    }
    for (const c of counters.series.counters()) {
      new Counter({
        name: c.name,
        help: c.help,
        labelNames: [...c.labelNames],
        registers: [this.registry],
        collect() {
          this.reset();
          for (const s of c.snapshot()) this.inc(s.labels, s.value);
        },
      });
    }
    // prom-client's own histograms, observed where the events happen (src/metrics/counters.ts).
    this.registry.registerMetric(counters.series.intakeToAcceptance);
    this.registry.registerMetric(counters.series.providerCallDuration);
  }
}

/** Seconds (Prometheus's base unit) from epoch ms; a clock step backwards reads as 0, not a negative age. */
function ageSeconds(now: number, since: number): number {
  return Math.max(0, (now - since) / 1000);
}
