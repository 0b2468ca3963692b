/**
 * The process series, kept in one place: every part of Herald that attempts, accepts, expires,
 * supersedes, replays, is refused or throttled, receives a callback or a downstream signal
 * increments its counter here, and the worker observes its two latency histograms here. They are
 * per process (as Prometheus expects: each process is scraped and a restart resets them); GET
 * /metrics (src/observability/system-metrics.ts) exports them. Every label has a closed value
 * set (channels, purposes, the classes below, downstream statuses) or is a configured provider
 * account id: never a destination, recipient, tenant or free text. docs/operations.md, "Metrics",
 * lists each series.
 */
import { Histogram } from 'prom-client';
import type { Channel, DownstreamStatus, Purpose } from '../domain/index.js';

export const COUNTER_NAMES = [
  'api_attempts',
  'accepted_submissions',
  'ambiguous_submissions',
  'expired_challenges',
  'superseded_deliveries',
  'replays',
  'user_resends',
  'user_reported_duplicates',
  'user_reported_not_received',
] as const;
export type CounterName = (typeof COUNTER_NAMES)[number];

export interface CounterLabels {
  channel: Channel;
  purpose: Purpose;
}

export interface CounterSample extends CounterLabels {
  name: CounterName;
  value: number;
}

export class DeliveryCounters {
  private readonly values = new Map<string, CounterSample>();
  /** The series with other label sets, and the histograms. */
  readonly series = new ProcessSeries();

  /** Adds `n` (default 1) to a counter for one channel and purpose. */
  inc(name: CounterName, labels: CounterLabels, n = 1): void {
    if (n <= 0) return;
    const key = `${name}|${labels.channel}|${labels.purpose}`;
    const cur = this.values.get(key);
    if (cur) cur.value += n;
    else this.values.set(key, { name, channel: labels.channel, purpose: labels.purpose, value: n });
  }

  /** The current value of one counter (0 if never incremented). */
  get(name: CounterName, labels: CounterLabels): number {
    return this.values.get(`${name}|${labels.channel}|${labels.purpose}`)?.value ?? 0;
  }

  /** Sum of a counter over every channel and purpose. */
  total(name: CounterName): number {
    let sum = 0;
    for (const s of this.values.values()) if (s.name === name) sum += s.value;
    return sum;
  }

  /** Every non-zero counter, sorted, as plain objects. */
  snapshot(): CounterSample[] {
    return [...this.values.values()]
      .map((s) => ({ ...s }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.channel.localeCompare(b.channel) || a.purpose.localeCompare(b.purpose));
  }
}

/** How a definite refusal was classified (the adapter's outcome kind). */
export const REFUSAL_CLASSES = ['retryable', 'permanent', 'throttled'] as const;
export type RefusalClass = (typeof REFUSAL_CLASSES)[number];
/** What a provider's throttle (429) limits: the whole account, or one destination (e.g. one device). */
export const THROTTLE_SCOPES = ['account', 'destination'] as const;
/** Why a callback was refused: a bad or stale signature, or a body the scheme cannot read. */
export const CALLBACK_REFUSAL_REASONS = ['signature', 'malformed'] as const;

/**
 * Latency buckets in seconds: a code's provider call takes tens of milliseconds, a slow
 * provider seconds (timeouts are 10 s by default); intake to acceptance adds the queue and
 * retries, up to minutes. 10 ms … 10 min.
 */
export const LATENCY_BUCKETS_SECONDS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600] as const;

/** One counter with its own fixed label names; values are kept here and copied out at scrape time. */
export class LabeledCounter<L extends string> {
  private readonly values = new Map<string, { labels: Record<L, string>; value: number }>();

  constructor(
    /** The Prometheus name, `_total` included. */
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
  ) {}

  /** Adds `n` (default 1) to the series with these labels. */
  inc(labels: Record<L, string>, n = 1): void {
    if (n <= 0) return;
    const key = this.labelNames.map((l) => labels[l]).join('\u0000');
    const cur = this.values.get(key);
    if (cur) cur.value += n;
    else this.values.set(key, { labels: Object.fromEntries(this.labelNames.map((l) => [l, labels[l]])) as Record<L, string>, value: n });
  }

  /** The current value of one series (0 if never incremented). */
  get(labels: Record<L, string>): number {
    return this.values.get(this.labelNames.map((l) => labels[l]).join('\u0000'))?.value ?? 0;
  }

  /** Every non-zero series, as plain objects. */
  snapshot(): { labels: Record<L, string>; value: number }[] {
    return [...this.values.values()].map((v) => ({ labels: { ...v.labels }, value: v.value }));
  }
}

/**
 * The process series beyond the per-channel-and-purpose counters: refusals, throttles,
 * downstream signals, callbacks, and the two histograms (prom-client's own, registered in no
 * registry until SystemMetrics registers them in its own).
 */
