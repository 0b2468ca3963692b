/**
 * Campaigns: the tenant's campaigns (GET /v1/campaigns, newest first, filtered by status in the
 * URL, more pages on demand) with progress bars by outcome, the plan against the deadline and
 * the projected finish, and pause / resume / cancel; each campaign also has its own page.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { get, post, type Role } from '../api.js';
import { Confirm, ErrorNote, Facts, Select, StateBadge, useResource } from '../components.js';
import { duration, rate, time } from '../format.js';
import { useLive } from '../live.js';
import { Link, navigate, useRoute, withQuery } from '../router.js';
import type { Campaign, Page } from '../types.js';

/** The statuses GET /v1/campaigns filters by (src/domain/campaign-status.ts). */
const STATUSES = ['draft', 'running', 'paused', 'completed', 'cancelled'] as const;
const PAGE = 20;

export function CampaignsPage(props: { id: string | null; role: Role }): JSX.Element {
  return props.id ? <CampaignPage id={props.id} role={props.role} /> : <CampaignList role={props.role} />;
}

function CampaignList(props: { role: Role }): JSX.Element {
  const route = useRoute();
  const status = route.query.get('status') ?? '';
  // How many pages are shown: the live reload re-reads all of them, so counts stay current.
  const [pages, setPages] = useState(1);
  useEffect(() => setPages(1), [status]);
  const list = useResource(async () => {
    const items: Campaign[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < pages; i++) {
      const q = new URLSearchParams({ limit: String(PAGE) });
      if (status) q.set('status', status);
      if (cursor) q.set('cursor', cursor);
      const page: Page<Campaign> = await get<Page<Campaign>>(`/v1/campaigns?${q.toString()}`);
      items.push(...page.items);
      cursor = page.next_cursor;
      if (cursor === null) break;
    }
    return { items, more: cursor !== null };
  }, `campaigns|${status}|${pages}`);
  useLive(list.reload, () => true, 3000);
  return (
    <section aria-labelledby="campaigns-title">
      <h1 id="campaigns-title">Campaigns</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          const v = new FormData(e.currentTarget).get('campaign_id');
          const id = typeof v === 'string' ? v.trim() : '';
          if (id) navigate(`/campaigns/${encodeURIComponent(id)}`);
        }}
      >
        <Select
          label="Status"
          name="status"
          value={status}
          options={STATUSES}
          onChange={(v) => navigate(`/campaigns${withQuery(route.query, { status: v })}`, { replace: true })}
        />
        <div class="field">
          <label for="campaign_id">Campaign id</label>
          <input id="campaign_id" name="campaign_id" placeholder="cmp_…" />
        </div>
        <button type="submit">Open</button>
      </form>
      <ErrorNote error={list.error} />
      {list.data && list.data.items.length === 0 ? <p class="empty">{status ? `No ${status} campaign.` : 'No campaign yet.'}</p> : null}
      {(list.data?.items ?? []).map((c) => (
        <CampaignCard key={c.id} c={c} role={props.role} onChanged={list.reload} />
      ))}
      {list.data?.more ? (
        <button type="button" onClick={() => setPages(pages + 1)}>
          More campaigns
        </button>
      ) : null}
    </section>
  );
}

function CampaignPage(props: { id: string; role: Role }): JSX.Element {
  const c = useResource(() => get<Campaign>(`/v1/campaigns/${encodeURIComponent(props.id)}`), props.id);
  useLive(c.reload, () => true, 1500);
  return (
    <section aria-labelledby="campaigns-title">
      <p>
        <Link to="/campaigns">← Campaigns</Link>
      </p>
      <h1 id="campaigns-title">Campaign</h1>
      <ErrorNote error={c.error} />
      {c.data ? <CampaignCard c={c.data} role={props.role} onChanged={c.reload} /> : null}
    </section>
  );
}

const BARS: Array<[keyof Campaign['progress'], string]> = [
  ['queued', 'queued'],
  ['accepted', 'accepted'],
  ['sent', 'delivered'],
  ['failed', 'failed'],
  ['suppressed', 'suppressed'],
  ['expired', 'expired'],
];

