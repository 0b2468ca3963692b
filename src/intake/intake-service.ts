/**
 * Accepting a notification: validate everything that can be validated, take the
 * idempotency key, then write notification, deliveries, outbox event and the stored
 * response in one transaction. Only then is 202 returned, and a worker woken.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { arrivalAllowanceMs, deriveDeliveryKey, type MessageContent, type Route as ConfiguredRoute, type RouteHealthView } from '../domain/index.js';
import { fieldError, HeraldError, toProblem } from '../errors.js';
import type { DeliveryCounters } from '../metrics/counters.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import type { ActivePushTarget } from '../store/push-store.js';
import { StoreConflictError, type AccountAccess, type NewNotification, type Store } from '../store/store.js';
import { RecentAccountAccess } from './recent-account-access.js';
import type { PhoneNumberFacts } from './phone-number.js';
import { notificationFingerprint } from './fingerprint.js';
import { acceptBatch, type BatchItem, type BatchItemAnswer, type PlannedNotification } from './batch-intake.js';
import { newId } from '../ids.js';
import { duplicateChallenge, keyMismatch, staleGeneration } from './refusals.js';
import { checkNotificationRequest, type CheckedRequest, type NotificationRequest } from './notification-request.js';
import { TemplateRenderer, type PinnedVersion, type RenderedTemplate } from '../templates/template-renderer.js';
import { DEFAULT_SEND_AT_HORIZON_MS, NO_INTAKE_LIMITS, type IntakeLimitsPolicy } from '../domain/index.js';
import { IntakeLimiter, type VelocityTicket } from './intake-limiter.js';
import { accountFilter, AccountRouting, type DeliveryRoute } from './account-routing.js';

export interface IntakeOptions {
  store: Store;
  accounts: ProviderAccountConfig[];
  clock: Clock;
  /** Where a failed clean-up (a key or a velocity take not given back) is logged, with ids only. */
  logger: Pick<Logger, 'warn'>;
  /** Tells workers that an account has new ready work (in-process signal or NOTIFY). */
  wake?: (providerAccount: string) => void;
  /**
   * Called once a notification is committed (after `wake`), before the 202 is answered; must not
   * block or throw (the API process's code fast path starts its send from here, unawaited).
   */
  onCommitted?: (notification: NewNotification) => void;
  /** How long a reservation blocks a concurrent duplicate before it is presumed dead. */
  idempotencyLockMs?: number;
  /** How long a completed key replays its response. 24 h, as Stripe, Resend and Novu do. */
  idempotencyRetentionMs?: number;
  /** Test hook: runs after the key is reserved and before the commit. */
  beforeCommit?: () => Promise<void>;
  /** The process's delivery counters: intake counts the deliveries a new generation superseded. */
  counters?: DeliveryCounters;
  /** Renders `template` references; default one over `store` (its cache is per process). */
  templates?: TemplateRenderer;
  /** The limits on the way in (config `limits`, docs/abuse-limits.md). Default: none. */
  limits?: IntakeLimitsPolicy;
  /** How far ahead `send_at` may be (config `scheduling.send_at_horizon_days`); default 30 days. */
  sendAtHorizonMs?: number;
  /**
   * The routes (config `routes:`, docs/routing.md) and their health as this process last read it
   * (the route evaluator): a delivery that pins no account takes the first account of its route the
   * tenant may use, healthy ones first (fastest first under `order: latency`). Default: none, the
   * channel's first account.
   */
  routing?: { routes: readonly ConfiguredRoute[]; health: RouteHealthView };
}

export interface IntakeResult {
  statusCode: number;
  body: unknown;
  /** True when the body is a stored response replayed for a repeated Idempotency-Key. */
  replayed: boolean;
}

