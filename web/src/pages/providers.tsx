/**
 * Provider accounts (GET /v1/provider-accounts, with failures and throttle pauses from GET
 * /v1/stats): rate, burst, lanes, retry budget, throttle pause, rollout stage, recent errors.
 * Credentials are never part of either answer.
 */
import type { JSX } from 'preact';
import { get } from '../api.js';
import { ErrorNote, Facts, StateBadge, useResource } from '../components.js';
import { time } from '../format.js';
import { useLive } from '../live.js';
import { Link } from '../router.js';
import type { ProviderAccount, Stats } from '../types.js';

export function ProvidersPage(): JSX.Element {
  const accounts = useResource(() => get<{ items: ProviderAccount[] }>('/v1/provider-accounts'), 'accounts');
  const stats = useResource(() => get<Stats>('/v1/stats'), 'stats');
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
      <div class="cards">
        {(accounts.data?.items ?? []).map((a) => {
          const st = stats.data?.provider_accounts.find((p) => p.id === a.id);
          const paused = st?.paused_until && Date.parse(st.paused_until) > Date.now() ? st.paused_until : (a.throttle?.paused_until ?? null);
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
                  ['Rollout stage', a.rollout?.stage ?? 'not in a rollout'],
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
                  [
                    'Recent errors by class',
                    a.recent_errors && a.recent_errors.length > 0 ? a.recent_errors.map((e) => `${e.class}: ${e.count}`).join(', ') : 'none reported',
                  ],
                ]}
              />
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
