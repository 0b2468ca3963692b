/**
 * The report applier: writes the phones' state reports (`PATCH /message`, recorded by the device
 * API) into their deliveries, the gateway's counterpart of the evidence applier. A small
 * background service (start/stop, runOnce() for tests), one decision per report with `decide`:
 *
 * - the phone holds the message (`Pending`, `Processed`, `Sent`, `Delivered`, or `Failed` after
 *   `Sent`): evidence that it arrived (`unknown` → `accepted`, a pending resend stopped), and a
 *   downstream status on the lattice (`Sent` = sent, `Delivered` = delivered, a failed delivery
 *   report = failed);
 * - the phone failed it before sending (`Failed` without `Sent`, or `Cancelled`): `not_sent`,
 *   classified from the app's error (classify.ts): a retry on the purpose's ladder with a new
 *   offer, or `rejected`. Only for the delivery's current offer: an older one's failure is news
 *   about a submission that has been superseded.
 *
 * Reports of a delivery still `submitting` wait (the worker writes its outcome first); a guarded
 * write that loses a race leaves the report for the next pass.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { decide, ladderFor, mergeDownstream, reportMeaning, type DownstreamStatus, type Random, type Transition } from '../domain/index.js';
import { LoopService } from '../periodic/loop-service.js';
import { classifyPhoneFailure } from '../providers/android-gateway/classify.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import type { ReportWrite, Store, UnappliedReport } from '../store/store.js';

export interface ReportApplierOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  accounts: readonly ProviderAccountConfig[];
  intervalMs?: number;
  batchSize?: number;
  random?: Random;
  /** Wakes the claim loops of an account that has a retry due now. */
  wake?: (providerAccount: string) => void;
  /** Hears each applied report that says where the message is (herald_downstream_signals_total, channel sms). */
  onSignal?: (status: DownstreamStatus) => void;
}

export interface ReportPass {
  applied: number;
  /** Deliveries moved (unknown → accepted, accepted → retryable, ...). */
  transitions: number;
  raced: number;
}

/** The write one report asks for (pure: the delivery's facts and the report in, the guarded write out). */
export function planReport(r: UnappliedReport, now: number, account: ProviderAccountConfig | undefined, random: Random): ReportWrite {
  const d = r.delivery;
  const base = { offerId: r.offerId, reportSeq: r.reportSeq, deliveryId: d.deliveryId, now };
  const expect = { state: d.state, leaseVersion: d.leaseVersion, downstreamStatus: d.downstreamStatus };
  const snapshot = { state: d.state, terminalReason: d.terminalReason, attemptCount: d.attemptCount, expiresAt: d.expiresAt, nextAttemptAt: d.nextAttemptAt };
  const policy = ladderFor(d.purpose, d.retryLadder, account?.retry_ladders);
  const meaning = reportMeaning(r.phoneState, r.sent);
  const none: ReportWrite = {
    ...base,
    expect: null,
    transition: null,
    downstreamStatus: null,
    providerMessageId: null,
    lastErrorCode: null,
    resolvesAttempt: null,
  };
  if (meaning.kind === 'nothing') return none;
  if (meaning.kind === 'holds') {
    const decision = decide(snapshot, { type: 'evidence', found: true, providerMessageId: r.messageId }, { now, policy, random });
    const transition: Transition | null = decision.ok ? decision : null;
    const downstream = mergeDownstream(d.downstreamStatus, meaning.downstream);
    if (!transition && downstream === d.downstreamStatus) return none;
    return {
      ...base,
      expect,
      transition,
      downstreamStatus: downstream,
      providerMessageId: r.messageId,
      lastErrorCode: null,
      // The report settles the ambiguity of the attempt that offered this message.
      resolvesAttempt: transition && (d.state === 'unknown' || d.state === 'terminal') ? r.attemptNumber : null,
    };
  }
  if (!r.current) return none;
  const failure = classifyPhoneFailure(r.phoneState === 'Cancelled' ? 'Cancelled' : 'Failed', r.phoneError);
  const decision = decide(snapshot, { type: 'not_sent', permanent: failure.permanent, retryAfterMs: failure.retryAfterMs }, { now, policy, random });
  if (!decision.ok) return none;
  return {
    ...base,
    expect,
    transition: decision,
    downstreamStatus: d.downstreamStatus,
    providerMessageId: null,
    lastErrorCode: failure.code,
    resolvesAttempt: d.state === 'unknown' ? r.attemptNumber : null,
  };
}

export class ReportApplier extends LoopService {
  private readonly accounts: Map<string, ProviderAccountConfig>;
  private readonly random: Random;

  constructor(private readonly opts: ReportApplierOptions) {
    super({ intervalMs: opts.intervalMs ?? 1_000, logger: opts.logger, what: 'phone report pass' });
    this.accounts = new Map(opts.accounts.map((a) => [a.id, a] as const));
    this.random = opts.random ?? Math.random;
  }

  /** Applies every report waiting now; resolves with what it did. */
  override async runOnce(): Promise<ReportPass> {
    const pass: ReportPass = { applied: 0, transitions: 0, raced: 0 };
    const size = this.opts.batchSize ?? 200;
    for (;;) {
      const reports = await this.opts.store.devices.listUnappliedReports(size);
      if (reports.length === 0) break;
      const now = this.opts.clock.now();
      const writes = reports.map((r) => planReport(r, now, this.accounts.get(r.providerAccount), this.random));
      const results = await this.opts.store.devices.applyReports(writes);
      const woken = new Set<string>();
      results.forEach((ok, i) => {
        const w = writes[i]!;
        if (!ok) return void pass.raced++;
        pass.applied++;
        const meaning = reportMeaning(reports[i]!.phoneState, reports[i]!.sent);
        if (meaning.kind === 'holds') this.opts.onSignal?.(meaning.downstream);
        if (w.transition) {
          pass.transitions++;
          if (w.transition.to === 'retryable') woken.add(reports[i]!.providerAccount);
          this.opts.logger.info({ deliveryId: w.deliveryId, from: w.transition.from, to: w.transition.to, code: w.lastErrorCode }, 'phone report applied');
        }
      });
      for (const a of woken) this.opts.wake?.(a);
      // A batch that only raced is retried next pass, not now.
      if (reports.length < size || results.every((ok) => !ok)) break;
    }
    return pass;
  }
}
