/**
 * Path-based routes under /dashboard with the filters in the query string, so every page and
 * every filtered list is a URL that can be bookmarked and shared. The server answers index.html
 * for any /dashboard path, so a deep link loads the app, which then reads location.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/dashboard';

export interface Route {
  /** The path below /dashboard, always starting with `/` ("/" for the overview). */
  path: string;
  query: URLSearchParams;
}

const listeners = new Set<() => void>();

function current(): Route {
  const p = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return { path: p === '' ? '/' : p, query: new URLSearchParams(location.search) };
}

/** The full URL of a dashboard path (`/messages?state=terminal` → `/dashboard/messages?state=terminal`). */
export const href = (to: string): string => `${BASE}${to === '/' ? '/' : to}`;

/** Goes to a dashboard path; `replace` for filter changes that should not pile up in history. */
export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = href(to);
  if (url === location.pathname + location.search) return;
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const l of listeners) l();
}

/** The current route; re-renders on navigation and on the browser's back and forward. */
export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** A real link (works with a middle click, copy link, keyboard) that navigates in the app on a plain click. */
export function Link(props: { to: string; children: ComponentChildren } & Omit<JSX.HTMLAttributes<HTMLAnchorElement>, 'href'>): JSX.Element {
  const { to, children, ...rest } = props;
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a {...rest} href={href(to)} onClick={onClick}>
      {children}
    </a>
  );
}

/** `query` with `changes` applied (null or '' removes a key); returns the string with its `?`. */
export function withQuery(query: URLSearchParams, changes: Record<string, string | null>): string {
  const q = new URLSearchParams(query);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === '') q.delete(k);
    else q.set(k, v);
  }
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}
