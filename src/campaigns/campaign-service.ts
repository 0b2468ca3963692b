/**
 * What the campaign routes do: create a campaign with its plan (nothing is sent before the
 * caller starts it, or before `start: if_feasible` finds the plan feasible), start it with a
 * fresh plan, pause, resume, cancel, and show it with its progress. Fan-out itself is the
 * campaign runner's (campaign-runner.ts); this only changes what the runner will find.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import {
  DEFAULT_SCHEDULING_POLICY,
  planCampaign,
  planWaves,
  resolvePolicy,
  type CampaignPlan,
  type Channel,
  type Purpose,
  type Route,
  type SchedulingPolicy,
  type Wave,
  type WavePlan,
} from '../domain/index.js';
import { CAMPAIGN_HOLD_UNTIL, CAMPAIGN_TRANSITIONS, type CampaignAction, type CampaignStatus } from '../domain/campaign-status.js';
import { fieldError, HeraldError } from '../errors.js';
import { sendAtFingerprint } from '../intake/fingerprint.js';
import { keyMismatch } from '../intake/refusals.js';
import { isId, newId } from '../ids.js';
import type { IntakeService } from '../intake/intake-service.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import type { AudienceView, CampaignDeliveryCount, CampaignRecord } from '../store/campaign-store.js';
import type { PinnedVersion } from '../templates/template-renderer.js';
import { ADDRESS_COLUMN } from '../store/campaign-rows.js';
import { mayUseAccount, type RouteChangeRecord, type Store } from '../store/store.js';
import { AudienceLoader } from './audience-loader.js';
import type { ParsedLine } from './audience-parser.js';
import { campaignJson, campaignProgress, refusalJson } from './campaign-progress.js';
import { capacityJson, drainCapacity, type DrainCapacity } from './route-capacity.js';
import { checkCampaignRequest, type CampaignRequest } from './campaign-request.js';
import { recipientRequest, RECIPIENT_REFUSALS, type CampaignMessage } from './recipient-message.js';

export interface CampaignServiceOptions {
  store: Store;
  /** Intake's rules and its template renderer: a template campaign's first recipient is rendered at creation. */
  intake: IntakeService;
  accounts: ProviderAccountConfig[];
  clock: Clock;
  /** Where a failed clean-up (a key not freed, an inline audience not deleted) is logged, with ids only. */
  logger: Pick<Logger, 'warn'>;
  /** Called when a campaign starts or resumes (wakes an in-process campaign runner). */
  onRunnable?: () => void;
  /**
   * The tenant's scheduling policy in force (time zone, quiet hours) the waves are planned with:
   * the process's SchedulingPolicies (delivery/scheduling-policies.ts). Default: the stored
   * policy over the issue's defaults, read each time.
   */
  scheduling?: { policyOf(tenantId: string): Promise<SchedulingPolicy> };
  /** The configured routes (config `routes:`): a campaign whose channel and purpose have one drains through its healthy accounts together. */
  routes?: readonly Route[];
}

/**
 * The stored plan: the planner's answer plus its waves (domain/campaign-waves.ts), one per time
 * zone of the audience, in the order they may go. `waves` is null when the lane gives no rate.
 * `wave_warnings` says when a wave runs past the deadline or into its zone's next quiet hours;
 * `feasible` stays the planner's (the rate against the deadline).
 */
export type CampaignPlanWithWaves = CampaignPlan & { waves: Wave[] | null; wave_warnings: WavePlan['warnings']; capacity: ReturnType<typeof capacityJson> };

export type CampaignJson = ReturnType<typeof campaignJson>;

/** Yields an inline list as parsed lines, numbered from 1, so inline and uploaded audiences load the same way. */
async function* inline(items: ReadonlyArray<Record<string, unknown>>): AsyncGenerator<ParsedLine[]> {
  for (let i = 0; i < items.length; i += 1_000) {
    yield items.slice(i, i + 1_000).map((fields, j) => ({ kind: 'row' as const, line: i + j + 1, fields }));
  }
}

