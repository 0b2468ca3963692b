/**
 * Phone gateways: every device's health (GET /v1/devices) with a "retry all failed" button each,
 * and a device's own page: its messages (one row each, its current offer; older offers are in
 * the message's own timeline) counted by their delivery's current state, a retry button on each
 * failed one, and its sweeps beside the operators' retries of its messages.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { get, post, query, type Role } from '../api.js';
import { Confirm, ErrorNote, Facts, Select, StateBadge, useResource } from '../components.js';
import { ageSeconds, duration, plural, time } from '../format.js';
import { useLive } from '../live.js';
import { Link, navigate, withQuery } from '../router.js';
import type { Action, Device, DeviceMessage, Page, Sweep } from '../types.js';
import { isFailedRow, RetryAction } from './retry-action.js';

const PHONE_STATES = ['Pending', 'Processed', 'Sent', 'Delivered', 'Failed', 'Cancelling', 'Cancelled'] as const;
const OFFER_STATES = ['offered', 'pulled', 'reoffered', 'withdrawn', 'reported'] as const;

/** A message's current delivery state as counted: what the evidence says once accepted, the reason once terminal. */
function stateOf(m: DeviceMessage): string {
  if (m.delivery_state === 'accepted') return m.downstream_status ?? 'accepted';
  if (m.delivery_state === 'terminal') return m.terminal_reason ?? 'terminal';
  return m.delivery_state;
}

/** One line of "Sweeps and operator retries": a sweep, or an operator's retry of one message. */
type RetryLine = { at: string; key: string; text: string };

function retryLines(sweeps: Sweep[], actions: Action[]): RetryLine[] {
  const lines: RetryLine[] = sweeps.map((s) => ({
    at: s.swept_at ?? '',
    key: `sweep-${s.id}`,
    text: `${time(s.swept_at)} ${s.cause}: retried ${s.retried}, re-offered ${s.reoffered}, expired ${s.skipped_expired}`,
  }));
  for (const a of actions) {
    if (a.action !== 'retry' && a.action !== 'device_retry') continue;
    const what =
      a.action === 'retry'
        ? `retry of delivery ${a.delivery_id ?? '?'}`
        : `retry of message ${(a.detail as { message_id?: string } | null)?.message_id ?? '?'}`;
    lines.push({ at: a.at, key: `action-${a.at}-${a.action}-${a.delivery_id ?? ''}`, text: `${time(a.at)} operator: ${what} by ${a.by.name || a.by.id}` });
  }
  return lines.sort((x, y) => (x.at < y.at ? 1 : x.at > y.at ? -1 : 0));
}

function Health(props: { d: Device }): JSX.Element {
  return <StateBadge state={props.d.online ? 'online' : 'offline'} />;
}

function sims(d: Device): string {
  // null: the app sent no SIM list (GET /v1/devices says so), not an empty one.
  if (d.sim_cards === null || d.sim_cards.length === 0) return 'none reported';
  return d.sim_cards.map((s) => `SIM ${s.simNumber}${s.carrierName ? ` (${s.carrierName})` : ''}`).join(', ');
}

/** The battery as the phone last reported it: `12 % (not charging, low)`, or why there is none. */
function battery(d: Device): string {
  const h = d.phone_health;
  if (!h) return 'not reported (no ping yet)';
  if (h.battery_percent === null) return 'not reported';
  const power = h.charging === null ? '' : h.charging ? 'charging' : 'not charging';
  const notes = [power, h.low_battery ? 'low' : ''].filter((x) => x !== '').join(', ');
  return `${h.battery_percent} %${notes ? ` (${notes})` : ''}`;
}