export class ProcessSeries {
  /** A provider's definite refusal of a call (not an acceptance, not an ambiguity), by class. */
  readonly refusals = new LabeledCounter<'channel' | 'purpose' | 'class'>(
    'herald_definite_refusals_total',
    'Definite refusals a provider answered to this process, by class: retryable (may retry), permanent (needs data correction), throttled (429).',
    ['channel', 'purpose', 'class'],
  );
  readonly throttles = new LabeledCounter<'provider_account' | 'scope'>(
    'herald_throttles_total',
    "Provider throttles (429) this process received, per account, by scope: account (pauses every worker of the account) or destination (one device's limit).",
    ['provider_account', 'scope'],
  );
  readonly downstreamSignals = new LabeledCounter<'channel' | 'status'>(
    'herald_downstream_signals_total',
    "Downstream signals this process merged into deliveries (provider callbacks, a gateway phone's reports), by the signal's status.",
    ['channel', 'status'],
  );
  readonly callbacksReceived = new LabeledCounter<'provider_account'>(
    'herald_callbacks_received_total',
    'Provider callback events this process verified and recorded (duplicates included), per provider account.',
    ['provider_account'],
  );
  readonly callbacksDuplicated = new LabeledCounter<'provider_account'>(
    'herald_callbacks_duplicated_total',
    'Provider callback events this process received that were already recorded (a provider retry), per provider account.',
    ['provider_account'],
  );
  readonly callbacksRefused = new LabeledCounter<'provider_account' | 'reason'>(
    'herald_callbacks_refused_total',
    'Provider callback requests this process refused, nothing recorded: reason signature (bad or stale signature) or malformed (unreadable body).',
    ['provider_account', 'reason'],
  );
  /** What the retention job and recipient erasures erased in this process (docs/retention.md). */
  readonly retentionErased = new LabeledCounter<'what'>(
    'herald_retention_erased_total',
    'What this process erased: what otp_content (settled one-time codes), content (past the retention window), destinations (masked), recipient (erasure requests).',
    ['what'],
  );
  /** Requests and notifications the limits on the way in refused (docs/abuse-limits.md), by the limit that applied: never a key or destination. */
  readonly intakeLimitRefusals = new LabeledCounter<'limit'>(
    'herald_intake_limit_refusals_total',
    'Requests and notifications this process refused at the limits on the way in, by limit: request_rate (per-key quota), destination_velocity, recipient_velocity, sms_country, sms_number_type.',
    ['limit'],
  );
  /** Demotions and restorations within a route this process recorded (one process records each: the sum over processes is the total). */
  readonly routeChanges = new LabeledCounter<'provider_account' | 'action'>(
    'herald_route_changes_total',
    'Provider accounts this process demoted (action demote) or restored (action restore) within a route (docs/routing.md); each change is recorded by one process only.',
    ['provider_account', 'action'],
  );
  /**
   * Deliveries this process moved to another account of their route (docs/routing.md), counted
   * where the move was written. Labels bounded by the configuration: configured accounts and the
   * six failover reasons, never a destination or tenant.
   */
  readonly failovers = new LabeledCounter<'channel' | 'from_account' | 'to_account' | 'reason'>(
    'herald_failovers_total',
    'Deliveries this process moved to another account of their route (docs/routing.md), by channel, the account they left (from_account), the one they moved to (to_account) and why (reason: retryable, throttled, account_paused, over_retry_budget, no_phone_online, accept_duplicate).',
    ['channel', 'from_account', 'to_account', 'reason'],
  );
  /**
   * Deliveries that more than one account reported delivered (docs/routing.md, "Duplicates
   * across accounts"): the first account's message arrived after all, besides the one sent after a
   * move. Counted by the process whose evidence pass merged the second account's report; labels are
   * the channel and the accounts (configured ids), never a destination or tenant.
   */
  readonly duplicatesAcrossAccounts = new LabeledCounter<'channel' | 'accounts'>(
    'herald_duplicates_across_accounts_total',
    'Deliveries this process found reported delivered (or read) by two or more provider accounts of their route (docs/routing.md): a duplicate the recipient received, by channel and the accounts (comma-separated, in the order they reported).',
    ['channel', 'accounts'],
  );
  /** Deliveries the send-time check held or ended instead of calling (docs/scheduling.md). */
  readonly schedulingHolds = new LabeledCounter<'channel' | 'purpose' | 'reason' | 'outcome'>(
    'herald_scheduling_holds_total',
    "Deliveries this process's send-time check held or ended instead of calling, by reason (quiet_hours, frequency_capped) and outcome: deferred (ready again later), expired (the hold outlasted the expiry), suppressed (over a cap whose action is suppress).",
    ['channel', 'purpose', 'reason', 'outcome'],
  );
  readonly intakeToAcceptance = new Histogram<'channel' | 'purpose'>({
    name: 'herald_intake_to_acceptance_seconds',
    help: 'Seconds from the notification entering Herald (intake) to the provider accepting a delivery of it, observed by the worker that recorded the acceptance.',
    labelNames: ['channel', 'purpose'],
    buckets: [...LATENCY_BUCKETS_SECONDS],
    registers: [],
  });
  readonly providerCallDuration = new Histogram<'channel' | 'purpose' | 'provider_account'>({
    name: 'herald_provider_call_duration_seconds',
    help: "Seconds one provider call took in this process (the adapter's submit, whatever its outcome).",
    labelNames: ['channel', 'purpose', 'provider_account'],
    buckets: [...LATENCY_BUCKETS_SECONDS],
    registers: [],
  });

  /** Every labeled counter, for the exporter. */
  counters(): LabeledCounter<string>[] {
    return [
      this.refusals,
      this.throttles,
      this.downstreamSignals,
      this.callbacksReceived,
      this.callbacksDuplicated,
      this.callbacksRefused,
      this.retentionErased,
      this.intakeLimitRefusals,
      this.routeChanges,
      this.failovers,
      this.duplicatesAcrossAccounts,
      this.schedulingHolds,
    ];
  }

  /** One definite refusal of a call. */
  refused(labels: CounterLabels, cls: RefusalClass): void {
    this.refusals.inc({ channel: labels.channel, purpose: labels.purpose, class: cls });
  }

  /** One downstream signal merged. */
  signal(channel: Channel, status: DownstreamStatus): void {
    this.downstreamSignals.inc({ channel, status });
  }
}