export class CampaignService {
  readonly loader: AudienceLoader;
  private readonly scheduling: NonNullable<CampaignServiceOptions['scheduling']>;

  constructor(private readonly opts: CampaignServiceOptions) {
    this.loader = new AudienceLoader({ store: opts.store, clock: opts.clock, logger: opts.logger });
    this.scheduling = opts.scheduling ?? {
      policyOf: async (tenantId) => resolvePolicy((await opts.store.scheduling.getPolicy(tenantId))?.policy ?? null, DEFAULT_SCHEDULING_POLICY),
    };
  }

  /**
   * The plan with its waves: the audience's recipients counted per time zone by one grouped read
   * (rows that name none counted under the tenant's zone), each zone's wave going when the
   * purpose's quiet hours end there, at the lane's rate the plan found.
   */
  private async withWaves(tenantId: string, purpose: Purpose, audienceId: string, plan: CampaignPlan, cap: DrainCapacity): Promise<CampaignPlanWithWaves> {
    const capacity = capacityJson(cap);
    if (!(plan.available_rate > 0)) return { ...plan, waves: null, wave_warnings: [], capacity };
    const policy = await this.scheduling.policyOf(tenantId);
    const perZone = new Map<string, number>();
    for (const z of await this.opts.store.campaigns.audienceZoneCounts(audienceId)) {
      const zone = z.timeZone ?? policy.timeZone;
      perZone.set(zone, (perZone.get(zone) ?? 0) + z.recipients);
    }
    const w = planWaves({
      now: plan.start_at,
      deadlineAt: plan.deadline_at,
      rate: plan.available_rate,
      window: policy.quietHours[purpose],
      zones: [...perZone].map(([time_zone, recipients]) => ({ time_zone, recipients })),
    });
    return { ...plan, waves: w.waves, wave_warnings: w.warnings, capacity };
  }

  /**
   * What the campaign drains through: the healthy accounts of its route together, or the one
   * account intake's rule picks (route-capacity.ts). Refuses as `account` does when the tenant has
   * no account for the channel.
   */
  private async capacity(tenantId: string, channel: Channel, purpose: Purpose): Promise<DrainCapacity> {
    const first = await this.account(tenantId, channel);
    const routes = this.opts.routes ?? [];
    if (routes.length === 0) return drainCapacity({ routes, accounts: this.opts.accounts, tenantId, channel, purpose, first, may: () => true, latest: [] });
    const access = await this.opts.store.tenants.accountAccess(tenantId);
    const latest = await this.opts.store.routes.latestChanges();
    return drainCapacity({
      routes,
      accounts: this.opts.accounts,
      tenantId,
      channel,
      purpose,
      first,
      may: (a) => mayUseAccount(access, tenantId, a.id),
      latest,
    });
  }

  /**
   * The lane rate a stored campaign drains at now (its projected finish): its route's healthy
   * accounts as of `latest`, or the account chosen at creation; 0 msg/s if the configuration no
   * longer has that account.
   */
  private rateNow(c: CampaignRecord, latest: readonly RouteChangeRecord[], may: (a: ProviderAccountConfig) => boolean): number {
    const first = this.opts.accounts.find((a) => a.id === c.providerAccount);
    if (!first) return 0;
    const routes = this.opts.routes ?? [];
    return drainCapacity({ routes, accounts: this.opts.accounts, tenantId: c.tenantId, channel: c.channel, purpose: c.purpose, first, may, latest }).maxRate;
  }

  /** The routes' latest changes and the tenant's account access, read only when routes are configured. */
  private async routeState(tenantId: string): Promise<{ latest: RouteChangeRecord[]; may: (a: ProviderAccountConfig) => boolean }> {
    if ((this.opts.routes ?? []).length === 0) return { latest: [], may: () => true };
    const access = await this.opts.store.tenants.accountAccess(tenantId);
    return { latest: await this.opts.store.routes.latestChanges(), may: (a) => mayUseAccount(access, tenantId, a.id) };
  }

