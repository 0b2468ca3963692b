/**
 * Messages: one row per delivery, newest first, filtered on the server (GET /v1/deliveries) by
 * the filters in the URL, one cursor page at a time; a row opens the detail dialog at
 * /dashboard/messages/<delivery id>, over the same list. "Cancel matching…" cancels what the
 * filters select after the server's preview (bulk-cancel.tsx).
 */
import type { JSX } from 'preact';
import { CHANNELS, DELIVERY_STATES, PURPOSES, TERMINAL_REASONS } from '../../../src/domain/vocabulary.js';
import { DOWNSTREAM_STATUSES } from '../../../src/domain/downstream.js';
import { get, query, type Role } from '../api.js';
import { ErrorNote, Select, StateBadge, TextFilter, useResource } from '../components.js';
import { isoToLocal, localToIso, time } from '../format.js';
import { useLive } from '../live.js';
import { Link, navigate, withQuery } from '../router.js';
import type { Delivery, Page } from '../types.js';
import { MessageDialog } from './message-dialog.js';
import { BulkCancel } from './bulk-cancel.js';
import { isFailedRow, RetryAction } from './retry-action.js';

/** The list filters GET /v1/deliveries takes, all kept in the page's URL. */
export const FILTERS = [
  'state',
  'terminal_reason',
  'downstream_status',
  'channel',
  'purpose',
  'provider_account',
  'device',
  'campaign',
  'since',
  'until',
  'q',
  'failed',
] as const;

/**
 * Quick status filters for the usual questions. "Failed" is the one definition of a failed
 * message the overview's banner counts (docs/operations.md): a phone's failures before sending
 * included, its offers and delivered messages never.
 */
const PRESETS: Array<[string, Record<string, string>]> = [
  ['Failed', { failed: 'true' }],
  ['Failed: rejected', { state: 'terminal', terminal_reason: 'rejected' }],
  ['Failed: exhausted', { state: 'terminal', terminal_reason: 'exhausted' }],
  ['Unresolved', { state: 'terminal', terminal_reason: 'unresolved' }],
  ['Unknown', { state: 'unknown' }],
  ['Retrying', { state: 'retryable' }],
  ['Bounced downstream', { downstream_status: 'bounced' }],
];

