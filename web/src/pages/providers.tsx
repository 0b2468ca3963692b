/**
 * Provider accounts (GET /v1/provider-accounts, with failures and throttle pauses from GET
 * /v1/stats and errors by class from GET /v1/provider-accounts/recent-errors): rate, burst,
 * lanes, retry budget, throttle pause, rollout stage, recent errors. Credentials are never part
 * of any of these answers.
 */
import type { JSX } from 'preact';
import { get } from '../api.js';
import { ErrorNote, Facts, StateBadge, useResource } from '../components.js';
import { time } from '../format.js';
import { useLive } from '../live.js';
import { Link } from '../router.js';
import type { ErrorCounts, ProviderAccount, RecentErrors as RecentErrorCounts, Stats } from '../types.js';

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
  const accounts = useResource(() => get<{ items: ProviderAccount[] }>('/v1/provider-accounts'), 'accounts');
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