  private async account(tenantId: string, channel: CampaignRecord['channel']): Promise<ProviderAccountConfig> {
    // The same rule as intake's: the first account configured for the channel that the tenant may use sends it.
    const forChannel = this.opts.accounts.filter((x) => x.channel === channel);
    const access = await this.opts.store.tenants.accountAccess(tenantId);
    const a = forChannel.find((x) => mayUseAccount(access, tenantId, x.id));
    if (!a && forChannel.length > 0)
      throw new HeraldError('provider_account_not_assigned', `no ${channel} provider account is assigned to this tenant`, [
        { field: 'channel', message: `${channel}: ${forChannel.map((x) => x.id).join(', ')} is not assigned to this tenant` },
      ]);
    if (!a)
      throw new HeraldError('no_provider_account', `no provider account is configured for the ${channel} channel`, [
        { field: 'channel', message: `${channel} has no provider account` },
      ]);
    return a;
  }

  /**
   * `create` under an Idempotency-Key (null: none): the same key and body replay the first answer,
   * so a retried `"start": "if_feasible"` cannot start a second campaign to the same people. A
   * refusal frees the key (nothing was written). The campaign and the stored answer are two
   * commits: a crash between them leaves the key locked for a minute, then a retry creates again.
   */
  async createOnce(tenantId: string, body: CampaignRequest, key: string | null): Promise<{ body: unknown; replayed: boolean }> {
    if (key === null) return { body: await this.create(tenantId, body), replayed: false };
    const { store, clock } = this.opts;
    // With send_at, two parts: the same campaign at another send_at is a send_at_conflict, never a silent move.
    const fingerprint = sendAtFingerprint('POST /v1/campaigns', body);
    const r = await store.reserveIdempotencyKey({ tenantId, key, fingerprint, now: clock.now(), lockMs: 60_000, retentionMs: 24 * 3600_000 });
    if (r.kind === 'replay') return { body: r.body, replayed: true };
    if (r.kind === 'mismatch') throw keyMismatch(r.fingerprint, fingerprint);
    if (r.kind === 'in_progress')
      throw new HeraldError('idempotency_key_in_use', 'a request with this Idempotency-Key is still being processed; retry shortly');
    let created: CampaignJson;
    try {
      created = await this.create(tenantId, body);
    } catch (err) {
      await store
        .releaseIdempotencyKey({ tenantId, key })
        .catch((e) => this.opts.logger.warn({ err: e, tenantId }, 'cannot free an Idempotency-Key after a failed campaign request; it lapses with its lock'));
      throw err;
    }
    await store.completeIdempotencyKey({ tenantId, key, fingerprint, statusCode: 201, body: created });
    return { body: created, replayed: false };
  }