/** How a caller other than POST /v1/notifications (a resend) submits a body it derived. */
export interface SubmitOptions {
  /**
   * The request the Idempotency-Key names when the body is derived from it: its fingerprint,
   * and the path a stored problem document carries as `instance`.
   */
  idempotency?: { fingerprint: string; instance: string };
  /** Fields added to the 202 body (and stored with the key), e.g. `resend_of`. */
  extra?: Record<string, unknown>;
  /**
   * Called once when the body's group generation was accepted meanwhile (a race), under the
   * same key reservation: returns the body to try instead (the next generation), or null to refuse.
   */
  onDuplicateChallenge?: (body: NotificationRequest) => Promise<NotificationRequest | null>;
  /** The notification's id, when a compatible API names it (SMSGate's message ids); default a new `ntf_` id. */
  notificationId?: string;
}

/** What one submit decided before its commit, shared by a retry of a raced generation. */
interface CommitContext {
  tenantId: string;
  routes: DeliveryRoute[];
  expiresAt: number;
  dueAt: number;
  /** The body's fallback plan, from its check (commit builds with it, without checking the body again). */
  fallback: CheckedRequest['fallback'];
  now: number;
  idempotencyKey: string | null;
  fingerprint: string;
  instance: string;
  extra: Record<string, unknown> | undefined;
  notificationId?: string | undefined;
}

export class IntakeService {
  private readonly lockMs: number;
  private readonly retentionMs: number;
  /** How far ahead `send_at` may be (`sendAtHorizonMs`); campaign creation checks a campaign's with it. */
  readonly horizonMs: number;
  /** The renderer intake uses (the template API's preview uses the same one, and its cache). */
  readonly templates: TemplateRenderer;
  /** The SMS country and number-type checks and the velocity takes (GET /v1/limits shows its policy). */
  readonly limits: IntakeLimiter;
  /** Which account each delivery goes through (account-routing.ts). */
  private readonly accountRouting: AccountRouting;
  /** The tenants' account access, read at most once a second per tenant; the tenants API forgets it on an (un)assignment. */
  readonly accountAccess: RecentAccountAccess;

  constructor(private readonly opts: IntakeOptions) {
    this.lockMs = opts.idempotencyLockMs ?? 60_000;
    this.retentionMs = opts.idempotencyRetentionMs ?? 24 * 3600_000;
    this.horizonMs = opts.sendAtHorizonMs ?? DEFAULT_SEND_AT_HORIZON_MS;
    this.templates = opts.templates ?? new TemplateRenderer(opts.store);
    this.accountRouting = new AccountRouting(opts.accounts, opts.routing);
    this.accountAccess = new RecentAccountAccess(opts.store, opts.clock);
    this.limits = new IntakeLimiter({
      store: opts.store,
      clock: opts.clock,
      logger: opts.logger,
      policy: opts.limits ?? NO_INTAKE_LIMITS,
      ...(opts.counters ? { counters: opts.counters } : {}),
    });
  }

  /**
   * The body with its `template` rendered into `content`, once, now: the version pinned (the
   * published one when the request names none), so a later publish never changes this message.
   * A body without a template is returned as it is. Throws a 422 for an unknown template or
   * version, a render error, a missing channel part or a part over its channel's limit.
   */
  async renderTemplate(tenantId: string, body: NotificationRequest): Promise<NotificationRequest> {
    if (body.template === undefined) return body;
    if (body.content !== undefined) throw fieldError('template', 'and content are exclusive: give one');
    const pinned = await this.templates.pin(tenantId, body.template);
    return this.withRendered(body, pinned);
  }

  /** `renderTemplate` for a version already pinned (campaign fan-out renders synchronously, per recipient). */
  withRendered(body: NotificationRequest, pinned: PinnedVersion): NotificationRequest {
    const ref = body.template!;
    const rendered = this.templates.render(pinned, ref, body.recipient.locale, body.channels);
    const { template: _ref, ...rest } = body;
    return { ...rest, content: renderedContent(rendered) };
  }