export function DevicesPage(props: { role: Role }): JSX.Element {
  const list = useResource(() => get<{ items: Device[] }>('/v1/devices'), 'devices');
  useLive(list.reload, (e) => e.type !== 'notification.created', 1000);
  return (
    <section aria-labelledby="devices-title">
      <h1 id="devices-title">Devices</h1>
      <ErrorNote error={list.error} />
      {list.data && list.data.items.length === 0 ? <p class="empty">No phone has registered. See docs/phone-gateway.md.</p> : null}
      <div class="cards">
        {(list.data?.items ?? []).map((d) => (
          <article class="card" key={d.id} aria-labelledby={`dev-${d.id}`} data-device={d.id}>
            <h2 id={`dev-${d.id}`}>
              <Link to={`/devices/${encodeURIComponent(d.id)}`}>{d.name}</Link> <Health d={d} />
            </h2>
            <Facts
              items={[
                ['Account', d.provider_account],
                ['Last seen', `${time(d.last_seen_at)} (${duration(ageSeconds(d.last_seen_at))} ago)`],
                ['Away since', d.away_since ? time(d.away_since) : '—'],
                ['Battery', battery(d)],
                ['SIMs', sims(d)],
                ['Queue', String(d.queue_depth)],
                ['Failures (24 h)', String(d.failures_24h)],
                ['Sweep', d.sweep_pending ? 'pending (came back)' : 'done'],
              ]}
            />
            <RetryFailed device={d} role={props.role} onDone={list.reload} />
          </article>
        ))}
      </div>
    </section>
  );
}

function RetryFailed(props: { device: Device; role: Role; onDone: () => void }): JSX.Element | null {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<Sweep | null>(null);
  if (props.role === 'viewer') return null;
  const d = props.device;
  return (
    <div class="actions">
      <button type="button" onClick={() => setAsking(true)}>
        Retry all failed on {d.name}
      </button>
      {result ? (
        <p class="note note-ok" role="status">
          Retried {plural(result.retried, 'message')}
          {result.skipped_expired > 0 ? `; ${result.skipped_expired} expired and left` : ''}.
        </p>
      ) : null}
      {asking ? (
        <Confirm
          title={`Retry every failed message of ${d.name}?`}
          confirmLabel="Retry failed messages"
          busy={busy}
          error={error}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setBusy(true);
            setError(null);
            post<Sweep>(`/v1/devices/${encodeURIComponent(d.id)}/retry-failed`).then(
              (r) => {
                setResult(r);
                setBusy(false);
                setAsking(false);
                props.onDone();
              },
              (e: unknown) => {
                setError(e);
                setBusy(false);
              },
            );
          }}
        >
          <p>
            Messages the phone reported Failed before sending (or that no device could take) in the sweep's look-back window and not yet expired are offered
            again now. Messages that may have been sent are not touched.
          </p>
        </Confirm>
      ) : null}
    </div>
  );
}

