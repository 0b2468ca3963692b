/**
 * The webhook sender: a small background service (start/stop, and runOnce() for tests). Each
 * pass leases endpoints that have due messages and, per endpoint, sends rounds of requests:
 *
 * - only the first undelivered message of each notification is sendable, so a notification's
 *   events arrive in order (a later one waits until every earlier one is delivered); different
 *   notifications go concurrently, at most `concurrencyPerEndpoint` requests at a time;
 * - a failed message is retried on the Standard Webhooks schedule (retry-schedule.ts);
 * - when every request of a round fails, the endpoint as a whole backs off on the same
 *   schedule, and while it is failing it gets one request per step (a probe), not a burst;
 *   once a probe succeeds, full concurrency resumes and the backlog drains in order;
 * - 410 Gone disables the endpoint; so does failing without a success for `disableAfterMs`.
 *
 * At least once: a message whose 2xx was lost (timeout, crash before the record) is sent
 * again with the same `webhook-id`, which is the receiver's dedupe key.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { LoopService } from '../periodic/loop-service.js';
import type { Random } from '../domain/index.js';
import type { Store } from '../store/store.js';
import type { WebhookAttemptRecord, WebhookEndpointOutcome, WebhookMessage, WebhookTarget } from '../store/webhook-store.js';
import type { AddressPolicy } from './address-policy.js';
import { webhookBody } from './event-types.js';
import { classifyResult, webhookRetryDelayMs, type AttemptOutcome } from './retry-schedule.js';
import { signWebhook } from '../signing/standard-webhooks.js';
import { WebhookHttpClient } from './webhook-http.js';

export interface WebhookSenderOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  policy: AddressPolicy;
  /** Identifies this process's endpoint leases. Default: host, pid and a random suffix. */
  owner?: string;
  /** Per request. Default 15 s. */
  timeoutMs?: number;
  /** Requests in flight per endpoint (different notifications). Default 8. */
  concurrencyPerEndpoint?: number;
  /** Endpoints served at once by one pass. Default 16. */
  endpointsPerPass?: number;
  /** Rounds per endpoint per pass, so one busy endpoint cannot hold a pass forever. Default 100. */
  maxRoundsPerEndpoint?: number;
  /**
   * No new round for an endpoint after this long in one pass (by `clock`): a slow receiver gives
   * its lease back and the pass ends, so other endpoints are not kept waiting. Default 10 s.
   */
  passBudgetMs?: number;
  /** An endpoint failing without a single success for this long is disabled (`failing`). Default 5 days. */
  disableAfterMs?: number;
  random?: Random;
  intervalMs?: number;
}

export interface SendPass {
  endpoints: number;
  requests: number;
  delivered: number;
  failed: number;
  disabled: number;
}

/** The webhook sender service; see the file comment. */
export class WebhookSender extends LoopService {
  private readonly owner: string;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly random: Random;
  private readonly http: WebhookHttpClient;

  constructor(private readonly opts: WebhookSenderOptions) {
    super({ intervalMs: opts.intervalMs ?? 1_000, logger: opts.logger, what: 'webhook send pass' });
    this.owner = opts.owner ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.concurrency = Math.max(1, opts.concurrencyPerEndpoint ?? 8);
    const timeoutMs = opts.timeoutMs ?? 15_000;
    // Renewed after every round; a round lasts at most one request timeout plus two writes.
    this.leaseMs = 2 * timeoutMs + 30_000;
    this.random = opts.random ?? Math.random;
    this.http = new WebhookHttpClient({ policy: opts.policy, timeoutMs });
  }

  /** One pass: leases due endpoints and serves each until it has nothing due, fails, or used its rounds. */
  override async runOnce(): Promise<SendPass> {
    const pass: SendPass = { endpoints: 0, requests: 0, delivered: 0, failed: 0, disabled: 0 };
    const targets = await this.opts.store.webhooks.claimWebhookEndpoints({
      now: this.opts.clock.now(),
      owner: this.owner,
      leaseMs: this.leaseMs,
      limit: this.opts.endpointsPerPass ?? 16,
    });
    pass.endpoints = targets.length;
    await Promise.all(
      targets.map((t) =>
        this.serve(t, pass)
          .catch((err) => this.opts.logger.error({ err, endpointId: t.id }, 'webhook endpoint pass failed; its lease runs out and it is retried'))
          .finally(() =>
            this.opts.store.webhooks
              .releaseWebhookEndpoint({ endpointId: t.id, owner: this.owner })
              .catch((err) => this.opts.logger.warn({ err, endpointId: t.id }, 'cannot release the webhook endpoint; its lease runs out instead')),
          ),
      ),
    );
    return pass;
  }