  /**
   * The notification a body becomes, checked exactly as `submit` checks it, without writing it:
   * campaign fan-out builds many and commits them in one transaction. `prefer`: the account of
   * the route to take if the tenant may use it (fan-out's spread over the route's healthy
   * accounts). Throws HeraldError for a body `submit` would refuse.
   */
  prepare(tenantId: string, request: NotificationRequest, now: number, pinned?: PinnedVersion, access?: AccountAccess, prefer?: string): NewNotification {
    if (request.template !== undefined && pinned === undefined) throw new Error('prepare: a template body needs its pinned version');
    const body = pinned === undefined ? request : this.withRendered(request, pinned);
    const { expiresAt, dueAt, fallback, phone } = checkNotificationRequest(body, now, this.horizonMs);
    // Fan-out builds synchronously: a push channel needs the audience row's push_token here.
    if (body.channels.includes('push') && body.recipient.push_token == null) throw fieldError('recipient.push_token', 'is required for the push channel');
    const on = prefer === undefined ? { tenantId, purpose: body.purpose } : { tenantId, purpose: body.purpose, prefer };
    const routes = this.accountRouting.routesFor(body, null, accountFilter(tenantId, access ?? null), on);
    this.checkRoutes(body, routes, { expiresAt, dueAt }, now, phone);
    return { ...this.build(tenantId, body, routes, { expiresAt, dueAt }, now), fallback };
  }

  /**
   * Everything submit checks on the request's own data before an idempotency key is taken (so a
   * 400 does not poison the key): the body's rules, the recipient's push subscriptions where push
   * has no token, provider accounts and their limits. Throws HeraldError for a body it refuses.
   */
  private async check(
    tenantId: string,
    body: NotificationRequest,
    now: number,
    readAccess: () => Promise<AccountAccess> = () => this.accountAccess.read(tenantId),
  ): Promise<CheckedRequest & { routes: DeliveryRoute[] }> {
    const { expiresAt, dueAt, fallback, phone } = checkNotificationRequest(body, now, this.horizonMs);
    let subscriptions: ActivePushTarget[] | null = null;
    if (body.channels.includes('push') && body.recipient.push_token == null) {
      subscriptions = await this.opts.store.push.activePushTargets(tenantId, body.recipient.id);
      if (subscriptions.length === 0) {
        throw fieldError(
          'recipient.push_token',
          'is required for the push channel: give it, or register a push subscription for the recipient (PUT /v1/recipients/{id}/push-subscriptions/{subscription})',
        );
      }
    }
    // Read at most once a second per tenant (a batch shares one read): an (un)assignment governs
    // every process within a second, this one at once (src/intake/recent-account-access.ts).
    const access = await readAccess();
    const routes = this.accountRouting.routesFor(body, subscriptions, accountFilter(tenantId, access), { tenantId, purpose: body.purpose });
    this.checkRoutes(body, routes, { expiresAt, dueAt }, now, phone);
    return { expiresAt, dueAt, fallback, phone, routes };
  }

  /** What a body's routes must allow, the same for submit, batch items and fan-out: the accounts' limits, arrival before expiry, the SMS limits. */
  private checkRoutes(
    body: NotificationRequest,
    routes: DeliveryRoute[],
    window: { expiresAt: number; dueAt: number },
    now: number,
    phone: PhoneNumberFacts | null,
  ): void {
    checkAccountLimits(body, routes);
    checkArrival(body, routes, window, now);
    this.limits.checkSms(routes, phone);
  }

