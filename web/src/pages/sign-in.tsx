/** Sign-in: an API key with dashboard access, or a username and password (`herald users create`). */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { signIn, type Session } from '../api.js';
import { ErrorNote } from '../components.js';

/** A text field of a submitted form ('' when absent). */
function field(form: FormData, name: string, trim = true): string {
  const v = form.get(name);
  const s = typeof v === 'string' ? v : '';
  return trim ? s.trim() : s;
}

export function SignInPage(props: { onSignedIn: (s: Session) => void }): JSX.Element {
  const [mode, setMode] = useState<'key' | 'user'>('key');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const creds = mode === 'key' ? { api_key: field(form, 'api_key') } : { username: field(form, 'username'), password: field(form, 'password', false) };
    setBusy(true);
    setError(null);
    signIn(creds).then(props.onSignedIn, (err: unknown) => {
      setError(err);
      setBusy(false);
    });
  };

  return (
    <main class="signin" id="main">
      <h1>Sign in to Herald</h1>
      <div class="tabs" role="group" aria-label="Sign in with">
        <button type="button" aria-pressed={mode === 'key'} onClick={() => setMode('key')}>
          API key
        </button>
        <button type="button" aria-pressed={mode === 'user'} onClick={() => setMode('user')}>
          Username and password
        </button>
      </div>
      <form onSubmit={submit} class="stack">
        {mode === 'key' ? (
          <div class="field">
            <label for="api_key">API key</label>
            <input id="api_key" name="api_key" type="password" autoComplete="off" required spellcheck={false} />
          </div>
        ) : (
          <>
            <div class="field">
              <label for="username">Username</label>
              <input id="username" name="username" autoComplete="username" required />
            </div>
            <div class="field">
              <label for="password">Password</label>
              <input id="password" name="password" type="password" autoComplete="current-password" required />
            </div>
          </>
        )}
        <ErrorNote error={error} />
        <button type="submit" class="button-primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="hint">The session lasts 8 hours (1 hour idle). Destinations are masked unless your role is admin.</p>
    </main>
  );
}