  private async serve(target: WebhookTarget, pass: SendPass): Promise<void> {
    let failures = target.failureCount;
    const rounds = this.opts.maxRoundsPerEndpoint ?? 100;
    const until = this.opts.clock.now() + (this.opts.passBudgetMs ?? 10_000);
    for (let round = 0; round < rounds; round++) {
      const now = this.opts.clock.now();
      if (round > 0 && now >= until) return;
      const heads = await this.opts.store.webhooks.listWebhookHeads({ endpointId: target.id, now, limit: failures > 0 ? 1 : this.concurrency });
      if (heads.length === 0) return;
      const outcomes = await Promise.all(heads.map((m) => this.send(target, m)));
      const done = this.opts.clock.now();
      const attempts: WebhookAttemptRecord[] = heads.map((m, i) => this.record(m, outcomes[i]!, done));
      const endpoint = this.endpointOutcome(target, outcomes, failures, done);
      await this.opts.store.webhooks.recordWebhookAttempts({
        endpointId: target.id,
        owner: this.owner,
        now: done,
        leaseUntil: done + this.leaseMs,
        attempts,
        endpoint,
      });
      pass.requests += outcomes.length;
      pass.delivered += outcomes.filter((o) => o.kind === 'delivered').length;
      pass.failed += outcomes.filter((o) => o.kind !== 'delivered').length;
      if (endpoint.kind === 'disabled') {
        pass.disabled++;
        this.opts.logger.warn({ endpointId: target.id, reason: endpoint.reason }, 'webhook endpoint disabled');
      }
      if (endpoint.kind !== 'healthy') return;
      failures = 0;
    }
  }

  /** One signed request; the signing time is this attempt's, the body and webhook-id are the message's. */
  private async send(target: WebhookTarget, m: WebhookMessage): Promise<AttemptOutcome> {
    const now = this.opts.clock.now();
    // During a rotation both secrets sign, so a receiver holding either one verifies.
    const secrets = [target.secret, ...(target.previousSecret && target.previousSecret.until > now ? [target.previousSecret.secret] : [])];
    const body = webhookBody(m);
    const headers = { ...signWebhook(secrets, m.id, now, body) };
    return classifyResult(await this.http.post(target.url, headers, body), this.opts.clock.now());
  }

  private record(m: WebhookMessage, o: AttemptOutcome, now: number): WebhookAttemptRecord {
    if (o.kind === 'delivered') return { messageId: m.id, delivered: true, status: o.status, error: null, nextAttemptAt: null };
    if (o.kind === 'gone') return { messageId: m.id, delivered: false, status: 410, error: 'answered 410 Gone', nextAttemptAt: now };
    return {
      messageId: m.id,
      delivered: false,
      status: o.status,
      error: o.error,
      nextAttemptAt: now + webhookRetryDelayMs(m.attempts + 1, this.random, o.retryAfterMs),
    };
  }

  private endpointOutcome(target: WebhookTarget, outcomes: AttemptOutcome[], failures: number, now: number): WebhookEndpointOutcome {
    if (outcomes.some((o) => o.kind === 'gone'))
      return { kind: 'disabled', reason: 'gone', status: 410, error: 'answered 410 Gone: the receiver asked for no more webhooks' };
    if (outcomes.some((o) => o.kind === 'delivered')) return { kind: 'healthy' };
    const failed = outcomes.filter((o): o is Extract<AttemptOutcome, { kind: 'failed' }> => o.kind === 'failed');
    const last = failed[failed.length - 1]!;
    const since = failures > 0 && target.failingSince !== null ? target.failingSince : now;
    if (now - since >= (this.opts.disableAfterMs ?? 5 * 24 * 3_600_000)) {
      return {
        kind: 'disabled',
        reason: 'failing',
        status: last.status,
        error: `no successful request since ${new Date(since).toISOString()}; last: ${last.error}`,
      };
    }
    const retryAfterMs = Math.max(0, ...failed.map((o) => o.retryAfterMs ?? 0)) || null;
    return { kind: 'failing', nextAttemptAt: now + webhookRetryDelayMs(failures + 1, this.random, retryAfterMs), status: last.status, error: last.error };
  }

  /** Stops the loop, waits for a pass in progress, and closes idle connections. */
  override async stop(): Promise<void> {
    await super.stop();
    this.http.close();
  }
}