  /**
   * A batch item (POST /v1/notifications/batch): checked exactly as `submit` checks a body, then
   * built into the notification, its 202 answer and the accounts to wake, without writing anything.
   */
  async plan(tenantId: string, request: NotificationRequest, now: number, readAccess?: () => Promise<AccountAccess>): Promise<PlannedNotification> {
    // The template rendered once, as for a single POST (the item's key fingerprints the request as sent).
    const body = await this.renderTemplate(tenantId, request);
    // One check per item: the recipient's phone-number check is the costliest part of a batch item.
    const { expiresAt, dueAt, fallback, routes } = await this.check(tenantId, body, now, readAccess);
    const notification = { ...this.build(tenantId, body, routes, { expiresAt, dueAt }, now), fallback };
    return { notification, response: acceptedBody(notification, now), accounts: [...new Set(routes.map((r) => r.account.id))] };
  }

  /**
   * Accepts a batch of bodies (POST /v1/notifications/batch), each answered on its own: see
   * batch-intake.ts. Items that passed the route's schema only; their answers come back in order.
   */
  submitBatch(tenantId: string, items: BatchItem[]): Promise<BatchItemAnswer[]> {
    // The tenant's account access read once for the whole batch (it was one read per item), and
    // only when an item gets that far: a batch refused item by item reads nothing.
    let access: Promise<AccountAccess> | undefined;
    const readAccess = () => (access ??= this.accountAccess.read(tenantId));
    return acceptBatch(
      {
        store: this.opts.store,
        clock: this.opts.clock,
        lockMs: this.lockMs,
        retentionMs: this.retentionMs,
        plan: (t, body, now) => this.plan(t, body, now, readAccess),
        limits: this.limits,
        ...(this.opts.wake ? { wake: this.opts.wake } : {}),
        ...(this.opts.counters ? { counters: this.opts.counters } : {}),
        ...(this.opts.beforeCommit ? { beforeCommit: this.opts.beforeCommit } : {}),
      },
      tenantId,
      items,
    );
  }

  /** Accepts one notification for a tenant; throws HeraldError for anything it refuses. */
  async submit(tenantId: string, request: NotificationRequest, idempotencyKey: string | null, options: SubmitOptions = {}): Promise<IntakeResult> {
    const now = this.opts.clock.now();
    // The key fingerprints the request as sent (its template reference), not what it rendered to.
    const fingerprint = options.idempotency?.fingerprint ?? notificationFingerprint(request);
    // Everything that can fail on the request's own data fails before the key is taken,
    // so a 400 does not poison the key and the corrected request may reuse it: the template
    // is rendered (and its limits checked) here too.
    const body = await this.renderTemplate(tenantId, request);
    const { expiresAt, dueAt, fallback, routes } = await this.check(tenantId, body, now);
    const instance = options.idempotency?.instance ?? '/v1/notifications';
    if (idempotencyKey !== null) {
      const r = await this.opts.store.reserveIdempotencyKey({
        tenantId,
        key: idempotencyKey,
        fingerprint,
        now,
        lockMs: this.lockMs,
        retentionMs: this.retentionMs,
      });
      if (r.kind === 'replay') return { statusCode: r.statusCode, body: r.body, replayed: true };
      if (r.kind === 'mismatch') throw keyMismatch(r.fingerprint, fingerprint);
      if (r.kind === 'in_progress') {
        throw new HeraldError('idempotency_key_in_use', 'a request with this Idempotency-Key is still being processed; retry shortly');
      }
    }

    const ctx: CommitContext = {
      tenantId,
      routes,
      expiresAt,
      dueAt,
      fallback,
      now,
      idempotencyKey,
      fingerprint,
      instance,
      extra: options.extra,
      notificationId: options.notificationId,
    };
    const ticket = await this.takeVelocity(ctx, body);
    try {
      const first = await this.commit(ctx, body, options.onDuplicateChallenge ?? null);
      // A race for the generation: the body the caller offered instead, committed once, without another retry.
      return 'retryWith' in first ? ((await this.commit({ ...ctx, fallback: first.fallback }, first.retryWith, null)) as IntakeResult) : first;
    } catch (err) {
      // Nothing was committed (a refused generation, a failure): the codes it counted were not sent.
      await this.limits.release(ticket);
      throw err;
    }
  }