  /** Plans a new campaign over its audience and stores it: `running` when `start: if_feasible` and the plan is feasible, else `draft`. */
  async create(tenantId: string, body: CampaignRequest): Promise<CampaignJson> {
    const { store, clock } = this.opts;
    const now = clock.now();
    const { deadlineAt, sendAt, ttlMs } = checkCampaignRequest(body, now, this.opts.intake.horizonMs);
    const capacity = await this.capacity(tenantId, body.channel, body.purpose);
    const primary = capacity.accounts[0]!;
    // Pinned now, before the audience is read: a later publish never changes this campaign.
    const pinned = body.template === undefined ? null : await this.pinTemplate(tenantId, body);
    const audience = await this.audience(tenantId, body);
    const owned = body.audience.audience_id === undefined;
    try {
      const missing = audience.size - audience.withAddress[body.channel];
      if (missing > 0) {
        const lines = await store.campaigns.audienceLinesWithout(audience.id, body.channel, 10);
        const label = (line: number) =>
          audience.source === 'inline'
            ? `audience.recipients[${line - 1}]`
            : audience.source === 'recipient_ids'
              ? `audience.recipient_ids[${line - 1}]`
              : `line ${line}`;
        const field = ADDRESS_COLUMN[body.channel];
        throw new HeraldError(
          'audience_invalid',
          `${missing} of ${audience.size} recipients have no ${field}, which the ${body.channel} channel needs${owned ? '' : ` (audience ${audience.id})`}`,
          lines.map((l) => ({ field: `${label(l)}.${field}`, message: `is required for the ${body.channel} channel` })),
        );
      }
      const id = newId('cmp', now);
      const message = {
        id,
        channel: body.channel,
        purpose: body.purpose,
        content: body.content ?? null,
        template: pinned === null ? null : { id: pinned.version.templateId, version: pinned.version.version },
        ttlMs,
        metadata: body.metadata ?? null,
        sendAt,
      };
      if (pinned !== null) await this.renderFirst(tenantId, message, pinned, audience, now);
      const plan = await this.withWaves(
        tenantId,
        body.purpose,
        audience.id,
        // From send_at when there is one: the waves follow (withWaves plans from plan.start_at).
        planCampaign({
          audienceSize: audience.size,
          now,
          ...(sendAt === null ? {} : { startAt: sendAt }),
          deadlineAt,
          laneMaxRate: capacity.maxRate,
          reservedShare: capacity.reservedShare,
        }),
        capacity,
      );
      const start = body.start === 'if_feasible' && plan.feasible;
      await store.campaigns.createCampaign({
        id,
        tenantId,
        name: body.name ?? null,
        status: start ? 'running' : 'draft',
        channel: body.channel,
        purpose: body.purpose,
        // The route's first healthy account (the campaign's own when it has no route); `plan.capacity` names them all.
        providerAccount: primary.account.id,
        lane: primary.lane,
        content: message.content,
        template: message.template,
        metadata: message.metadata,
        ttlMs,
        audienceId: audience.id,
        audienceSize: audience.size,
        deadlineAt,
        sendAt,
        plan,
        createdAt: now,
        startedAt: start ? now : null,
      });
      if (start) this.opts.onRunnable?.();
      return this.get(tenantId, id);
    } catch (err) {
      // An inline audience belongs to this request alone.
      if (owned)
        await store.campaigns
          .deleteAudience(audience.id)
          .catch((e) => this.opts.logger.warn({ err: e, audienceId: audience.id }, 'cannot delete the inline audience of a refused campaign'));
      throw err;
    }
  }

  /**
   * The version the campaign will render (422 template_unknown / template_not_published), with
   * a part for the campaign's channel in its default locale's chain (422 template_part_missing
   * naming template, version, locale and part): every recipient's locale falls back to it.
   */
  private async pinTemplate(tenantId: string, body: CampaignRequest): Promise<PinnedVersion> {
    const renderer = this.opts.intake.templates;
    const pinned = await renderer.pin(tenantId, body.template!);
    const { version } = pinned;
    const locale = renderer.localeFor(pinned, null, [body.channel]);
    if (version.locales[locale]?.[body.channel] === undefined) {
      const where = `template ${version.templateId} version ${version.version} (locale ${locale})`;
      throw new HeraldError('template_part_missing', `${where} has no ${body.channel} part, which the campaign's channel needs`, [
        { field: 'template', message: `${where} has no ${body.channel} part` },
      ]);
    }
    return pinned;
  }

