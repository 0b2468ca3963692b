/**
 * Live updates: one EventSource on GET /v1/events/stream (the tenant's outbox as server-sent
 * events, resumed by the browser with Last-Event-ID after a drop) shared by every page. Pages
 * subscribe with useLive and refetch what they show; events are coalesced so a burst of
 * transitions costs one refetch.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { DELIVERY_STATES } from '../../src/domain/vocabulary.js';
import { sessionEnded } from './api.js';

export interface LiveEvent {
  type: string;
  id: string;
  data: { delivery_id?: string; state?: string; [k: string]: unknown };
}

/** The outbox's event types (src/webhooks/event-types.ts): named SSE events need a listener each. */
const EVENT_TYPES = ['notification.created', 'delivery.status', ...DELIVERY_STATES.map((s) => `delivery.${s}`)];

type Listener = (e: LiveEvent) => void;
const listeners = new Set<Listener>();
const statusListeners = new Set<(s: LiveStatus) => void>();
let source: EventSource | null = null;
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'off';
let status: LiveStatus = 'off';

function setStatus(s: LiveStatus): void {
  status = s;
  for (const l of statusListeners) l(s);
}

/** Opens the stream (after sign-in). */
export function startLive(): void {
  if (source) return;
  setStatus('connecting');
  source = new EventSource('/v1/events/stream', { withCredentials: true });
  source.onopen = () => setStatus('live');
  // The browser reconnects by itself (with Last-Event-ID); say so meanwhile.
  source.onerror = () => setStatus(source?.readyState === EventSource.CLOSED ? 'off' : 'reconnecting');
  const dispatch = (type: string) => (m: MessageEvent<string>) => {
    let data: LiveEvent['data'] = {};
    try {
      data = JSON.parse(m.data) as LiveEvent['data'];
    } catch {
      // A payload that is not JSON still says something changed.
    }
    for (const l of listeners) l({ type, id: m.lastEventId, data });
  };
  for (const t of EVENT_TYPES) source.addEventListener(t, dispatch(t) as EventListener);
  // The server ends a session's stream once the session is revoked or expires: stop (a reconnect would get 401) and show sign-in.
  source.addEventListener('session.ended', () => {
    stopLive();
    sessionEnded();
  });
  source.onmessage = dispatch('message');
}

/** Closes the stream (sign-out). */
export function stopLive(): void {
  source?.close();
  source = null;
  setStatus('off');
}

/** While the stream is not live (down, reconnecting, refused by a proxy), pages poll this often instead. */
export const POLL_WHEN_NOT_LIVE_MS = 5_000;

/**
 * Calls `onChange` (at most once per `coalesceMs`) after outbox events that `relevant` accepts,
 * and every POLL_WHEN_NOT_LIVE_MS while the stream is not live, so a page never silently
 * stops updating.
 */
export function useLive(onChange: () => void, relevant: (e: LiveEvent) => boolean = () => true, coalesceMs = 400): void {
  const latest = useRef({ onChange, relevant });
  latest.current = { onChange, relevant };
  const live = useLiveStatus() === 'live';
  useEffect(() => {
    if (live) return;
    const t = setInterval(() => latest.current.onChange(), POLL_WHEN_NOT_LIVE_MS);
    return () => clearInterval(t);
  }, [live]);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const l: Listener = (e) => {
      if (!latest.current.relevant(e) || timer !== null) return;
      timer = setTimeout(() => {
        timer = null;
        latest.current.onChange();
      }, coalesceMs);
    };
    listeners.add(l);
    return () => {
      listeners.delete(l);
      if (timer !== null) clearTimeout(timer);
    };
  }, [coalesceMs]);
}

/** The stream's connection state, for the header's "live" indicator. */
export function useLiveStatus(): LiveStatus {
  const [s, setS] = useState(status);
  useEffect(() => {
    statusListeners.add(setS);
    return () => void statusListeners.delete(setS);
  }, []);
  return s;
}