  /**
   * Frees a reserved key after nothing was committed, so the client's retry is processed
   * normally. A failure is logged and not thrown: the caller is already answering with the
   * first error, and the reservation lapses by itself after its lock (`idempotencyLockMs`).
   */
  private async releaseKey(tenantId: string, key: string | null): Promise<void> {
    if (key === null) return;
    await this.opts.store
      .releaseIdempotencyKey({ tenantId, key })
      .catch((err) => this.opts.logger.warn({ err, tenantId }, 'cannot free an Idempotency-Key after a failed request; it lapses with its lock'));
  }

  /**
   * Counts the notification against its purpose's velocity rules once its key is reserved (so a
   * replay never counts); a refusal frees the key, so the same key may be sent again once the
   * window allows it.
   */
  private async takeVelocity(ctx: CommitContext, body: NotificationRequest): Promise<VelocityTicket> {
    // Read from the routes: the notification itself is built once, by commit().
    const request = { tenantId: ctx.tenantId, purpose: body.purpose, recipient: body.recipient, deliveries: ctx.routes };
    try {
      return await this.limits.take(request, ctx.now);
    } catch (err) {
      await this.releaseKey(ctx.tenantId, ctx.idempotencyKey);
      throw err;
    }
  }

  /**
   * Ends a request with a definite refusal: a repeat with the same key must get the same answer,
   * byte for byte, so the key is completed with the problem, carrying the `instance` the problem
   * handler adds live.
   */
  private async refuse(ctx: Pick<CommitContext, 'tenantId' | 'idempotencyKey' | 'fingerprint' | 'instance'>, refusal: HeraldError): Promise<never> {
    if (ctx.idempotencyKey !== null) {
      await this.opts.store.completeIdempotencyKey({
        tenantId: ctx.tenantId,
        key: ctx.idempotencyKey,
        fingerprint: ctx.fingerprint,
        statusCode: refusal.status,
        body: toProblem(refusal, ctx.instance),
      });
    }
    throw refusal;
  }

  /**
   * Builds and commits one notification under a reserved key. On a duplicate challenge,
   * `retry` may offer another body (once): then nothing is stored for the key yet and the
   * caller commits that body instead.
   */
  private async commit(
    ctx: CommitContext,
    body: NotificationRequest,
    retry: ((body: NotificationRequest) => Promise<NotificationRequest | null>) | null,
  ): Promise<IntakeResult | { retryWith: NotificationRequest; fallback: CheckedRequest['fallback'] }> {
    const { tenantId, routes, expiresAt, dueAt, fallback, now, idempotencyKey, fingerprint, extra } = ctx;
    // The body was checked before the key was taken (its fallback plan is in ctx): it is not checked, nor its number parsed, again.
    const notification = { ...this.build(tenantId, body, routes, { expiresAt, dueAt }, now, ctx.notificationId), fallback };
    const response = { ...acceptedBody(notification, now), ...extra };
    try {
      await this.opts.beforeCommit?.();
      const created = await this.opts.store.createNotification(
        notification,
        idempotencyKey === null ? undefined : { tenantId, key: idempotencyKey, fingerprint, statusCode: 202, body: response },
      );
      for (const s of created.superseded) this.opts.counters?.inc('superseded_deliveries', s);
    } catch (err) {
      if (err instanceof StoreConflictError && err.detail.constraint === 'notifications.stale_generation') {
        return this.refuse(ctx, staleGeneration(notification, err));
      }
      if (
        err instanceof StoreConflictError &&
        (err.detail.constraint === 'deliveries.idempotency_key' || err.detail.constraint === 'notifications.challenge')
      ) {
        if (retry !== null) {
          let next: NotificationRequest | null;
          let nextFallback: CheckedRequest['fallback'] = null;
          try {
            next = await retry(body);
            // The same request with another generation: the same checks, the same expiry.
            if (next !== null) nextFallback = checkNotificationRequest(next, now, this.horizonMs).fallback;
          } catch (retryErr) {
            // Nothing was committed: free the key so the client's retry is processed normally.
            await this.releaseKey(tenantId, idempotencyKey);
            throw retryErr;
          }
          if (next !== null) return { retryWith: next, fallback: nextFallback };
        }
        return this.refuse(ctx, duplicateChallenge(notification, err));
      }
      if (err instanceof StoreConflictError && err.detail.constraint === 'idempotency_keys') {
        // Our reservation outlived its lock and another request took the key over: it owns it now.
        throw new HeraldError('idempotency_key_in_use', 'a request with this Idempotency-Key is being processed; retry shortly', [], { cause: err });
      }
      // Nothing was committed: free the key so the client's retry is processed normally.
      await this.releaseKey(tenantId, idempotencyKey);
      throw err;
    }
    for (const a of new Set(routes.map((r) => r.account.id))) this.opts.wake?.(a);
    this.opts.onCommitted?.(notification);
    return { statusCode: 202, body: response, replayed: false };
  }

