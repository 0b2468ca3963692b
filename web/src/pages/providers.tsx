/**
 * Provider accounts (GET /v1/provider-accounts, with failures and throttle pauses from GET
 * /v1/stats and errors by class from GET /v1/provider-accounts/recent-errors): each route with
 * its accounts in order and their standing (in service or demoted, since when, why, the figures
 * of the last change) and the last day's demotions and restorations; per account its rate,
 * burst, lanes, retry budget, throttle pause, rollout stage, recent errors. Credentials are never
 * part of any of these answers.
 */
import type { JSX } from 'preact';
import { get } from '../api.js';
import { ErrorNote, Facts, StateBadge, useResource } from '../components.js';
import { time } from '../format.js';
import { useLive } from '../live.js';
import { Link } from '../router.js';
import type { ErrorCounts, ProviderAccount, RecentErrors as RecentErrorCounts, RouteChange, RouteFigures, RouteStanding, Stats } from '../types.js';

/** A change's figures in words: what the evaluator counted when it made it. */
function figuresText(f: RouteFigures): string {
  return `${f.slow} slow of ${f.accepted} accepted; ${f.failures} failed of ${f.calls} calls`;
}

/** "otp" or "every purpose", and whose route it is. */
function routeTitle(r: RouteStanding): string {
  const purpose = r.purpose === 'default' ? 'every other purpose' : r.purpose;
  return `${r.channel} · ${purpose} (${r.tenant === '*' ? 'every tenant' : `tenant ${r.tenant}`}, order ${r.order})`;
}

