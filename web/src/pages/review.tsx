/**
 * The review queue (GET /v1/review): what needs a person, grouped by reason, and a bulk retry of
 * a filtered selection that first asks the server how many it would retry and how many it would
 * refuse, and why (POST /v1/deliveries/retry with dry_run), before anything changes.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { CHANNELS, DELIVERY_STATES } from '../../../src/domain/vocabulary.js';
import { get, post, query, type Role } from '../api.js';
import { Confirm, ErrorNote, Select, StateBadge, TextFilter, useResource } from '../components.js';
import { isoToLocal, localToIso, plural, time } from '../format.js';
import { useLive } from '../live.js';
import { Link, navigate, withQuery } from '../router.js';
import type { Delivery, Page } from '../types.js';

interface DryRun {
  would_retry: number;
  refused: Array<{ reason: string; count: number }>;
}
interface BulkResult {
  matched: number;
  scheduled: number;
  refused: Array<{ reason: string; count: number }> | Record<string, number>;
}

const REVIEW_STATES = DELIVERY_STATES.filter((s) => s === 'unknown' || s === 'retryable' || s === 'terminal');

export function ReviewPage(props: { query: URLSearchParams; role: Role }): JSX.Element {
  const cursor = props.query.get('cursor');
  const qs = query({ cursor, limit: 200 });
  const list = useResource(() => get<Page<Delivery>>(`/v1/review${qs}`), qs);
  useLive(list.reload, () => cursor === null, 1000);
  const groups = new Map<string, Delivery[]>();
  for (const d of list.data?.items ?? []) {
    const k = d.review_reason ?? 'other';
    groups.set(k, [...(groups.get(k) ?? []), d]);
  }
  return (
    <section aria-labelledby="review-title">
      <h1 id="review-title">Review queue</h1>
      <p class="hint">Deliveries that ended exhausted, rejected or unresolved, and unknown ones reconciliation has not settled.</p>
      <BulkRetry query={props.query} role={props.role} onDone={list.reload} />
      <ErrorNote error={list.error} />
      {list.data && list.data.items.length === 0 ? <p class="empty">Nothing needs a person right now.</p> : null}
      {[...groups.entries()].map(([reason, items]) => (
        <details key={reason} open class="group">
          <summary>
            <h2 class="inline">{reason}</h2> <span class="count">{plural(items.length, 'delivery', 'deliveries')}</span>
          </summary>
          <div class="table-wrap">
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Delivery</th>
                  <th scope="col">Channel</th>
                  <th scope="col">Account</th>
                  <th scope="col">State</th>
                  <th scope="col">Last error</th>
                </tr>
              </thead>
              <tbody>
                {items.map((d) => (
                  <tr key={d.id}>
                    <td data-label="Time">{time(d.updated_at)}</td>
                    <td data-label="Delivery">
                      <Link to={`/messages/${d.id}`} class="mono">
                        {d.id}
                      </Link>
                    </td>
                    <td data-label="Channel">{d.channel}</td>
                    <td data-label="Account">{d.provider_account}</td>
                    <td data-label="State">
                      <StateBadge state={d.state} reason={d.terminal_reason} />
                    </td>
                    <td data-label="Last error">{d.last_error_code ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      ))}
      {list.data?.next_cursor ? <Link to={`/review${withQuery(props.query, { cursor: list.data.next_cursor })}`}>More →</Link> : null}
    </section>
  );
}

function refusedList(r: BulkResult['refused'] | DryRun['refused']): Array<{ reason: string; count: number }> {
  return Array.isArray(r) ? r : Object.entries(r).map(([reason, count]) => ({ reason, count }));
}

/** The selection lives in the URL (bulk_state, bulk_channel, ...) so a colleague can be sent the same one. */
function BulkRetry(props: { query: URLSearchParams; role: Role; onDone: () => void }): JSX.Element {
  const q = props.query;
  const f = {
    state: q.get('bulk_state') ?? '',
    channel: q.get('bulk_channel') ?? '',
    provider_account: q.get('bulk_account') ?? '',
    created_after: q.get('bulk_after') ?? '',
    created_before: q.get('bulk_before') ?? '',
  };
  const [risk, setRisk] = useState(false);
  const [dry, setDry] = useState<DryRun | null>(null);
  const [result, setResult] = useState<BulkResult | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const set = (k: string, v: string) => {
    setDry(null);
    setResult(null);
    navigate(`/review${withQuery(q, { [k]: v })}`, { replace: true });
  };
  const filter = Object.fromEntries(Object.entries(f).filter(([, v]) => v !== ''));
  const body = { filter, ...(risk ? { accept_duplicate_risk: true } : {}) };
  const preview = () => {
    setBusy(true);
    setError(null);
    setResult(null);
    post<DryRun>('/v1/deliveries/retry', { ...body, dry_run: true }).then(
      (r) => {
        setDry(r);
        setBusy(false);
      },
      (e: unknown) => {
        setError(e);
        setBusy(false);
      },
    );
  };
  const confirm = () => {
    setBusy(true);
    post<BulkResult>('/v1/deliveries/retry', body).then(
      (r) => {
        setResult(r);
        setDry(null);
        setBusy(false);
        props.onDone();
      },
      (e: unknown) => {
        setError(e);
        setBusy(false);
      },
    );
  };
  if (props.role === 'viewer') return <p class="muted">Your role (viewer) can read the queue but not retry.</p>;
  return (
    <form
      class="filters bulk"
      aria-labelledby="bulk-title"
      onSubmit={(e) => {
        e.preventDefault();
        preview();
      }}
    >
      <h2 id="bulk-title">Bulk retry</h2>
      <fieldset>
        <legend>Select deliveries</legend>
        <Select label="State" name="bulk_state" value={f.state} options={REVIEW_STATES} onChange={(v) => set('bulk_state', v)} />
        <Select label="Channel" name="bulk_channel" value={f.channel} options={CHANNELS} onChange={(v) => set('bulk_channel', v)} />
        <TextFilter label="Provider account" name="bulk_account" value={f.provider_account} onCommit={(v) => set('bulk_account', v)} />
        <TextFilter
          label="Created after"
          name="bulk_after"
          type="datetime-local"
          value={isoToLocal(f.created_after)}
          onCommit={(v) => set('bulk_after', localToIso(v))}
        />
        <TextFilter
          label="Created before"
          name="bulk_before"
          type="datetime-local"
          value={isoToLocal(f.created_before)}
          onCommit={(v) => set('bulk_before', localToIso(v))}
        />
        <div class="field field-check">
          <input id="bulk-risk" type="checkbox" checked={risk} onChange={(e) => setRisk(e.currentTarget.checked)} />
          <label for="bulk-risk">Include unknown and unresolved (possible duplicates)</label>
        </div>
      </fieldset>
      <button type="submit" disabled={busy || Object.keys(filter).length === 0}>
        Preview retry
      </button>
      {Object.keys(filter).length === 0 ? <span class="muted"> Choose at least one filter: retrying everything at once is refused.</span> : null}
      <ErrorNote error={error} />
      {result ? (
        <p class="note note-ok" role="status">
          Matched {result.matched}, scheduled {result.scheduled} for retry
          {refusedList(result.refused).length > 0
            ? `; refused: ${refusedList(result.refused)
                .map((r) => `${r.count} ${r.reason}`)
                .join(', ')}`
            : ''}
          .
        </p>
      ) : null}
      {dry ? (
        <Confirm
          title="Retry this selection?"
          confirmLabel={`Retry ${plural(dry.would_retry, 'delivery', 'deliveries')}`}
          danger={risk}
          busy={busy}
          error={error}
          onConfirm={confirm}
          onCancel={() => setDry(null)}
        >
          <p>
            <strong>{plural(dry.would_retry, 'delivery', 'deliveries')}</strong> would be retried.
          </p>
          {dry.refused.length > 0 ? (
            <>
              <p>Refused, and left as they are:</p>
              <ul>
                {dry.refused.map((r) => (
                  <li key={r.reason}>
                    {r.count} — {r.reason}
                  </li>
                ))}
              </ul>
            </>
          ) : (
            <p>None would be refused.</p>
          )}
          {risk ? <p>Unknown and unresolved deliveries may already have arrived: their recipients may get the message twice.</p> : null}
        </Confirm>
      ) : null}
    </form>
  );
}
