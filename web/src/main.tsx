/**
 * The Herald operator dashboard (docs/dashboard.md): sign-in, then its pages, each at its own URL under
 * /dashboard. Everything it shows comes from the public /v1 API with the session cookie, so
 * anything it does a script can do too.
 */
import { render, type JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './styles.css';
import { currentSession, onUnauthorized, signOut, type Session } from './api.js';
import { ErrorNote } from './components.js';
import { startLive, stopLive, useLiveStatus } from './live.js';
import { Link, navigate, useRoute } from './router.js';
import { CampaignsPage } from './pages/campaigns.js';
import { DevicePage, DevicesPage } from './pages/devices.js';
import { MessagesPage } from './pages/messages.js';
import { OverviewPage } from './pages/overview.js';
import { ProvidersPage } from './pages/providers.js';
import { ReviewPage } from './pages/review.js';
import { SignInPage } from './pages/sign-in.js';

const NAV: Array<[string, string]> = [
  ['/', 'Overview'],
  ['/messages', 'Messages'],
  ['/review', 'Review'],
  ['/devices', 'Devices'],
  ['/providers', 'Providers'],
  ['/campaigns', 'Campaigns'],
];

function App(): JSX.Element {
  const route = useRoute();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    currentSession().then(setSession, (e: unknown) => {
      setError(e);
      setSession(null);
    });
    // A session that expires or is revoked while the page is open: back to sign-in, keeping the URL to return to.
    return onUnauthorized(() => setSession(null));
  }, []);

  useEffect(() => {
    if (session) startLive();
    else stopLive();
  }, [session]);

  if (session === undefined) return <p class="loading">Loading…</p>;
  if (session === null || route.path === '/sign-in') {
    const back = route.path === '/sign-in' ? (route.query.get('next') ?? '/') : route.path + location.search;
    return (
      <>
        <ErrorNote error={error} />
        <SignInPage
          onSignedIn={(s) => {
            setSession(s);
            navigate(back.startsWith('/') && !back.startsWith('//') ? back : '/', { replace: true });
          }}
        />
      </>
    );
  }
  return <Shell session={session} onSignedOut={() => setSession(null)} />;
}

function Shell(props: { session: Session; onSignedOut: () => void }): JSX.Element {
  const route = useRoute();
  const live = useLiveStatus();
  // The stream closed for good (the browser gives up on a 401): find out whether the session is still there.
  useEffect(() => {
    if (live !== 'off') return;
    currentSession().then(
      (s) => s === null && props.onSignedOut(),
      () => undefined,
    );
  }, [live]);
  const section = '/' + (route.path.split('/')[1] ?? '');
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [route.path]);
  useEffect(() => {
    const name = NAV.find(([p]) => p === section)?.[1] ?? 'Herald';
    document.title = `${name} · Herald`;
  }, [section]);

  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <span class="brand">Herald</span>
        <button type="button" class="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav id="nav" aria-label="Dashboard" class={menuOpen ? 'nav nav-open' : 'nav'}>
          {NAV.map(([p, label]) => (
            <Link key={p} to={p} aria-current={section === p ? 'page' : undefined}>
              {label}
            </Link>
          ))}
        </nav>
        <span class={`live live-${live}`} role="status" title="Live updates from the event stream">
          {live === 'live' ? '● live' : live === 'off' ? '○ not live' : '◌ reconnecting'}
        </span>
        <span class="who">
          {props.session.subject.name} <span class="role">({props.session.role})</span>
        </span>
        <button
          type="button"
          onClick={() => {
            void signOut().finally(props.onSignedOut);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page path={route.path} query={route.query} session={props.session} />
      </main>
    </div>
  );
}

function Page(props: { path: string; query: URLSearchParams; session: Session }): JSX.Element {
  const parts = props.path.split('/').filter(Boolean);
  const role = props.session.role;
  switch (parts[0]) {
    case undefined:
      return <OverviewPage />;
    case 'messages':
      return <MessagesPage query={props.query} openId={parts[1] ?? props.query.get('open')} role={role} />;
    case 'review':
      return <ReviewPage query={props.query} role={role} />;
    case 'devices':
      return parts[1] ? <DevicePage id={decodeURIComponent(parts[1])} query={props.query} role={role} /> : <DevicesPage role={role} />;
    case 'providers':
      return <ProvidersPage />;
    case 'campaigns':
      return <CampaignsPage id={parts[1] ? decodeURIComponent(parts[1]) : null} role={role} />;
    default:
      return (
        <section>
          <h1>Not found</h1>
          <p>
            There is no dashboard page at {props.path}. <Link to="/">Go to the overview</Link>.
          </p>
        </section>
      );
  }
}

render(<App />, document.getElementById('app')!);