function CampaignCard(props: { c: Campaign; role: Role; onChanged: () => void }): JSX.Element {
  const { c } = props;
  const p = c.progress;
  const total = Math.max(1, p.audience_size);
  const plan = c.plan;
  const finish = p.projected_finish.finish_at;
  const late = finish !== null && c.deadline_at !== null && Date.parse(finish) > Date.parse(c.deadline_at);
  return (
    <article class="card campaign" aria-labelledby={`c-${c.id}`} data-campaign={c.id}>
      <h2 id={`c-${c.id}`}>
        <Link to={`/campaigns/${encodeURIComponent(c.id)}`}>{c.name ?? c.id}</Link> <StateBadge state={c.status} />
      </h2>
      <div class="bars">
        {BARS.map(([k, label]) => {
          const n = p[k] as number;
          return (
            <div class="bar-row" key={k}>
              <span class="bar-label">{label}</span>
              <progress max={total} value={n} aria-label={`${label}: ${n} of ${p.audience_size}`} class={`bar bar-${label}`} />
              <span class="bar-count">
                {n} ({Math.round((n / total) * 100)} %)
              </span>
            </div>
          );
        })}
      </div>
      <Facts
        items={[
          ['Audience', `${p.audience_size} (${p.fanned_out} fanned out, ${p.not_fanned_out} to go)`],
          ['Channel / purpose', `${c.channel} / ${c.purpose} via ${c.provider_account} (lane ${c.lane}, ${rate(c.lane_rate)})`],
          ['Sends from', c.send_at ? time(c.send_at) : 'when started'],
          ['Deadline', time(c.deadline_at)],
          [
            'Plan',
            plan
              ? `${plan.feasible ? 'feasible' : `not feasible (${plan.reason ?? 'unknown reason'})`}: needs ${rate(plan.required_rate)}, lane gives ${rate(plan.available_rate)}, best case ${duration(plan.best_case_seconds)}`
              : '—',
          ],
          ['Projected finish', finish ? `${time(finish)}${late ? ' — after the deadline' : ''}` : c.status === 'paused' ? 'none while paused' : '—'],
          ['Remaining', `${p.projected_finish.remaining} at ${rate(p.projected_finish.rate)}`],
          ['Unknown / sending', `${p.unknown} / ${p.sending}`],
        ]}
      />
      <CampaignActions c={c} role={props.role} onChanged={props.onChanged} />
    </article>
  );
}

function CampaignActions(props: { c: Campaign; role: Role; onChanged: () => void }): JSX.Element | null {
  const [asking, setAsking] = useState<'pause' | 'resume' | 'cancel' | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (props.role === 'viewer') return null;
  const { c } = props;
  const open = c.status !== 'completed' && c.status !== 'cancelled';
  return (
    <div class="button-row">
      <button type="button" disabled={c.status !== 'running'} onClick={() => setAsking('pause')}>
        Pause
      </button>
      <button type="button" disabled={c.status !== 'paused'} onClick={() => setAsking('resume')}>
        Resume
      </button>
      <button type="button" class="button-danger" disabled={!open} onClick={() => setAsking('cancel')}>
        Cancel campaign
      </button>
      {asking ? (
        <Confirm
          title={`${asking[0]!.toUpperCase()}${asking.slice(1)} ${c.name ?? c.id}?`}
          confirmLabel={asking === 'cancel' ? 'Cancel campaign' : asking === 'pause' ? 'Pause' : 'Resume'}
          danger={asking === 'cancel'}
          busy={busy}
          error={error}
          onCancel={() => setAsking(null)}
          onConfirm={() => {
            setBusy(true);
            setError(null);
            post(`/v1/campaigns/${encodeURIComponent(c.id)}/${asking}`).then(
              () => {
                setBusy(false);
                setAsking(null);
                props.onChanged();
              },
              (e: unknown) => {
                setBusy(false);
                setError(e);
              },
            );
          }}
        >
          <p>
            {asking === 'pause'
              ? 'Fan-out stops and queued deliveries are held; calls in flight finish.'
              : asking === 'resume'
                ? 'Held deliveries are due again and fan-out continues.'
                : `Nothing more is sent: ${c.progress.queued + c.progress.not_fanned_out} queued or not fanned out end cancelled.`}
          </p>
        </Confirm>
      ) : null}
    </div>
  );
}