  private build(
    tenantId: string,
    body: NotificationRequest,
    routes: DeliveryRoute[],
    { expiresAt, dueAt }: { expiresAt: number; dueAt: number },
    now: number,
    notificationId?: string,
  ): NewNotification {
    const id = notificationId ?? newId('ntf', now);
    const groupKey = body.group?.key ?? `ntf:${id}`;
    const generation = body.group?.generation ?? 1;
    return {
      id,
      tenantId,
      recipient: body.recipient,
      purpose: body.purpose,
      channels: body.channels,
      content: withOtpFormat(body.content!, routes),
      groupKey,
      generation,
      metadata: body.metadata ?? null,
      retryLadder: body.retry?.ladder ?? null,
      pinnedChannels: body.channels.filter((c) => body.provider_accounts?.[c] !== undefined),
      expiresAt,
      createdAt: now,
      ...(dueAt > now ? { dueAt } : {}),
      deliveries: routes.map((r) => ({
        id: newId('dlv', now),
        channel: r.channel,
        providerAccount: r.account.id,
        destination: r.destination,
        idempotencyKey: deriveDeliveryKey({
          tenantId,
          recipientId: body.recipient.id,
          groupKey,
          generation,
          channel: r.channel,
          purpose: body.purpose,
          ...(r.subscriptionId === null ? {} : { subscriptionId: r.subscriptionId }),
        }),
      })),
    };
  }
}

/**
 * The 202 body of an accepted notification (also what its idempotency key replays): with
 * fallback only the first channel's delivery exists yet; the others are created in turn.
 */
function acceptedBody(notification: NewNotification, now: number): Record<string, unknown> {
  const fallback = notification.fallback ?? null;
  return {
    id: notification.id,
    purpose: notification.purpose,
    created_at: new Date(now).toISOString(),
    ...(notification.dueAt === undefined ? {} : { send_at: new Date(notification.dueAt).toISOString() }),
    expires_at: new Date(notification.expiresAt).toISOString(),
    ...(fallback
      ? {
          fallback: {
            after_seconds: fallback.afterMs / 1000,
            evidence: fallback.evidence,
            pending_channels: notification.deliveries.slice(1).map((d) => d.channel),
          },
        }
      : {}),
    deliveries: (fallback ? notification.deliveries.slice(0, 1) : notification.deliveries).map((d) => ({
      id: d.id,
      channel: d.channel,
      state: 'ready',
      provider_account: d.providerAccount,
    })),
  };
}

/**
 * The content as stored: a one-time code's mark-up resolved once, at intake, from the
 * notification's choices over its SMS account's `otp_sms_format`, so every attempt (and a
 * resend) sends the same text.
 */
