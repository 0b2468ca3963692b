/**
 * `SystemMetrics`: what `GET /metrics` serves, in the Prometheus text format (prom-client),
 * from a registry of this process's own (never prom-client's global one, so two Heralds in one
 * test process do not share series).
 *
 * Two kinds of series (docs/operations.md, "Metrics", lists each):
 * - gauges of the system's state, read from the store at scrape time (`store.observability`),
 *   every tenant together: every process reports the same truth, so any one may be scraped;
 * - counters of this process (src/metrics/counters.ts), per channel and purpose.
 *
 * The store read is cached for `cacheMs` (default 5 s): several scrapers, or one scraping
 * every second, cost one pair of aggregate statements per 5 s, and concurrent scrapes share the
 * read in flight. Label values come only from closed sets (states, terminal reasons, channels,
 * purposes, provider account ids): no destination, recipient or tenant data is ever a label.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import { DELIVERY_STATES, HEALTH_WINDOW_MS, TERMINAL_REASONS, type DeliveryState, type TerminalReason } from '../domain/index.js';
import { COUNTER_NAMES, type CounterName, type DeliveryCounters } from '../metrics/counters.js';
import type { Store, SystemState } from '../store/store.js';

export interface SystemMetricsOptions {
  store: Store;
  clock: Clock;
  counters: DeliveryCounters;
  /** Configured provider account ids: each reports its due-work series, zero when it has none. */
  providerAccounts: readonly string[];
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

const DEFAULT_CACHE_MS = 5_000;
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
    const registers = [this.registry];
    const read = () => this.snapshot();
    new Gauge({
      name: 'herald_deliveries',
      help: 'Deliveries in each state of the delivery state machine, every tenant (store, cached 5 s).',
      labelNames: ['state'],
      registers,
      async collect() {
        const { state } = await read();
        const by = new Map<DeliveryState, number>(DELIVERY_STATES.map((s) => [s, 0]));
        for (const g of state.deliveries) by.set(g.state, (by.get(g.state) ?? 0) + g.count);
        for (const [s, n] of by) this.set({ state: s }, n);
      },
    });
    new Gauge({
      name: 'herald_deliveries_terminal',
      help: 'Terminal deliveries by terminal reason, every tenant (store).',
      labelNames: ['reason'],
      registers,
      async collect() {
        const { state } = await read();
        const by = new Map<TerminalReason, number>(TERMINAL_REASONS.map((r) => [r, 0]));
        for (const g of state.deliveries) if (g.state === 'terminal' && g.terminalReason) by.set(g.terminalReason, (by.get(g.terminalReason) ?? 0) + g.count);
        for (const [r, n] of by) this.set({ reason: r }, n);
      },
    });
    new Gauge({
      name: 'herald_deliveries_unknown',
      help: 'Deliveries in state unknown: the submission may have crossed the boundary and reconciliation has not settled it (store).',
      registers,
      async collect() {
        const { state } = await read();
        this.set(state.deliveries.filter((g) => g.state === 'unknown').reduce((n, g) => n + g.count, 0));
      },
    });
    new Gauge({
      name: 'herald_unknown_oldest_age_seconds',
      help: 'Seconds since the oldest unknown delivery last changed (became unknown); 0 when none is unknown (store).',
      registers,
      async collect() {
        const { at, state } = await read();
        const oldest = state.deliveries.filter((g) => g.state === 'unknown' && g.count > 0).map((g) => g.oldestUpdatedAt);
        this.set(oldest.length ? ageSeconds(at, Math.min(...oldest)) : 0);
      },
    });
    const accounts = this.opts.providerAccounts;
    new Gauge({
      name: 'herald_due_deliveries',
      help: 'Deliveries due now and not expired (ready or retryable, next_attempt_at passed), per provider account (store).',
      labelNames: ['provider_account'],
      registers,
      async collect() {
        const { state } = await read();
        this.reset();
        for (const a of accounts) this.set({ provider_account: a }, 0);
        const by = new Map<string, number>();
        for (const d of state.due) by.set(d.providerAccount, (by.get(d.providerAccount) ?? 0) + d.count);
        for (const [a, n] of by) this.set({ provider_account: a }, n);
      },
    });
    new Gauge({
      name: 'herald_due_oldest_age_seconds',
      help: 'Seconds the oldest due, unexpired delivery has waited past its next_attempt_at, per provider account; 0 when none is due (store).',
      labelNames: ['provider_account'],
      registers,
      async collect() {
        const { at, state } = await read();
        this.reset();
        for (const a of accounts) this.set({ provider_account: a }, 0);
        const by = new Map<string, number>();
        for (const d of state.due) by.set(d.providerAccount, Math.min(by.get(d.providerAccount) ?? Infinity, d.oldestDueAt));
        for (const [a, t] of by) this.set({ provider_account: a }, ageSeconds(at, t));
      },
    });
    new Gauge({
      name: 'herald_review_queue_size',
      help: 'Deliveries the review queue lists, every tenant: terminal exhausted, rejected or unresolved, and unknown past the review threshold (store).',
      registers,
      async collect() {
        const { state } = await read();
        this.set(state.deliveries.reduce((n, g) => n + g.inReview, 0));
      },
    });
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
  }
}

/** Seconds (Prometheus's base unit) from epoch ms; a clock step backwards reads as 0, not a negative age. */
function ageSeconds(now: number, since: number): number {
  return Math.max(0, (now - since) / 1000);
}
