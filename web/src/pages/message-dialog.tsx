/**
 * The message detail dialog: the notification, each delivery's attempt timeline, its evidence,
 * the ambiguity policy in force, who did what, and the actions (retry, resend as a new
 * generation, cancel). It follows the event stream, so a retry's progress shows in place.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, get, post, type Role } from '../api.js';
import { Confirm, Dialog, ErrorNote, Facts, StateBadge, useResource } from '../components.js';
import { duration, time } from '../format.js';
import { useLive } from '../live.js';
import type { Action, Attempt, Delivery, EvidenceEvent, NotificationDetail, ProviderAccount } from '../types.js';
import { RetryAction } from './retry-action.js';

type Detail = { delivery: Delivery; notification: NotificationDetail; accounts: ProviderAccount[]; evidence: Map<string, EvidenceEvent[]> };

const CANCELLABLE = new Set(['ready', 'retryable', 'unknown']);

async function load(deliveryId: string): Promise<Detail> {
  const delivery = await get<Delivery>(`/v1/deliveries/${encodeURIComponent(deliveryId)}`);
  const [notification, accounts] = await Promise.all([
    get<NotificationDetail>(`/v1/notifications/${encodeURIComponent(delivery.notification_id)}`),
    get<{ items: ProviderAccount[] }>('/v1/provider-accounts').then(
      (r) => r.items,
      () => [],
    ),
  ]);
  // Each delivery's evidence is on its own detail (GET /v1/deliveries/:id); a notification has at most one delivery per channel.
  const evidence = new Map<string, EvidenceEvent[]>([[delivery.id, delivery.evidence ?? []]]);
  const others = notification.deliveries.filter((d) => d.id !== delivery.id);
  const details = await Promise.all(others.map((d) => get<Delivery>(`/v1/deliveries/${encodeURIComponent(d.id)}`).catch(() => null)));
  for (const d of details) if (d) evidence.set(d.id, d.evidence ?? []);
  return { delivery, notification, accounts, evidence };
}

export function MessageDialog(props: { deliveryId: string; role: Role; onClose: () => void; onChanged: () => void }): JSX.Element {
  const detail = useResource(() => load(props.deliveryId), props.deliveryId);
  const ids = new Set(detail.data?.notification.deliveries.map((d) => d.id) ?? [props.deliveryId]);
  useLive(detail.reload, (e) => e.data.delivery_id === undefined || ids.has(e.data.delivery_id), 150);
  const title = `Delivery ${props.deliveryId}`;

  if (!detail.data)
    return (
      <Dialog title={title} onClose={props.onClose} wide>
        {detail.error ? <ErrorNote error={detail.error} /> : <p class="loading">Loading…</p>}
      </Dialog>
    );
  const { notification: n } = detail.data;
  const actions: Action[] = [...(n.actions ?? []), ...(detail.data.delivery.actions ?? [])];
  const seen = new Set<string>();
  const uniqueActions = actions.filter((a) => {
    const k = `${a.at}|${a.action}|${a.by.id}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return (
    <Dialog title={title} onClose={props.onClose} wide>
      <ErrorNote error={detail.error} />
      <section aria-labelledby="n-title">
        <h3 id="n-title">Notification</h3>
        <Facts
          items={[
            ['Notification', <span class="mono">{n.id}</span>],
            ['Recipient', <span class="mono">{n.recipient_id}</span>],
            ['Purpose', n.purpose],
            ['Channels', n.channels.join(', ')],
            ['Challenge', `${n.group.key} · generation ${n.group.generation}`],
            ['Created', time(n.created_at)],
            ['Expires', time(n.expires_at)],
          ]}
        />
        {n.reports && n.reports.length > 0 ? (
          <p>User reports: {n.reports.map((r) => `${r.kind}${r.channel ? ` (${r.channel})` : ''} at ${time(r.created_at)}`).join('; ')}</p>
        ) : null}
      </section>
      {n.deliveries.map((d) => (
        <DeliverySection
          key={d.id}
          d={d}
          n={n}
          evidence={detail.data!.evidence.get(d.id) ?? []}
          focused={d.id === props.deliveryId}
          account={detail.data!.accounts.find((a) => a.id === d.provider_account)}
          role={props.role}
          onDone={() => {
            detail.reload();
            props.onChanged();
          }}
        />
      ))}
      <section aria-labelledby="a-title">
        <h3 id="a-title">Actions taken</h3>
        {uniqueActions.length === 0 ? (
          <p class="muted">No one has acted on this notification.</p>
        ) : (
          <ul class="timeline">
            {uniqueActions.map((a) => (
              <li key={`${a.at}${a.action}`}>
                <time dateTime={a.at}>{time(a.at)}</time> <strong>{a.action}</strong> by {a.by.name} ({a.by.kind} {a.by.id})
                {a.detail ? <span class="muted"> {JSON.stringify(a.detail)}</span> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </Dialog>
  );
}

function DeliverySection(props: {
  d: NotificationDetail['deliveries'][number];
  n: NotificationDetail;
  evidence: EvidenceEvent[];
  focused: boolean;
  account: ProviderAccount | undefined;
  role: Role;
  onDone: () => void;
}): JSX.Element {
  const { d, n } = props;
  const lastPolicy = [...d.attempts].reverse().find((a) => a.ambiguity_policy)?.ambiguity_policy;
  const policies = (props.account as { ambiguity_policies?: Record<string, string> } | undefined)?.ambiguity_policies;
  const policy = lastPolicy ?? policies?.[d.purpose] ?? props.account?.ambiguity_policy ?? '—';
  return (
    <section class={props.focused ? 'delivery delivery-focused' : 'delivery'} aria-labelledby={`d-${d.id}`} data-delivery={d.id}>
      <h3 id={`d-${d.id}`}>
        {d.channel} delivery <span class="mono">{d.id}</span> <StateBadge state={d.state} reason={d.terminal_reason} />
      </h3>
      <Facts
        items={[
          ['Provider account', d.provider_account],
          ['Downstream status', d.downstream_status ?? '—'],
          ['Provider message id', d.provider_message_id ?? '—'],
          ['Attempts', String(d.attempt_count)],
          ['Next attempt', time(d.next_attempt_at)],
          ['Expires', time(d.expires_at)],
          ['Ambiguity policy', policy],
          ...(d.sms ? ([['SMS', `${d.sms.segments} segment(s), ${d.sms.encoding}`]] as Array<[string, string]>) : []),
        ]}
      />
      <h4>Attempt timeline</h4>
      {d.attempts.length === 0 ? <p class="muted">No attempt yet.</p> : <AttemptTimeline attempts={d.attempts} />}
      <h4>Evidence</h4>
      <Evidence d={d} evidence={props.evidence} />
      <DeliveryActions d={d} n={n} role={props.role} onDone={props.onDone} />
    </section>
  );
}

function AttemptTimeline(props: { attempts: Attempt[] }): JSX.Element {
  return (
    <ol class="timeline">
      {props.attempts.map((a) => (
        <li key={a.number}>
          <strong>Attempt {a.number}</strong>: claimed and called at {time(a.started_at)}
          {a.worker_id ? ` by ${a.worker_id}` : ''}; outcome <strong>{a.outcome ?? 'in flight'}</strong>
          {a.finished_at ? ` at ${time(a.finished_at)}` : ''}
          {a.error ? ` (${a.error.code}${a.error.message ? `: ${a.error.message}` : ''})` : ''}
          {a.retry_after_ms !== null ? `; retry after ${duration(a.retry_after_ms / 1000)}` : ''}
          {a.late_outcome ? `; late outcome ${a.late_outcome}` : ''}
          {a.outcome === 'unknown' && a.ambiguity_policy ? `; ambiguity policy ${a.ambiguity_policy}` : ''}
          {a.resolution ? `; resolved: ${a.resolution}` : ''}
        </li>
      ))}
    </ol>
  );
}

/** What a callback did, in words (never colour alone). */
const EFFECT: Record<string, string> = {
  applied: 'moved the delivery',
  no_change: 'no change (late or repeated)',
  pending: 'parked until the delivery settles',
};

