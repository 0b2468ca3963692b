/**
 * The campaign runner: a small maintenance service with start/stop and a runOnce() tests call.
 * Each pass it
 *  - re-holds queued deliveries of paused campaigns that a call in flight at the pause left
 *    retryable (the pause itself holds everything queued at that moment);
 *  - fans running campaigns out: walks the audience from the cursor in batches, builds each
 *    recipient's notification with intake's own rules (`IntakeService.prepare`; a template
 *    campaign renders its pinned version per recipient, in the recipient's locale, with the
 *    row's data), records the rows whose message cannot be built as refusals, and commits the
 *    batch, refusals included, with the cursor move. Fan-out keeps only `lookaheadSeconds` of the lane's rate queued
 *    per campaign, so a 600,000-recipient campaign is neither read nor queued all at once, and a
 *    pause has little to hold;
 *  - cancels what a cancelled campaign still has queued, through `decide` and guarded transitions;
 *  - finishes campaigns with nothing left to do.
 * A batch re-run after a crash cannot send twice: the batch and the cursor commit together, and
 * each notification is generation 1 of group `cmp:<campaign>:<recipient>`, which exists once.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { decide, DEFAULT_RETRY_POLICY, DEFAULT_SCHEDULING_POLICY, resolvePolicy, type Route, type SchedulingPolicy } from '../domain/index.js';
import { CAMPAIGN_HOLD_UNTIL } from '../domain/campaign-status.js';
import { LoopService } from '../periodic/loop-service.js';
import { HeraldError } from '../errors.js';
import type { IntakeService } from '../intake/intake-service.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import type { AudienceRow, CampaignRecord, CampaignRefusal } from '../store/campaign-store.js';
import type { PinnedVersion } from '../templates/template-renderer.js';
import { mayUseAccount, type AccountAccess, type NewNotification, type RouteChangeRecord, type Store, type TransitionWrite } from '../store/store.js';
import { accountForRow, drainCapacity, type DrainCapacity } from './route-capacity.js';
import { recipientRequest, RECIPIENT_REFUSALS, waveSchedule, waveStarts } from './recipient-message.js';

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
  /**
   * Seconds of the lane's rate kept queued ahead of the workers. 10 s at 2,000/s is 20,000
   * deliveries: ten runner passes (1 s apart) of slack, while fan-out's inserts are spread over
   * the drain instead of front-loaded. At 30 s (the earlier default) the runner inserted for the
   * first 50-65 s of a 100,000 campaign while the workers sent, and sending ran ~20 % slower
   * during that time (docs/benchmarks.md, bench:campaign).
   */
  lookaheadSeconds?: number;
  /**
   * The tenant's scheduling policy in force: its time zone is the zone of a recipient whose row
   * and stored profile name none (the zone the plan counted them under). The process's
   * SchedulingPolicies; default: the stored policy over the defaults, read each time.
   */
  scheduling?: { policyOf(tenantId: string): Promise<SchedulingPolicy> };
  /**
   * The configured routes (config `routes:`): a campaign whose channel and purpose have one is
   * spread over the route's healthy accounts in proportion to their rates, as its plan counted
   * them (route-capacity.ts); read again each pass, so a demoted account takes no more rows.
   */
  routes?: readonly Route[];
}

export interface CampaignPass {
  fannedOut: number;
  skipped: number;
  held: number;
  cancelled: number;
  finished: number;
}

export class CampaignRunner extends LoopService {
  private readonly batchSize: number;
  private readonly lookaheadSeconds: number;
  private readonly scheduling: NonNullable<CampaignRunnerOptions['scheduling']>;

  constructor(private readonly opts: CampaignRunnerOptions) {
    super({ intervalMs: opts.intervalMs ?? 1_000, logger: opts.logger, what: 'campaign pass' });
    this.batchSize = opts.batchSize ?? 500;
    this.lookaheadSeconds = opts.lookaheadSeconds ?? 10;
    this.scheduling = opts.scheduling ?? {
      policyOf: async (tenantId) => resolvePolicy((await opts.store.scheduling.getPolicy(tenantId))?.policy ?? null, DEFAULT_SCHEDULING_POLICY),
    };
  }

