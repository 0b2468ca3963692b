/**
 * The operator alerter (docs/operations.md "Operator alerts"): every
 * `interval` it reads the system's signals, lets `evaluateAlerts` (src/domain/alert-state-machine.ts)
 * decide what fires and resolves, commits the new states with the store's compare-and-set, and
 * only then, if this process won the commit, sends the round to every target. Run by the worker
 * role; several workers may run it at once, and one of them sends each round.
 *
 * A crash between the commit and the send loses that round (at most once: a second message is
 * worse than a late one, and the next change or reminder speaks again). A round no target took
 * is owed again: its announcements are written back as unsent and go out in the next round.
 */
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import { accountSubject, evaluateAlerts, unannounce, type AlertPolicy, type AlertRulesConfig, type AlertSignals } from '../domain/index.js';
import { LoopService } from '../periodic/loop-service.js';
import type { Store } from '../store/store.js';
import { newAlertMessageId, sendToTargets, type AlertMessage, type AlertTarget, type AlertTargetResult } from './alert-delivery.js';

/** Reads one snapshot of the signals the rules need (alert-signals.ts reads them from the store). */
export type AlertSignalSource = (now: number) => Promise<AlertSignals>;

export interface AlerterOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  signals: AlertSignalSource;
  targets: readonly AlertTarget[];
  rules: AlertRulesConfig;
  policy: AlertPolicy;
  intervalMs: number;
  /** History rows older than this are deleted (checked at most once an hour). */
  historyRetentionMs: number;
  /** Where `herald_alerts_sent_total{rule,kind}` is registered (the process's /metrics registry), if anywhere. */
  registry?: Registry;
}

/** What one evaluation did. */
export interface AlerterPass {
  /** False when nothing changed, or another process committed first (`lost`). */
  committed: boolean;
  lost: boolean;
  /** The round sent, with each target's result; null when none was due. */
  round: { message: AlertMessage; results: AlertTargetResult[] } | null;
}

/** The periodic evaluation and the test message; `runOnce()` for tests, `start`/`stop` for the worker. */
export class Alerter extends LoopService {
  private readonly sent: Counter<'rule' | 'kind'> | null;
  private lastPruneAt: number | null = null;

  constructor(private readonly opts: AlerterOptions) {
    super({ intervalMs: opts.intervalMs, logger: opts.logger, what: 'alert evaluation' });
    const existing = opts.registry?.getSingleMetric('herald_alerts_sent_total') as Counter<'rule' | 'kind'> | undefined;
    this.sent =
      existing ??
      (opts.registry
        ? new Counter({
            name: 'herald_alerts_sent_total',
            help: 'Operator alert announcements this process sent that reached at least one target, by rule and kind (firing, resolved).',
            labelNames: ['rule', 'kind'],
            registers: [opts.registry],
          })
        : null);
  }

  /** One evaluation: read, decide, commit, and send the round if this process won the commit. */
  override async runOnce(): Promise<AlerterPass> {
    const { store, clock } = this.opts;
    const now = clock.now();
    // Retention: an hour between deletes is plenty for rows kept for days.
    if (this.lastPruneAt === null || now - this.lastPruneAt >= 3_600_000) {
      this.lastPruneAt = now;
      await store.alerts.pruneHistory(now - this.opts.historyRetentionMs);
    }
    const [signals, states] = await Promise.all([this.opts.signals(now), store.alerts.listStates()]);
    const e = evaluateAlerts({ signals, rules: this.opts.rules, policy: this.opts.policy, states, now });
    if (e.changes.length === 0) return { committed: false, lost: false, round: null };
    const written = await store.alerts.commitStates(e.changes, now);
    if (written === null) return { committed: false, lost: true, round: null };
    if (!e.round) return { committed: true, lost: false, round: null };

    const avoid = new Set<string>();
    for (const s of e.states) if (s.status === 'firing') addAccount(avoid, s);
    for (const a of e.round.announcements) addAccount(avoid, a);
    const message: AlertMessage = {
      id: newAlertMessageId(now),
      at: now,
      kind: 'round',
      title: e.round.title,
      lines: e.round.lines,
      announcements: e.round.announcements,
      avoidAccounts: avoid,
    };
    const { results, history } = await sendToTargets(this.opts.targets, message);
    await store.alerts.recordSent(history);
    if (results.some((r) => r.ok)) {
      for (const a of e.round.announcements) this.sent?.inc({ rule: a.rule, kind: a.kind });
    } else {
      // Nobody heard it: owe it again (a process that has moved the states since wins, and speaks itself).
      const back = await store.alerts.commitStates(unannounce(written, states, e.round), clock.now());
      this.opts.logger.warn({ targets: results.length, owedAgain: back !== null }, 'no alert target took the round');
    }
    return { committed: true, lost: false, round: { message, results } };
  }

  /** Sends a test message to every target (`herald alerts test`), recorded in the history as kind `test`. */
  async sendTest(): Promise<AlertTargetResult[]> {
    const now = this.opts.clock.now();
    const at = new Date(now).toISOString().slice(11, 16);
    const message: AlertMessage = {
      id: newAlertMessageId(now),
      at: now,
      kind: 'test',
      title: '[Herald] test alert',
      lines: [`This is a test of Herald's operator alerts, sent ${at} UTC. Alerts reach you here.`],
      announcements: [],
      avoidAccounts: new Set(),
    };
    const { results, history } = await sendToTargets(this.opts.targets, message);
    await this.opts.store.alerts.recordSent(history);
    return results;
  }
}

function addAccount(into: Set<string>, a: { rule: string; subject: string }): void {
  const account = accountSubject(a);
  if (account !== null) into.add(account);
}