/** What a look-up's answer led to, in words. */
const LED_TO: Record<string, string> = {
  accepted: 'delivery accepted',
  retryable: 'retry with the same key',
  unresolved: 'unresolved (evidence window closed)',
  asked_later: 'asking again later',
};

/**
 * The delivery's evidence as one timeline: every provider callback (its status, when Herald got
 * it, the provider's own time when given, and what it did) and every reconciliation look-up
 * (what it found and what that led to), oldest first, with the downstream status now.
 */
/**
 * The accounts whose delivered (or read) callback was merged, first report first: two or more is
 * a duplicate across accounts (docs/routing.md), what `duplicate_across_accounts` of GET
 * /v1/deliveries/:id says, read here from the evidence the dialog already has.
 */
function deliveredBy(ev: EvidenceEvent[]): string[] {
  const out: string[] = [];
  for (const e of ev) {
    if (e.kind === 'callback' && e.effect !== 'pending' && (e.status === 'delivered' || e.status === 'read') && !out.includes(e.provider_account))
      out.push(e.provider_account);
  }
  return out;
}

function Evidence(props: { d: NotificationDetail['deliveries'][number]; evidence: EvidenceEvent[] }): JSX.Element {
  const ev = props.evidence;
  if (ev.length === 0 && props.d.downstream_status === null) return <p class="muted">No provider evidence yet (no callback, no look-up).</p>;
  const accounts = deliveredBy(ev);
  return (
    <>
      {accounts.length >= 2 ? (
        <p class="banner banner-warn" data-duplicate-across-accounts>
          Duplicate across accounts: delivered by {accounts.join(' and ')}. The first account delivered it after all, besides the send after the move.
        </p>
      ) : null}
      <Timeline d={props.d} ev={ev} />
    </>
  );
}

