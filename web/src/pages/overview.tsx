/**
 * The overview: what needs a person now (banners linking to the filtered list), the numbers that
 * say whether Herald is keeping up, and charts of the last hour or day from GET /v1/stats,
 * refreshed every 10 s and soon after outbox events, without a reload.
 */
import type { JSX } from 'preact';
import { useEffect } from 'preact/hooks';
import { get } from '../api.js';
import { ErrorNote, useResource } from '../components.js';
import { TimeChart, type Series } from '../chart.js';
import { duration } from '../format.js';
import { useLive } from '../live.js';
import { Link, navigate, useRoute } from '../router.js';
import type { Stats } from '../types.js';
import { alertsOf } from '../alerts.js';

const REFRESH_MS = 10_000;
const PALETTE = ['#1f6feb', '#b35900', '#1a7f37', '#8250df', '#cf222e', '#57606a'];
const DASHES = [[], [6, 3], [2, 2], [10, 4, 2, 4]];

export function OverviewPage(): JSX.Element {
  const route = useRoute();
  const win = route.query.get('window') === 'day' ? 'day' : 'hour';
  const stats = useResource(() => get<Stats>(`/v1/stats?window=${win}`), win);
  useEffect(() => {
    const t = setInterval(stats.reload, REFRESH_MS);
    return () => clearInterval(t);
  }, [stats.reload]);
  useLive(stats.reload, () => true, 2000);
  const s = stats.data;
  const alerts = s ? alertsOf(s) : [];
  const oldestDue = s ? Math.max(0, ...s.due.map((d) => d.oldest_age_seconds)) : 0;
  const times = s ? s.series.points.map((p) => Date.parse(p.t) / 1000) : [];
  const accounts = s ? [...new Set(s.series.points.flatMap((p) => Object.keys(p.failed_by_account)))].sort() : [];
  const series = (label: string, i: number, values: number[]): Series => ({
    label,
    values,
    colour: PALETTE[i % PALETTE.length]!,
    dash: DASHES[i % DASHES.length]!,
  });

  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <ErrorNote error={stats.error} />
      <div aria-live="polite">
        {alerts.length === 0 && s ? (
          <p class="banner banner-ok">
            <span aria-hidden="true">✓ </span>Nothing needs a person right now.
          </p>
        ) : null}
        {alerts.map((a) => (
          <p key={a.text} class={`banner banner-${a.severity}`} role="alert">
            <span aria-hidden="true">{a.severity === 'bad' ? '✕ ' : '! '}</span>
            <Link to={a.to}>{a.text}</Link>
          </p>
        ))}
      </div>
      {s ? (
        <>
          <div class="tiles">
            <Tile label="Unknown" value={String(s.unknown.count)} note={s.unknown.count > 0 ? `oldest ${duration(s.unknown.oldest_age_seconds)}` : 'none'} />
            <Tile label="Oldest due message" value={duration(oldestDue)} note={`${s.due.reduce((a, d) => a + d.count, 0)} due`} />
            <Tile label="Deadline misses (1 h)" value={String(s.deadline_misses_last_hour)} note="expired without acceptance" />
            <Tile label="Review queue" value={String(s.review_queue_size)} note={<Link to="/review">open</Link>} />
            <Tile label="User reports" value={`${s.reports.not_received}`} note={`not received · ${s.reports.duplicate} duplicate`} />
          </div>
          <div class="tabs" role="group" aria-label="Chart window">
            <button type="button" aria-pressed={win === 'hour'} onClick={() => navigate('/', { replace: true })}>
              Last hour
            </button>
            <button type="button" aria-pressed={win === 'day'} onClick={() => navigate('/?window=day', { replace: true })}>
              Last day
            </button>
            <span class="muted">updated {new Date(s.at).toLocaleTimeString()}</span>
          </div>
          <div class="charts">
            <TimeChart
              title={`Accepted vs downstream-confirmed per ${s.series.bucket_seconds / 60} min`}
              times={times}
              series={[
                series(
                  'accepted',
                  0,
                  s.series.points.map((p) => p.accepted),
                ),
                series(
                  'confirmed',
                  2,
                  s.series.points.map((p) => p.confirmed),
                ),
              ]}
            />
            <TimeChart
              title={`Failures per ${s.series.bucket_seconds / 60} min by provider account`}
              times={times}
              series={
                accounts.length > 0
                  ? accounts.map((a, i) =>
                      series(
                        a,
                        i + 3,
                        s.series.points.map((p) => p.failed_by_account[a] ?? 0),
                      ),
                    )
                  : [
                      series(
                        'failed',
                        4,
                        s.series.points.map((p) => p.failed),
                      ),
                    ]
              }
            />
            <TimeChart
              title={`Unknown per ${s.series.bucket_seconds / 60} min`}
              times={times}
              series={[
                series(
                  'unknown',
                  1,
                  s.series.points.map((p) => p.unknown),
                ),
              ]}
            />
          </div>
          <h2>Deliveries by state</h2>
          <p class="counts">
            {Object.entries(s.deliveries)
              .map(([k, n]) => `${k}: ${n}`)
              .join(' · ')}
          </p>
        </>
      ) : stats.loading ? (
        <p class="loading">Loading…</p>
      ) : null}
    </section>
  );
}

function Tile(props: { label: string; value: string; note: JSX.Element | string }): JSX.Element {
  return (
    <div class="tile">
      <div class="tile-label">{props.label}</div>
      <div class="tile-value">{props.value}</div>
      <div class="tile-note">{props.note}</div>
    </div>
  );
}