export function DevicePage(props: { id: string; query: URLSearchParams; role: Role }): JSX.Element {
  const id = encodeURIComponent(props.id);
  const state = props.query.get('state') ?? '';
  const phoneState = props.query.get('phone_state') ?? '';
  const cursor = props.query.get('cursor');
  const mq = query({ state, phone_state: phoneState, current: 'true', cursor, limit: 100 });
  const device = useResource(() => get<Device & { actions?: Action[] }>(`/v1/devices/${id}`), props.id);
  const messages = useResource(() => get<Page<DeviceMessage>>(`/v1/devices/${id}/messages${mq}`), props.id + mq);
  const sweeps = useResource(() => get<{ items: Sweep[] }>(`/v1/devices/${id}/sweeps`), props.id);
  useLive(
    () => {
      device.reload();
      messages.reload();
      sweeps.reload();
    },
    (e) => e.type !== 'notification.created',
    500,
  );
  const set = (k: string, v: string) => navigate(`/devices/${id}${withQuery(props.query, { [k]: v, cursor: null })}`, { replace: true });
  // One row per message (its current offer), counted by the delivery's current state: an offer
  // the phone failed before a retry that was delivered counts once, as delivered.
  const counts = new Map<string, number>();
  for (const m of messages.data?.items ?? []) counts.set(stateOf(m), (counts.get(stateOf(m)) ?? 0) + 1);
  const reload = () => {
    device.reload();
    messages.reload();
    sweeps.reload();
  };
  const d = device.data;
  return (
    <section aria-labelledby="device-title">
      <p>
        <Link to="/devices">← All devices</Link>
      </p>
      <h1 id="device-title">
        {d ? d.name : props.id} {d ? <Health d={d} /> : null}
      </h1>
      <ErrorNote error={device.error} />
      {d ? (
        <>
          <Facts
            items={[
              ['Device id', <span class="mono">{d.id}</span>],
              ['Account', d.provider_account],
              ['Last seen', time(d.last_seen_at)],
              ['Away since', d.away_since ? time(d.away_since) : '—'],
              ['Battery', battery(d)],
              ['Internet', d.phone_health?.internet == null ? 'not reported' : d.phone_health.internet ? 'yes' : 'no'],
              ['Health reported', d.phone_health ? time(d.phone_health.reported_at) : '—'],
              ['SIMs', sims(d)],
              ['Queue', String(d.queue_depth)],
              ['Failures (24 h)', String(d.failures_24h)],
              ['App', d.app_version ?? '—'],
              ['Last sweep', sweeps.data?.items[0] ? `${time(sweeps.data.items[0].swept_at)} (${sweeps.data.items[0].cause})` : 'none'],
            ]}
          />
          <RetryFailed device={d} role={props.role} onDone={reload} />
        </>
      ) : null}
      <h2>Messages by state</h2>
      <p class="counts">{[...counts.entries()].map(([k, n]) => `${k}: ${n}`).join(' · ') || 'none'}</p>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Message filters">
        <Select label="Phone state" name="phone_state" value={phoneState} options={PHONE_STATES} onChange={(v) => set('phone_state', v)} />
        <Select label="Offer state" name="state" value={state} options={OFFER_STATES} onChange={(v) => set('state', v)} />
      </form>
      <ErrorNote error={messages.error} />
      <div class="table-wrap">
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Offered</th>
              <th scope="col">Delivery</th>
              <th scope="col">Attempt</th>
              <th scope="col">Phone state</th>
              <th scope="col">Delivery state</th>
              <th scope="col">Phone error</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(messages.data?.items ?? []).map((m) => (
              <tr key={m.message_id} data-message={m.message_id}>
                <td data-label="Offered">{time(m.offered_at)}</td>
                <td data-label="Delivery">
                  <Link to={`/messages/${m.delivery_id}`} class="mono">
                    {m.delivery_id}
                  </Link>
                </td>
                <td data-label="Attempt">{m.attempt}</td>
                <td data-label="Phone state">{m.phone_state ? <StateBadge state={m.phone_state} /> : m.state}</td>
                <td data-label="Delivery state">
                  <StateBadge state={m.delivery_state} reason={m.terminal_reason} />
                  {m.downstream_status ? ` · ${m.downstream_status}` : ''}
                </td>
                <td data-label="Phone error">{m.phone_error ?? '—'}</td>
                <td data-label="Actions">
                  {isFailedRow({ state: m.delivery_state, terminal_reason: m.terminal_reason }) ? (
                    <RetryAction
                      d={{
                        id: m.delivery_id,
                        state: m.delivery_state,
                        terminal_reason: m.terminal_reason,
                        provider_account: m.provider_account,
                        attempt_count: m.attempt,
                      }}
                      role={props.role}
                      onDone={reload}
                      label={`Retry delivery ${m.delivery_id}`}
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {messages.data?.next_cursor ? <Link to={`/devices/${id}${withQuery(props.query, { cursor: messages.data.next_cursor })}`}>Older →</Link> : null}
      <h2>Sweeps and operator retries</h2>
      <ul class="timeline">
        {retryLines(sweeps.data?.items ?? [], device.data?.actions ?? [])
          .slice(0, 20)
          .map((l) => (
            <li key={l.key}>{l.text}</li>
          ))}
      </ul>
    </section>
  );
}