function Timeline(props: { d: NotificationDetail['deliveries'][number]; ev: EvidenceEvent[] }): JSX.Element {
  const ev = props.ev;
  return (
    <ol class="timeline evidence" aria-label={`Evidence of delivery ${props.d.id}`}>
      {ev.map((e, i) =>
        e.kind === 'callback' ? (
          <li key={`c${i}`} data-evidence="callback" data-effect={e.effect}>
            <time dateTime={e.received_at}>{time(e.received_at)}</time> <strong>callback {e.status}</strong> from {e.provider_account}
            {e.occurred_at ? ` (provider time ${time(e.occurred_at)})` : ''}: {EFFECT[e.effect] ?? e.effect}
            <span class="muted mono"> event {e.event_id}</span>
          </li>
        ) : (
          <li key={`l${i}`} data-evidence="lookup" data-result={e.result}>
            <time dateTime={e.at}>{time(e.at)}</time> <strong>look-up: {e.result.replace('_', ' ')}</strong> (attempt {e.attempt}
            {e.error_code ? `, ${e.error_code}` : ''}) → {LED_TO[e.led_to] ?? e.led_to}
            {e.provider_message_id ? <span class="muted mono"> provider id {e.provider_message_id}</span> : null}
          </li>
        ),
      )}
      {props.d.downstream_status !== null ? <li>Downstream status now: {props.d.downstream_status}</li> : null}
    </ol>
  );
}

type Pending = 'resend' | 'cancel' | null;

function DeliveryActions(props: { d: Delivery; n: NotificationDetail; role: Role; onDone: () => void }): JSX.Element {
  const { d, n } = props;
  const [pending, setPending] = useState<Pending>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  if (props.role === 'viewer') return <p class="muted">Your role (viewer) can read but not act.</p>;

  const run = (what: Exclude<Pending, null>) => {
    setBusy(true);
    setError(null);
    const call = what === 'cancel' ? post(`/v1/deliveries/${d.id}/cancel`) : post(`/v1/notifications/${n.id}/resend`);
    call.then(
      () => {
        setBusy(false);
        setPending(null);
        setDone(what === 'cancel' ? 'Cancelled.' : 'Resent as a new generation.');
        props.onDone();
      },
      (e: unknown) => {
        setBusy(false);
        setError(e);
      },
    );
  };
  return (
    <div class="actions">
      <div class="button-row">
        <RetryAction d={d} role={props.role} onDone={props.onDone} />
        {n.purpose === 'otp' ? (
          <button type="button" onClick={() => setPending('resend')}>
            Resend as new code
          </button>
        ) : null}
        <button type="button" class="button-danger" disabled={!CANCELLABLE.has(d.state)} onClick={() => setPending('cancel')}>
          Cancel delivery
        </button>
      </div>
      {done ? (
        <p class="note note-ok" role="status">
          {done}
        </p>
      ) : null}
      {pending === 'resend' ? (
        <Confirm
          title="Resend as a new code?"
          confirmLabel="Resend"
          busy={busy}
          error={error}
          onConfirm={() => run('resend')}
          onCancel={() => setPending(null)}
        >
          <p>Sends the notification again as generation {n.group.generation + 1} of its challenge, with new delivery keys. The earlier code is superseded.</p>
        </Confirm>
      ) : null}
      {pending === 'cancel' ? (
        <Confirm
          title="Cancel this delivery?"
          confirmLabel="Cancel delivery"
          danger
          busy={busy}
          error={error}
          onConfirm={() => run('cancel')}
          onCancel={() => setPending(null)}
        >
          <p>Delivery {d.id} will not be sent (terminal · cancelled). A call already in flight still finishes.</p>
        </Confirm>
      ) : null}
      {!pending && error instanceof ApiError ? <ErrorNote error={error} /> : null}
    </div>
  );
}
