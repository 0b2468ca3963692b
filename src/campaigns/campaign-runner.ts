/**
 * The campaign runner: a small maintenance service with start/stop and a runOnce() tests call.
 * Each pass it
 *  - re-holds queued deliveries of paused campaigns that a call in flight at the pause left
 *    retryable (the pause itself holds everything queued at that moment);
 *  - fans running campaigns out: walks the audience from the cursor in batches, builds each
 *    recipient's notification with intake's own rules (`IntakeService.prepare`) and commits the
 *    batch with the cursor move. Fan-out keeps only `lookaheadSeconds` of the lane's rate queued
 *    per campaign, so a 600,000-recipient campaign is neither read nor queued all at once, and a
 *    pause has little to hold;
 *  - cancels what a cancelled campaign still has queued, through `decide` and guarded transitions;
 *  - finishes campaigns with nothing left to do.
 * A batch re-run after a crash cannot send twice: the batch and the cursor commit together, and
 * each notification is generation 1 of group `cmp:<campaign>:<recipient>`, which exists once.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { decide, DEFAULT_RETRY_POLICY } from '../domain/index.js';
import { CAMPAIGN_HOLD_UNTIL } from '../domain/campaign-status.js';
import { PeriodicRunner } from '../periodic/periodic-runner.js';
import { HeraldError } from '../errors.js';
import type { IntakeService } from '../intake/intake-service.js';
import type { NotificationRequest } from '../intake/notification-request.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import type { AudienceRow, CampaignRecord } from '../store/campaign-store.js';
import type { AccountAccess, NewNotification, Store, TransitionWrite } from '../store/store.js';
import { laneCapacity } from './campaign-progress.js';

export interface CampaignRunnerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Builds notifications exactly as POST /v1/notifications would. */
  intake: IntakeService;
  accounts: ProviderAccountConfig[];
  /** Wakes the claim loops of an account that has new or released work. */
  wake?: (providerAccount: string) => void;
  intervalMs?: number;
  /** Notifications per fan-out transaction. 500: one commit per 500 notifications (~2,000 rows with deliveries and outbox events). */
  batchSize?: number;
  /** Seconds of the lane's rate kept queued ahead of the workers. 30 s at 2,000/s is 60,000 deliveries. */
  lookaheadSeconds?: number;
}

export interface CampaignPass {
  fannedOut: number;
  skipped: number;
  held: number;
  cancelled: number;
  finished: number;
}

export class CampaignRunner {
  private readonly batchSize: number;
  private readonly lookaheadSeconds: number;
  private readonly loop: PeriodicRunner;

  constructor(private readonly opts: CampaignRunnerOptions) {
    this.batchSize = opts.batchSize ?? 500;
    this.lookaheadSeconds = opts.lookaheadSeconds ?? 30;
    this.loop = new PeriodicRunner(() => this.runOnce(), { intervalMs: opts.intervalMs ?? 1_000, logger: opts.logger, what: 'campaign pass' });
  }

  /** One pass over every active campaign at this instant. */
  async runOnce(): Promise<CampaignPass> {
    const { store, clock } = this.opts;
    const now = clock.now();
    const pass: CampaignPass = { fannedOut: 0, skipped: 0, held: 0, cancelled: 0, finished: 0 };
    pass.held = await store.campaigns.holdPausedDeliveries({ holdUntil: CAMPAIGN_HOLD_UNTIL });
    for (const c of await store.campaigns.listActiveCampaigns(100)) {
      // Log and continue, on purpose: one campaign whose batch fails (a database fault) must not
      // stop the others; its cursor did not move, so the next pass retries exactly that batch.
      try {
        if (c.status === 'running') {
          const r = await this.fanOut(c, now);
          pass.fannedOut += r.fannedOut;
          pass.skipped += r.skipped;
          // Also after a resume, whose released deliveries are due now.
          this.opts.wake?.(c.providerAccount);
        } else if (c.status === 'cancelled') {
          pass.cancelled += await this.cancelQueued(c, now);
        }
        if ((await store.campaigns.finishCampaign({ id: c.id, now })) !== null) pass.finished++;
      } catch (err) {
        this.opts.logger.error({ err, campaignId: c.id }, 'campaign pass failed for this campaign; retrying next pass');
      }
    }
    // An upload that died mid-stream leaves a `loading` audience; a day is far past any upload.
    await store.campaigns.pruneLoadingAudiences(now - 24 * 3600_000);
    return pass;
  }