export function MessagesPage(props: { query: URLSearchParams; openId: string | null; role: Role }): JSX.Element {
  const q = props.query;
  const params: Record<string, string> = {};
  for (const f of FILTERS) {
    const v = q.get(f);
    if (v) params[f] = v;
  }
  const cursor = q.get('cursor');
  const listQuery = query({ ...params, cursor, limit: 50 });
  const list = useResource(() => get<Page<Delivery>>(`/v1/deliveries${listQuery}`), listQuery);
  // Only the first page follows the stream live: a later page is a snapshot someone is reading.
  useLive(list.reload, () => cursor === null);

  const set = (changes: Record<string, string | null>) => navigate(`/messages${withQuery(q, { ...changes, cursor: null, open: null })}`, { replace: true });
  const base = props.openId ? `/messages${withQuery(q, { open: null })}` : null;
  const rowLink = (id: string) => `/messages/${encodeURIComponent(id)}${withQuery(q, { open: null })}`;

  return (
    <section aria-labelledby="messages-title">
      <h1 id="messages-title">Messages</h1>
      <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <fieldset>
          <legend>Status</legend>
          <div class="field field-check">
            <input
              id="f-failed"
              type="checkbox"
              name="failed"
              checked={params.failed === 'true'}
              onChange={(e) => set({ failed: e.currentTarget.checked ? 'true' : null })}
            />
            <label for="f-failed">Failed only</label>
          </div>
          <Select label="State" name="state" value={params.state ?? ''} options={DELIVERY_STATES} onChange={(v) => set({ state: v })} />
          <Select
            label="Terminal reason"
            name="terminal_reason"
            value={params.terminal_reason ?? ''}
            options={TERMINAL_REASONS}
            onChange={(v) => set({ terminal_reason: v })}
          />
          <Select
            label="Downstream status"
            name="downstream_status"
            value={params.downstream_status ?? ''}
            options={DOWNSTREAM_STATUSES}
            onChange={(v) => set({ downstream_status: v })}
          />
        </fieldset>
        <fieldset>
          <legend>Where</legend>
          <Select label="Channel" name="channel" value={params.channel ?? ''} options={CHANNELS} onChange={(v) => set({ channel: v })} />
          <Select label="Purpose" name="purpose" value={params.purpose ?? ''} options={PURPOSES} onChange={(v) => set({ purpose: v })} />
          <TextFilter label="Provider account" name="provider_account" value={params.provider_account ?? ''} onCommit={(v) => set({ provider_account: v })} />
          <TextFilter label="Device" name="device" value={params.device ?? ''} onCommit={(v) => set({ device: v })} />
          <TextFilter label="Campaign" name="campaign" value={params.campaign ?? ''} onCommit={(v) => set({ campaign: v })} />
        </fieldset>
        <fieldset>
          <legend>When and search</legend>
          <TextFilter
            label="From"
            name="since"
            type="datetime-local"
            value={isoToLocal(params.since ?? null)}
            onCommit={(v) => set({ since: localToIso(v) })}
          />
          <TextFilter
            label="Until"
            name="until"
            type="datetime-local"
            value={isoToLocal(params.until ?? null)}
            onCommit={(v) => set({ until: localToIso(v) })}
          />
          <TextFilter
            label="Search"
            name="q"
            value={params.q ?? ''}
            placeholder="notification, delivery, recipient or operation id"
            onCommit={(v) => set({ q: v })}
          />
        </fieldset>
      </form>
      <div class="presets" role="group" aria-label="Quick filters">
        {PRESETS.map(([label, f]) => {
          // Selected when the page's filters are exactly this preset's.
          const active = Object.keys(params).length === Object.keys(f).length && Object.entries(f).every(([k, v]) => params[k] === v);
          return (
            <Link key={label} class={active ? 'chip chip-active' : 'chip'} to={`/messages${query(f)}`} aria-current={active ? 'true' : undefined}>
              {label}
            </Link>
          );
        })}
        {Object.keys(params).length > 0 ? (
          <Link class="chip chip-clear" to="/messages">
            Clear filters
          </Link>
        ) : null}
      </div>
      <BulkCancel params={params} role={props.role} onDone={list.reload} />
      <ErrorNote error={list.error} />
      <div class="table-wrap">
        <table class="list">
          <caption class="sr-only">Deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Recipient</th>
              <th scope="col">Channel</th>
              <th scope="col">Purpose</th>
              <th scope="col">Account or device</th>
              <th scope="col">State</th>
              <th scope="col">Downstream</th>
              <th scope="col">Attempts</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.items ?? []).map((d) => (
              <tr key={d.id} data-delivery={d.id}>
                <td data-label="Time">
                  <Link to={rowLink(d.id)} aria-label={`Open delivery ${d.id}`}>
                    {time(d.created_at)}
                  </Link>
                </td>
                <td data-label="Recipient" class="mono">
                  {d.recipient_id ?? '—'}
                </td>
                <td data-label="Channel">{d.channel}</td>
                <td data-label="Purpose">{d.purpose}</td>
                <td data-label="Account or device">{d.device_id ? `${d.provider_account} / ${d.device_id}` : d.provider_account}</td>
                <td data-label="State">
                  <StateBadge state={d.state} reason={d.terminal_reason} />
                </td>
                <td data-label="Downstream">{d.downstream_status ?? '—'}</td>
                <td data-label="Attempts">{d.attempt_count}</td>
                <td data-label="Actions">
                  {isFailedRow(d) ? <RetryAction d={d} role={props.role} onDone={list.reload} label={`Retry delivery ${d.id}`} /> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list.data && list.data.items.length === 0 ? <p class="empty">No deliveries match these filters.</p> : null}
      <nav class="pager" aria-label="Pages">
        {cursor !== null ? <Link to={`/messages${withQuery(q, { cursor: null, open: null })}`}>Newest</Link> : null}
        {list.data?.next_cursor ? <Link to={`/messages${withQuery(q, { cursor: list.data.next_cursor, open: null })}`}>Older →</Link> : null}
        <span class="muted">{list.loading ? 'Loading…' : `${list.data?.items.length ?? 0} shown`}</span>
      </nav>
      {props.openId && base !== null ? (
        <MessageDialog deliveryId={props.openId} role={props.role} onClose={() => navigate(base)} onChanged={list.reload} />
      ) : null}
    </section>
  );
}