  /**
   * Renders the audience's first recipient as fan-out will (its locale, its data, the channel's
   * and the account's limits) and refuses the campaign with that 422 when the template cannot
   * render it: a missing variable in the template is then found before a single recipient is
   * queued. Later rows that fail are recorded one by one at fan-out. A first row refused for its
   * own address data is left to fan-out, as for a campaign with content.
   */
  private async renderFirst(tenantId: string, message: CampaignMessage, pinned: PinnedVersion, audience: AudienceView, now: number) {
    const [first] = await this.opts.store.campaigns.readAudienceRows(audience.id, 0, 1);
    if (!first) return;
    try {
      this.opts.intake.prepare(tenantId, recipientRequest(message, first), now, pinned);
    } catch (err) {
      if (!(err instanceof HeraldError) || !RECIPIENT_REFUSALS.has(err.code)) throw err;
      if (err.code === 'validation_failed') return;
      const row =
        audience.source === 'inline'
          ? `audience.recipients[${first.line - 1}]`
          : audience.source === 'recipient_ids'
            ? `audience.recipient_ids[${first.line - 1}]`
            : `line ${first.line}`;
      throw new HeraldError(
        err.code,
        `rendering for the audience's first recipient (${row}): ${err.detail}`,
        [...err.errors, { field: `${row}.data`, message: 'is the data the template was rendered with' }],
        { cause: err },
      );
    }
  }

  private async audience(tenantId: string, body: CampaignRequest): Promise<AudienceView> {
    const a = body.audience;
    if (a.audience_id !== undefined) {
      const found = isId('aud', a.audience_id) ? await this.opts.store.campaigns.getAudience(tenantId, a.audience_id) : null;
      if (!found || found.status !== 'ready') throw fieldError('audience.audience_id', 'names no audience of yours; upload one with POST /v1/audiences');
      return found;
    }
    if (a.recipients !== undefined) {
      return this.loader.load(
        tenantId,
        'inline',
        inline(a.recipients as unknown as Array<Record<string, unknown>>),
        (line) => `audience.recipients[${line - 1}]`,
      );
    }
    const ids = a.recipient_ids ?? [];
    return this.loader.load(tenantId, 'recipient_ids', inline(ids.map((id) => ({ id }))), (line) => `audience.recipient_ids[${line - 1}]`);
  }

  /** The campaign with its progress; not_found for an unknown id or another tenant's. */
  async get(tenantId: string, id: string): Promise<CampaignJson> {
    const c = await this.record(tenantId, id);
    const { latest, may } = await this.routeState(tenantId);
    const rate = this.rateNow(c, latest, may);
    const counts = await this.opts.store.campaigns.campaignDeliveryCounts(c.id);
    const refused = await this.opts.store.campaigns.campaignRefusalCounts(c.id);
    return campaignJson(c, campaignProgress(c, counts, rate, this.opts.clock.now(), refused), rate);
  }

  /** A page of the campaign's refusals (recipients fan-out could not build a message for), after audience position `after`. */
  async refusals(tenantId: string, id: string, after: number, limit: number): Promise<{ items: ReturnType<typeof refusalJson>[]; next_cursor: string | null }> {
    const c = await this.record(tenantId, id);
    const rows = await this.opts.store.campaigns.listCampaignRefusals(c.id, after, limit + 1);
    const page = rows.slice(0, limit);
    return { items: page.map(refusalJson), next_cursor: rows.length > limit ? String(page[page.length - 1]!.position) : null };
  }

  /**
   * A page of the tenant's campaigns, newest first, each with its progress as GET
   * /v1/campaigns/:id shows it; the page's counts come from one aggregate query.
   */
  async list(
    tenantId: string,
    q: { status?: CampaignStatus; after: string | null; limit: number },
  ): Promise<{ items: CampaignJson[]; nextCursor: string | null }> {
    const page = await this.opts.store.campaigns.listCampaigns({ tenantId, ...q });
    const groups = await this.opts.store.campaigns.campaignDeliveryCountsMany(page.items.map((c) => c.id));
    const byCampaign = new Map<string, CampaignDeliveryCount[]>();
    for (const g of groups) byCampaign.set(g.campaignId, [...(byCampaign.get(g.campaignId) ?? []), g]);
    // Refusals are rare and per campaign: one small grouped read each, so a list item matches GET /v1/campaigns/:id.
    const refused = await Promise.all(page.items.map((c) => (c.skipped > 0 ? this.opts.store.campaigns.campaignRefusalCounts(c.id) : Promise.resolve([]))));
    const now = this.opts.clock.now();
    const { latest, may } = await this.routeState(tenantId);
    const items = page.items.map((c, i) => {
      const rate = this.rateNow(c, latest, may);
      return campaignJson(c, campaignProgress(c, byCampaign.get(c.id) ?? [], rate, now, refused[i]), rate);
    });
    return { items, nextCursor: page.nextCursor };
  }