  private async fanOut(c: CampaignRecord, now: number): Promise<{ fannedOut: number; skipped: number }> {
    const { store } = this.opts;
    const account = this.opts.accounts.find((a) => a.id === c.providerAccount);
    const rate = account ? laneCapacity(account, c.purpose).maxRate : 0;
    const lookahead = Math.max(this.batchSize, Math.ceil(rate * this.lookaheadSeconds));
    let queued = await store.campaigns.countCampaignQueued(c.id);
    let position = c.fannedOutPosition;
    const done = { fannedOut: 0, skipped: 0 };
    // Read once per pass: an account taken from the tenant stops the fan-out at the next pass.
    const access = await store.tenants.accountAccess(c.tenantId);
    while (queued < lookahead) {
      const rows = await store.campaigns.readAudienceRows(c.audienceId, position, Math.min(this.batchSize, lookahead - queued));
      if (rows.length === 0) break;
      const { notifications, skipped } = this.build(c, rows, now, access);
      const to = rows[rows.length - 1]!.position;
      // False: paused, cancelled, or another runner took this batch. Either way not ours to write.
      if (!(await store.campaigns.fanOutBatch({ campaignId: c.id, expectPosition: position, toPosition: to, notifications, skipped, now }))) break;
      position = to;
      queued += notifications.length;
      done.fannedOut += notifications.length;
      done.skipped += skipped;
    }
    return done;
  }

  /** Each row's notification, built by intake; a row whose data intake refuses (a rule newer than the upload) is skipped and logged, not retried forever. */
  private build(c: CampaignRecord, rows: AudienceRow[], now: number, access: AccountAccess): { notifications: NewNotification[]; skipped: number } {
    const notifications: NewNotification[] = [];
    let skipped = 0;
    for (const row of rows) {
      const body: NotificationRequest = {
        recipient: row.recipient,
        purpose: c.purpose,
        channels: [c.channel],
        content: c.content,
        group: { key: `cmp:${c.id}:${row.recipient.id}`, generation: 1 },
        ttl_seconds: Math.round(c.ttlMs / 1000),
        metadata: { ...c.metadata, campaign_id: c.id },
      };
      try {
        notifications.push(this.opts.intake.prepare(c.tenantId, body, now, undefined, access));
      } catch (err) {
        // Only the row's own data is skipped; anything else (no provider account for the channel
        // any more) stops the batch, which the next pass retries once the configuration is fixed.
        if (!(err instanceof HeraldError && err.code === 'validation_failed')) throw err;
        skipped++;
        this.opts.logger.warn({ campaignId: c.id, line: row.line, code: err.code, detail: err.detail }, 'campaign recipient refused at fan-out; skipped');
      }
    }
    return { notifications, skipped };
  }

  /** Cancels a cancelled campaign's queued deliveries (held ones included), a batch at a time. */
  private async cancelQueued(c: CampaignRecord, now: number): Promise<number> {
    let cancelled = 0;
    for (;;) {
      const pending = await this.opts.store.campaigns.listCampaignPending(c.id, this.batchSize);
      const writes: TransitionWrite[] = [];
      for (const f of pending) {
        const d = decide(f, { type: 'cancel' }, { now, policy: DEFAULT_RETRY_POLICY, random: () => 0 });
        if (d.ok) writes.push({ deliveryId: f.deliveryId, expect: { state: f.state, leaseVersion: f.leaseVersion }, transition: d, now });
      }
      const applied = (await this.opts.store.applyTransitions(writes)).filter((r) => r.applied).length;
      cancelled += applied;
      if (pending.length < this.batchSize || applied === 0) return cancelled;
    }
  }

  start(): void {
    this.loop.start();
  }

  /** Asks for a pass now (a campaign started, resumed or was cancelled in this process). */
  poke(): void {
    this.loop.poke();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }
}