/** One route: its accounts in the configured order, each one's standing, since when, why, and the figures of its last change. */
function RouteTable(props: { route: RouteStanding }): JSX.Element {
  const r = props.route;
  return (
    <table class="list compact" data-route={r.route}>
      <caption>Route {routeTitle(r)}</caption>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Account</th>
          <th scope="col">Standing</th>
          <th scope="col">Since</th>
          <th scope="col">Why</th>
          <th scope="col">Figures of the last change</th>
        </tr>
      </thead>
      <tbody>
        {r.accounts.map((a) => (
          <tr key={a.provider_account} data-route-account={a.provider_account}>
            <td data-label="#">{a.position}</td>
            <td data-label="Account">{a.provider_account}</td>
            <td data-label="Standing">
              <StateBadge state={a.state === 'demoted' ? 'demoted' : 'in service'} />
            </td>
            <td data-label="Since">{a.since === null ? 'always' : time(a.since)}</td>
            <td data-label="Why">{a.reasons.length > 0 ? a.reasons.join(', ') : '—'}</td>
            <td data-label="Figures of the last change">
              {a.last_change === null ? '—' : `${a.last_change.action === 'demote' ? 'demoted' : 'restored'} on ${figuresText(a.last_change.figures)}`}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The routes' demotions and restorations of the last day, newest first. */
function RouteChanges(props: { changes: RouteChange[] }): JSX.Element {
  if (props.changes.length === 0) return <p class="muted">No demotions or restorations in the last 24 hours.</p>;
  return (
    <table class="list compact" data-route-changes>
      <caption>Demotions and restorations (24 h)</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Route</th>
          <th scope="col">Account</th>
          <th scope="col">Change</th>
          <th scope="col">Why</th>
          <th scope="col">Figures</th>
        </tr>
      </thead>
      <tbody>
        {props.changes.map((c) => (
          <tr key={`${c.route}-${c.provider_account}-${c.at}`}>
            <td data-label="When">{time(c.at)}</td>
            <td data-label="Route">{c.route}</td>
            <td data-label="Account">{c.provider_account}</td>
            <td data-label="Change">{c.action === 'demote' ? 'demoted' : 'restored'}</td>
            <td data-label="Why">{c.reasons.length > 0 ? c.reasons.join(', ') : '—'}</td>
            <td data-label="Figures">{figuresText(c.figures)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The messages list filtered to what an error row counts: a call outcome has no filter of its own, a terminal reason does. */
function errorLink(a: ProviderAccount, reason: string | null): string {
  const q = new URLSearchParams({ provider_account: a.id });
  if (reason !== null) {
    q.set('state', 'terminal');
    q.set('terminal_reason', reason);
  } else q.set('since', new Date(Date.now() - 24 * 3_600_000).toISOString());
  return `/messages?${q.toString()}`;
}

/** The account's recent errors by class (GET /v1/provider-accounts/recent-errors): call outcomes and failure reasons, 15 min / 1 h / 24 h. */
function RecentErrors(props: { account: ProviderAccount; errors: RecentErrorCounts | undefined }): JSX.Element | null {
  const a = props.account;
  if (!props.errors) return null;
  const rows: Array<{ label: string; kind: string; reason: string | null } & ErrorCounts> = [
    ...props.errors.attempts.map((e) => ({ ...e, label: e.class, kind: 'call outcome', reason: null })),
    ...props.errors.terminal.map((e) => ({ ...e, label: e.reason, kind: 'ended', reason: e.reason })),
  ];
  if (rows.length === 0) return <p class="muted">No errors in the last 24 hours.</p>;
  return (
    <table class="list compact" data-recent-errors={a.id}>
      <caption>Recent errors by class</caption>
      <thead>
        <tr>
          <th scope="col">Class</th>
          <th scope="col">Kind</th>
          <th scope="col">15 min</th>
          <th scope="col">1 h</th>
          <th scope="col">24 h</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={`${r.kind}-${r.label}`}>
            <td data-label="Class">
              <Link to={errorLink(a, r.reason)}>{r.label}</Link>
            </td>
            <td data-label="Kind">{r.kind}</td>
            <td data-label="15 min">{r.last_15m}</td>
            <td data-label="1 h">{r.last_1h}</td>
            <td data-label="24 h">{r.last_24h}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ProvidersPage(): JSX.Element {
  const accounts = useResource(
    () => get<{ items: ProviderAccount[]; routes?: RouteStanding[]; route_changes?: RouteChange[] }>('/v1/provider-accounts'),
    'accounts',
  );
  const routes = accounts.data?.routes ?? [];
  const stats = useResource(() => get<Stats>('/v1/stats'), 'stats');
  const errors = useResource(() => get<{ items: RecentErrorCounts[] }>('/v1/provider-accounts/recent-errors'), 'recent-errors');
  // Counts over 15 min and more need no sub-second freshness, and the aggregate reads a day of failures: at most every 10 s.
  useLive(errors.reload, (e) => e.type !== 'notification.created', 10_000);
  useLive(
    () => {
      accounts.reload();
      stats.reload();
    },
    (e) => e.type !== 'notification.created',
    3000,
  );
  return (
    <section aria-labelledby="providers-title">
      <h1 id="providers-title">Providers</h1>
      <ErrorNote error={accounts.error} />
      <ErrorNote error={errors.error} />
      {routes.length > 0 ? (
        <section aria-labelledby="routes-title" class="routes">
          <h2 id="routes-title">Routes</h2>
          {routes.map((r) => (
            <RouteTable key={r.route} route={r} />
          ))}
          <RouteChanges changes={accounts.data?.route_changes ?? []} />
        </section>
      ) : null}
      <div class="cards">
        {(accounts.data?.items ?? []).map((a) => {
          const st = stats.data?.provider_accounts.find((p) => p.id === a.id);
          // The throttle pause is the account's, from GET /v1/stats (GET /v1/provider-accounts has none).
          const paused = st?.paused_until && Date.parse(st.paused_until) > Date.now() ? st.paused_until : null;
          return (
            <article class="card" key={a.id} aria-labelledby={`acc-${a.id}`}>
              <h2 id={`acc-${a.id}`}>
                {a.id} <StateBadge state={a.retry_budget.state} />
              </h2>
              <Facts
                items={[
                  ['Kind', `${a.kind} (${a.channel})`],
                  ['Rate', `${a.rate_per_second}/s, burst ${a.burst}`],
                  [
                    'Retry budget',
                    `${a.retry_budget.state}: ${a.retry_budget.failures} failed of ${a.retry_budget.calls} calls in ${a.retry_budget.window_seconds} s`,
                  ],
                  ['Throttle pause', paused ? `paused until ${time(paused)}` : 'not paused'],
                  ['Rollout stage', a.rollout],
                  ['Ambiguity policy', a.ambiguity_policy],
                  [
                    'Failures (15 min)',
                    st ? (
                      st.failures_last_15m > 0 ? (
                        <Link to={`/messages?provider_account=${encodeURIComponent(a.id)}`}>{st.failures_last_15m}</Link>
                      ) : (
                        '0'
                      )
                    ) : (
                      '—'
                    ),
                  ],
                ]}
              />
              <RecentErrors account={a} errors={errors.data?.items.find((e) => e.provider_account === a.id)} />
              <table class="list compact">
                <caption>Lanes</caption>
                <thead>
                  <tr>
                    <th scope="col">Lane</th>
                    <th scope="col">Purposes</th>
                    <th scope="col">Guaranteed</th>
                    <th scope="col">Maximum</th>
                  </tr>
                </thead>
                <tbody>
                  {a.lanes.map((l) => (
                    <tr key={l.name}>
                      <td data-label="Lane">{l.name}</td>
                      <td data-label="Purposes">{l.purposes.join(', ')}</td>
                      <td data-label="Guaranteed">{l.guaranteed_rate === null ? '—' : `${l.guaranteed_rate}/s (${Math.round(l.guaranteed_share * 100)} %)`}</td>
                      <td data-label="Maximum">{l.max_rate === null ? '—' : `${l.max_rate}/s`}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </article>
          );
        })}
      </div>
    </section>
  );
}