function withOtpFormat(content: MessageContent, routes: DeliveryRoute[]): MessageContent {
  const otp = content.otp as { code: string; webotp_domain?: string | null; app_hash?: string | null } | null | undefined;
  if (otp == null) return content;
  const account = routes.find((r) => r.channel === 'sms')?.account.otp_sms_format;
  return {
    ...content,
    otp: { code: otp.code, webotp_domain: otp.webotp_domain ?? account?.webotp_domain ?? null, app_hash: otp.app_hash ?? account?.app_hash ?? null },
  };
}

/**
 * The limits of the accounts a notification will go through, checked at intake so a message
 * no provider would take is refused now (422), not accepted and then rejected: an e-mail
 * account's `max_html_bytes` (e.g. Gmail clips HTML past ~102 KB; a provider's own maximum).
 */
function checkAccountLimits(body: NotificationRequest, routes: DeliveryRoute[]): void {
  const html = body.content?.html;
  if (html == null) return;
  const bytes = Buffer.byteLength(html, 'utf8');
  const t = body.content?.template;
  routes.forEach(({ channel, account: a }) => {
    if (channel !== 'email' || a.max_html_bytes === undefined || bytes <= a.max_html_bytes) return;
    if (t) {
      const where = `template ${t.id} version ${t.version} (locale ${t.locale})`;
      throw new HeraldError(
        'template_content_too_large',
        `${where} email.html renders to ${bytes} bytes; provider account ${a.id} takes at most ${a.max_html_bytes}`,
        [{ field: 'template.email.html', message: `must render to at most ${a.max_html_bytes} bytes (UTF-8) for provider account ${a.id} (${where})` }],
      );
    }
    throw new HeraldError('content_too_large', `content.html is ${bytes} bytes; provider account ${a.id} takes at most ${a.max_html_bytes}`, [
      { field: 'content.html', message: `must be at most ${a.max_html_bytes} bytes (UTF-8) for provider account ${a.id}` },
    ]);
  });
}

/**
 * A notification none of whose deliveries could arrive before it expires is refused now (422
 * `expires_before_arrival`), not accepted and then ended `expired` without a call: from when it
 * may go, its validity is no longer than every route's arrival allowance (src/domain/arrival.ts;
 * SMS 1 s by default, so `ttl_seconds: 1` on an SMS). One channel that can still make it is enough.
 */
function checkArrival(body: NotificationRequest, routes: DeliveryRoute[], window: { expiresAt: number; dueAt: number }, now: number): void {
  const validity = window.expiresAt - Math.max(now, window.dueAt);
  const allowances = routes.map((r) => arrivalAllowanceMs(r.channel, r.account.arrival_allowance_ms));
  if (allowances.length === 0 || allowances.some((a) => validity > a)) return;
  const need = Math.min(...allowances);
  const field = body.expires_at !== undefined ? 'expires_at' : 'ttl_seconds';
  throw new HeraldError(
    'expires_before_arrival',
    `the message is valid for ${validity} ms from when it may go, no more than its channels need to arrive (${need} ms at least)`,
    [{ field, message: `must leave more than ${need} ms after ${body.send_at !== undefined ? 'send_at' : 'now'}, the time its channel needs to arrive` }],
  );
}

/**
 * A rendered template as stored content: the e-mail's parts at the top level (what every
 * channel without its own part sends), the SMS and push parts under `channels`, and the
 * template reference with its inputs hash under `template`.
 */
function renderedContent(r: RenderedTemplate): MessageContent {
  const { email, sms, push } = r.parts;
  const top = email ? { subject: email.subject, text: email.text, html: email.html } : sms ? { text: sms.text } : { subject: push!.title, text: push!.body };
  return {
    ...top,
    channels: {
      ...(sms ? { sms: { text: sms.text } } : {}),
      ...(push ? { push: { subject: push.title, text: push.body, data: push.data } } : {}),
    },
    template: { id: r.templateId, version: r.version, locale: r.locale, inputs_hash: r.inputsHash },
  };
}