  private async record(tenantId: string, id: string): Promise<CampaignRecord> {
    const c = isId('cmp', id) ? await this.opts.store.campaigns.getCampaign(tenantId, id) : null;
    if (!c) throw new HeraldError('not_found', `no campaign ${id}`);
    return c;
  }

  /** The caller's confirmation: draft → running, with the plan made again for starting now (or at its `send_at`, if that is ahead). */
  async start(tenantId: string, id: string): Promise<CampaignJson> {
    const c = await this.record(tenantId, id);
    const now = this.opts.clock.now();
    const capacity = await this.capacity(tenantId, c.channel, c.purpose);
    const plan = await this.withWaves(
      tenantId,
      c.purpose,
      c.audienceId,
      // A send_at still ahead is where the plan starts; one that has passed means now (planCampaign's rule).
      planCampaign({
        audienceSize: c.audienceSize,
        now,
        ...(c.sendAt === null ? {} : { startAt: c.sendAt }),
        deadlineAt: c.deadlineAt,
        laneMaxRate: capacity.maxRate,
        reservedShare: capacity.reservedShare,
      }),
      capacity,
    );
    if (!(await this.opts.store.campaigns.transitionCampaign({ tenantId, id, action: 'start', now, plan }))) await this.refuse(tenantId, id, 'start');
    this.opts.onRunnable?.();
    return this.get(tenantId, id);
  }

  /** running → paused: fan-out stops and queued deliveries are held; calls in flight finish. */
  async pause(tenantId: string, id: string): Promise<CampaignJson> {
    await this.record(tenantId, id);
    if (!(await this.opts.store.campaigns.pauseCampaign({ tenantId, id, now: this.opts.clock.now(), holdUntil: CAMPAIGN_HOLD_UNTIL })))
      await this.refuse(tenantId, id, 'pause');
    return this.get(tenantId, id);
  }

  /** paused → running: held deliveries are due again (their retry times kept) and fan-out continues. */
  async resume(tenantId: string, id: string): Promise<CampaignJson> {
    await this.record(tenantId, id);
    if (!(await this.opts.store.campaigns.resumeCampaign({ tenantId, id, now: this.opts.clock.now() }))) await this.refuse(tenantId, id, 'resume');
    this.opts.onRunnable?.();
    return this.get(tenantId, id);
  }

  /** draft, running or paused → cancelled: nothing more is fanned out and the runner cancels what is queued. */
  async cancel(tenantId: string, id: string): Promise<CampaignJson> {
    await this.record(tenantId, id);
    if (!(await this.opts.store.campaigns.transitionCampaign({ tenantId, id, action: 'cancel', now: this.opts.clock.now() })))
      await this.refuse(tenantId, id, 'cancel');
    this.opts.onRunnable?.();
    return this.get(tenantId, id);
  }

  /** The guarded update refused: say what the campaign is now (it may have changed since it was read). */
  private async refuse(tenantId: string, id: string, action: CampaignAction): Promise<never> {
    const c = await this.record(tenantId, id);
    const from = CAMPAIGN_TRANSITIONS[action].from.join(', ');
    throw new HeraldError('campaign_state_conflict', `campaign ${id} is ${c.status}; ${action} applies to a campaign that is ${from}`);
  }
}
