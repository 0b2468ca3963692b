/**
 * How an operator alert message reaches its targets, without the queue it may be alerting
 * about: e-mail and SMS go straight to a provider adapter of one of Herald's own accounts (the
 * same adapters the worker holds, built by `runtime/`'s `createAdapter`), trying the accounts
 * in order of preference and never the account the message is about while another exists;
 * webhooks go through the customer webhooks' HTTP client (the SSRF address policy at connect
 * time, no redirects, a deadline) signed with Standard Webhooks. Every try is one history row
 * per announcement, with a masked target and an error class, never the message's text.
 */
import { createHash, randomBytes } from 'node:crypto';
import { accountOrder, maskEmail, maskPhone, maskUrl, type AlertRound, type SubmitOutcome } from '../domain/index.js';
import type { ProviderAccountConfig, ProviderAdapter } from '../providers/provider.js';
import { signWebhook } from '../signing/standard-webhooks.js';
import type { AlertHistoryKind, AlertTargetKind, NewAlertSent } from '../store/alert-store.js';
import type { WebhookHttpClient } from '../webhooks/webhook-http.js';

/** One message: an evaluation's round, or a test. */
export interface AlertMessage {
  /** Unique per message: the webhook-id and the adapters' idempotency key stem. */
  id: string;
  at: number;
  kind: 'round' | 'test';
  title: string;
  lines: string[];
  /** The announcements of a round (empty for a test). */
  announcements: AlertRound['announcements'];
  /** Provider accounts the message is about: not used to send it while another account of the channel exists. */
  avoidAccounts: ReadonlySet<string>;
}

/** One try at one target. */
export interface AlertTry {
  providerAccount: string | null;
  ok: boolean;
  /** Null when ok. */
  errorClass: string | null;
}

/** What became of a message at one target. */
export interface AlertTargetResult {
  targetKind: AlertTargetKind;
  target: string;
  ok: boolean;
  tries: AlertTry[];
}

/** A configured target. */
export interface AlertTarget {
  readonly kind: AlertTargetKind;
  /** Masked, for output and history. */
  readonly masked: string;
  send(message: AlertMessage): Promise<AlertTry[]>;
}

/** A new message id: `alert_<ms>_<hex>` (no `.`: it is a webhook-id). */
export function newAlertMessageId(now: number): string {
  return `alert_${now}_${randomBytes(6).toString('hex')}`;
}

/** The class of a submission that was not accepted: its outcome kind, and the reason of a permanent one. */
export function outcomeClass(o: Exclude<SubmitOutcome, { kind: 'accepted' }>): string {
  return o.kind === 'permanent' ? `permanent:${o.reason}` : o.kind;
}

/** An e-mail address or SMS number reached through Herald's own provider accounts. */
export class ProviderAlertTarget implements AlertTarget {
  readonly masked: string;
  constructor(
    readonly kind: 'email' | 'sms',
    private readonly destination: string,
    /** Account ids in order of preference. */
    private readonly preference: readonly string[],
    private readonly accounts: ReadonlyMap<string, ProviderAccountConfig>,
    private readonly adapters: ReadonlyMap<string, ProviderAdapter>,
  ) {
    this.masked = kind === 'email' ? maskEmail(destination) : maskPhone(destination);
  }

  async send(m: AlertMessage): Promise<AlertTry[]> {
    const tries: AlertTry[] = [];
    const order = accountOrder(this.preference, m.avoidAccounts);
    if (order.length === 0) return [{ providerAccount: null, ok: false, errorClass: 'no_account' }];
    // Per message, target and try: a retried try is a new message to the provider, never a duplicate key.
    const target = createHash('sha256').update(this.destination).digest('hex').slice(0, 12);
    for (const id of order) {
      const adapter = this.adapters.get(id);
      const account = this.accounts.get(id);
      if (!adapter || !account) {
        tries.push({ providerAccount: id, ok: false, errorClass: 'no_adapter' });
        continue;
      }
      const key = `herald-${m.id}-${target}-${tries.length}`;
      let outcome: SubmitOutcome;
      try {
        outcome = await adapter.submit(
          {
            deliveryId: key,
            idempotencyKey: key,
            channel: this.kind,
            purpose: 'alert',
            destination: this.destination,
            content: this.kind === 'email' ? { subject: m.title, text: m.lines.join('\n') } : { text: `${m.title}\n${m.lines.join('\n')}` },
            expiresAt: m.at + 10 * 60_000,
          },
          AbortSignal.timeout(account.timeout_ms + 1_000),
        );
      } catch (err) {
        // An adapter rejects only on a programming error; the next account may still work.
        outcome = { kind: 'unknown', code: 'adapter_threw', message: (err as Error).name };
      }
      if (outcome.kind === 'accepted') {
        tries.push({ providerAccount: id, ok: true, errorClass: null });
        return tries;
      }
      tries.push({ providerAccount: id, ok: false, errorClass: outcomeClass(outcome) });
    }
    return tries;
  }
}

/** A signed JSON POST to an operator's URL. */
export class WebhookAlertTarget implements AlertTarget {
  readonly kind = 'webhook' as const;
  readonly masked: string;
  constructor(
    private readonly url: string,
    private readonly secret: string,
    private readonly http: WebhookHttpClient,
  ) {
    this.masked = maskUrl(url);
  }

  async send(m: AlertMessage): Promise<AlertTry[]> {
    const body = JSON.stringify({
      type: m.kind === 'test' ? 'alert.test' : 'alert.round',
      id: m.id,
      at: new Date(m.at).toISOString(),
      title: m.title,
      text: m.lines.join('\n'),
      alerts: m.announcements.map((a) => ({ rule: a.rule, subject: a.subject, kind: a.kind, reminder: a.reminder, line: a.line })),
    });
    const r = await this.http.post(this.url, { ...signWebhook([this.secret], m.id, m.at, body) }, body);
    if (r.kind === 'response' && r.status >= 200 && r.status < 300) return [{ providerAccount: null, ok: true, errorClass: null }];
    const errorClass = r.kind === 'response' ? `http_${r.status}` : r.error.startsWith('refused') ? 'address_refused' : 'network';
    return [{ providerAccount: null, ok: false, errorClass }];
  }
}

/** Sends one message to every target (in parallel) and returns each target's result and the history rows. */
export async function sendToTargets(targets: readonly AlertTarget[], m: AlertMessage): Promise<{ results: AlertTargetResult[]; history: NewAlertSent[] }> {
  const results = await Promise.all(
    targets.map(async (t): Promise<AlertTargetResult> => {
      const tries = await t.send(m);
      return { targetKind: t.kind, target: t.masked, ok: tries.some((x) => x.ok), tries };
    }),
  );
  const about: Array<{ rule: string | null; subject: string | null; kind: AlertHistoryKind }> =
    m.kind === 'test' ? [{ rule: null, subject: null, kind: 'test' }] : m.announcements.map((a) => ({ rule: a.rule, subject: a.subject, kind: a.kind }));
  const history: NewAlertSent[] = [];
  for (const r of results) {
    for (const t of r.tries) {
      for (const a of about) {
        history.push({
          sentAt: m.at,
          ...a,
          targetKind: r.targetKind,
          target: r.target,
          providerAccount: t.providerAccount,
          outcome: t.ok ? 'sent' : 'failed',
          errorClass: t.errorClass,
        });
      }
    }
  }
  return { results, history };
}