  /** One pass over every active campaign at this instant. */
  override async runOnce(): Promise<CampaignPass> {
    const { store, clock } = this.opts;
    const now = clock.now();
    const pass: CampaignPass = { fannedOut: 0, skipped: 0, held: 0, cancelled: 0, finished: 0 };
    pass.held = await store.campaigns.holdPausedDeliveries({ holdUntil: CAMPAIGN_HOLD_UNTIL });
    const active = await store.campaigns.listActiveCampaigns(100);
    // Read once per pass, and only when a running campaign could have a route.
    const latest = active.some((c) => c.status === 'running') && (this.opts.routes ?? []).length > 0 ? await store.routes.latestChanges() : [];
    for (const c of active) {
      // Log and continue, on purpose: one campaign whose batch fails (a database fault) must not
      // stop the others; its cursor did not move, so the next pass retries exactly that batch.
      try {
        if (c.status === 'running') {
          const r = await this.fanOut(c, now, latest);
          pass.fannedOut += r.fannedOut;
          pass.skipped += r.skipped;
          // Also after a resume, whose released deliveries are due now.
          for (const a of r.accounts) this.opts.wake?.(a);
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

  private async fanOut(
    c: CampaignRecord,
    now: number,
    latest: readonly RouteChangeRecord[],
  ): Promise<{ fannedOut: number; skipped: number; accounts: string[] }> {
    const { store } = this.opts;
    // Read once per pass: an account taken from the tenant stops the fan-out at the next pass.
    const access = await store.tenants.accountAccess(c.tenantId);
    const capacity = this.capacityOf(c, access, latest);
    const rate = capacity?.maxRate ?? 0;
    const lookahead = Math.max(this.batchSize, Math.ceil(rate * this.lookaheadSeconds));
    let queued = await store.campaigns.countCampaignQueued(c.id);
    let position = c.fannedOutPosition;
    const done = { fannedOut: 0, skipped: 0, accounts: capacity ? capacity.accounts.map((a) => a.account.id) : [c.providerAccount] };
    // Each row's account of the route (its share of the route's rate); none without a route of two healthy accounts.
    const prefer = capacity && capacity.accounts.length > 1 ? (row: AudienceRow) => accountForRow(capacity, row.position) : () => undefined;
    // The version pinned at creation (versions never change); a failure here is the campaign's
    // (a database fault), so the pass's catch retries it, cursor unmoved.
    const pinned = c.template === null ? undefined : await this.opts.intake.templates.pin(c.tenantId, c.template);
    // Each wave's start from the stored plan; the tenant's zone (read once per pass) for rows and profiles that name none.
    const waves = waveStarts(c.plan);
    const tenantZone = waves.size > 0 ? (await this.scheduling.policyOf(c.tenantId)).timeZone : null;
    while (queued < lookahead) {
      const rows = await store.campaigns.readAudienceRows(c.audienceId, position, Math.min(this.batchSize, lookahead - queued));
      if (rows.length === 0) break;
      const zones = tenantZone === null ? null : await this.zonesOf(c.tenantId, rows, tenantZone);
      const { notifications, refusals } = this.build(
        c,
        rows,
        now,
        pinned,
        access,
        (row) => (zones === null ? null : waveSchedule(c, waves.get(zones.get(row)!), now)),
        prefer,
      );
      const to = rows[rows.length - 1]!.position;
      // False: paused, cancelled, or another runner took this batch. Either way not ours to write.
      if (!(await store.campaigns.fanOutBatch({ campaignId: c.id, expectPosition: position, toPosition: to, notifications, refusals, now }))) break;
      position = to;
      queued += notifications.length;
      done.fannedOut += notifications.length;
      done.skipped += refusals.length;
    }
    return done;
  }

  /** What the campaign drains through this pass (route-capacity.ts); null when the configuration no longer has its account. */
  private capacityOf(c: CampaignRecord, access: AccountAccess, latest: readonly RouteChangeRecord[]): DrainCapacity | null {
    const first = this.opts.accounts.find((a) => a.id === c.providerAccount);
    if (!first) return null;
    const may = (a: { id: string }) => mayUseAccount(access, c.tenantId, a.id);
    return drainCapacity({
      routes: this.opts.routes ?? [],
      accounts: this.opts.accounts,
      tenantId: c.tenantId,
      channel: c.channel,
      purpose: c.purpose,
      first,
      may,
      latest,
    });
  }

  /**
   * The zone the send-time check will hold each row's message in: the row's own (an id-only row
   * took its profile's when the audience was loaded), else its stored profile's (one read per
   * batch, for the rows that name none), else the tenant's.
   */
  private async zonesOf(tenantId: string, rows: AudienceRow[], tenantZone: string): Promise<Map<AudienceRow, string>> {
    const zoneless = rows.filter((r) => r.recipient.time_zone == null).map((r) => r.recipient.id);
    const profiles = new Map<string, string | null>();
    if (zoneless.length > 0) for (const p of await this.opts.store.campaigns.getRecipients(tenantId, zoneless)) profiles.set(p.id, p.time_zone);
    return new Map(rows.map((r) => [r, r.recipient.time_zone ?? profiles.get(r.recipient.id) ?? tenantZone]));
  }

  /**
   * Each row's notification, built (and for a template campaign rendered, in the recipient's
   * locale with the row's data) by intake. A row whose own message cannot be built (its data, a
   * render error, a part over its limit) is recorded as a refusal with the reason and the others
   * go on; it is never retried, since the same inputs render the same way.
   */
  private build(
    c: CampaignRecord,
    rows: AudienceRow[],
    now: number,
    pinned: PinnedVersion | undefined,
    access: AccountAccess,
    waveOf: (row: AudienceRow) => ReturnType<typeof waveSchedule>,
    prefer: (row: AudienceRow) => string | undefined,
  ): { notifications: NewNotification[]; refusals: CampaignRefusal[] } {
    const notifications: NewNotification[] = [];
    const refusals: CampaignRefusal[] = [];
    for (const row of rows) {
      try {
        notifications.push(this.opts.intake.prepare(c.tenantId, recipientRequest(c, row, waveOf(row)), now, pinned, access, prefer(row)));
      } catch (err) {
        // Only the row's own data is refused (including a phone in a country SMS is not enabled for,
        // or a premium-rate one: docs/abuse-limits.md); anything else (no provider account for the
        // channel any more) stops the batch, which the next pass retries once the configuration is fixed.
        if (!(err instanceof HeraldError && RECIPIENT_REFUSALS.has(err.code))) throw err;
        const rendered = pinned && (err.code.startsWith('template_') || err.code === 'content_too_large');
        const locale = rendered ? this.opts.intake.templates.localeFor(pinned, row.recipient.locale, [c.channel]) : null;
        refusals.push({ position: row.position, line: row.line, recipientId: row.recipient.id, code: err.code, reason: err.detail, locale, createdAt: now });
        // The reason stays in the store (the tenant's API); the log names the row, never its data.
        this.opts.logger.warn({ campaignId: c.id, line: row.line, code: err.code }, 'campaign recipient refused at fan-out; recorded');
      }
    }
    return { notifications, refusals };
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
}
