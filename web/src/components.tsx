/** The dashboard's building blocks: state badges that say their state in words, dialogs, notes and data loading. */
import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';

/**
 * A delivery state in words, with a symbol and a colour class: colour is never the only
 * signal. `terminal` is qualified by its reason ("terminal · exhausted").
 */
export function StateBadge(props: { state: string; reason?: string | null }): JSX.Element {
  const tone = toneOf(props.state, props.reason ?? null);
  const symbol = { ok: '✓', bad: '✕', warn: '?', wait: '…', neutral: '·' }[tone];
  return (
    <span class={`badge badge-${tone}`}>
      <span aria-hidden="true">{symbol} </span>
      {props.state}
      {props.reason ? ` · ${props.reason}` : ''}
    </span>
  );
}

function toneOf(state: string, reason: string | null): 'ok' | 'bad' | 'warn' | 'wait' | 'neutral' {
  // Phone states are capitalised (SMSGate's vocabulary): Delivered, Failed, Pending...
  state = state.toLowerCase();
  if (
    state === 'accepted' ||
    state === 'delivered' ||
    state === 'sent' ||
    state === 'read' ||
    state === 'online' ||
    state === 'healthy' ||
    state === 'completed' ||
    state === 'in service'
  )
    return 'ok';
  if (state === 'unknown' || state === 'degraded' || state === 'paused') return 'warn';
  if (state === 'terminal')
    return reason === 'cancelled' || reason === 'superseded' || reason === 'suppressed' || reason === 'unsubscribed' ? 'neutral' : 'bad';
  if (state === 'bounced' || state === 'failed' || state === 'complained' || state === 'offline' || state === 'demoted') return 'bad';
  if (['ready', 'submitting', 'retryable', 'running', 'pending', 'processed', 'cancelling'].includes(state)) return 'wait';
  return 'neutral';
}

/** A problem answer shown as text, with its stable code and any field errors. */
export function ErrorNote(props: { error: unknown }): JSX.Element | null {
  const e = props.error;
  if (e === null || e === undefined) return null;
  const message = e instanceof Error ? e.message : typeof e === 'string' ? e : JSON.stringify(e);
  return (
    <div class="note note-error" role="alert">
      <strong>Error{e instanceof ApiError ? ` (${e.code})` : ''}:</strong> {message}
      {e instanceof ApiError && e.errors.length > 0 ? (
        <ul>
          {e.errors.map((f) => (
            <li key={f.field}>
              {f.field}: {f.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export interface Resource<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads `fetcher()` when `key` changes; `reload()` fetches again while keeping the last data on screen. */
export function useResource<T>(fetcher: () => Promise<T>, key: string): Resource<T> {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  const latest = useRef(fetcher);
  latest.current = fetcher;
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    latest.current().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: unknown) => live && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => {
      live = false;
    };
  }, [key, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/**
 * A modal dialog on the native <dialog> element: focus moves into it and stays there, Escape
 * closes it, and focus returns to what opened it.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren; wide?: boolean }): JSX.Element {
  const ref = useRef<HTMLDialogElement>(null);
  // Unique per dialog: a confirmation opens over the detail dialog, and each must be named by its own title.
  const titleId = useId();
  useEffect(() => {
    const d = ref.current!;
    const opener = document.activeElement as HTMLElement | null;
    if (!d.open) d.showModal();
    return () => {
      if (d.open) d.close();
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={props.wide ? 'dialog dialog-wide' : 'dialog'}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      <header class="dialog-head">
        <h2 id={titleId}>{props.title}</h2>
        <button type="button" class="button-plain" onClick={props.onClose} aria-label="Close">
          ✕
        </button>
      </header>
      <div class="dialog-body">{props.children}</div>
    </dialog>
  );
}

/** A confirmation that names what will happen; the confirm button is the one to read. */
export function Confirm(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  error?: unknown;
  onConfirm: () => void;
  onCancel: () => void;
}): JSX.Element {
  return (
    <Dialog title={props.title} onClose={props.onCancel}>
      <div class="confirm-text">{props.children}</div>
      <ErrorNote error={props.error} />
      <div class="button-row">
        <button type="button" class={props.danger ? 'button-danger' : 'button-primary'} disabled={props.busy} onClick={props.onConfirm}>
          {props.busy ? 'Working…' : props.confirmLabel}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

/** A labelled <select> of fixed values, with "any" as the empty choice. */
export function Select(props: {
  label: string;
  name: string;
  value: string;
  options: readonly string[];
  onChange: (v: string) => void;
  anyLabel?: string;
}): JSX.Element {
  const id = `f-${props.name}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">{props.anyLabel ?? 'any'}</option>
        {props.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A labelled text input that commits on Enter or when it loses focus. */
export function TextFilter(props: {
  label: string;
  name: string;
  value: string;
  onCommit: (v: string) => void;
  placeholder?: string;
  type?: string;
}): JSX.Element {
  const id = `f-${props.name}`;
  const [v, setV] = useState(props.value);
  useEffect(() => setV(props.value), [props.value]);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        value={v}
        placeholder={props.placeholder}
        onInput={(e) => setV(e.currentTarget.value)}
        onChange={(e) => props.onCommit(e.currentTarget.value.trim())}
        onKeyDown={(e) => {
          if (e.key === 'Enter') props.onCommit(e.currentTarget.value.trim());
        }}
      />
    </div>
  );
}

/** A definition list of label/value pairs. */
export function Facts(props: { items: Array<[string, ComponentChildren]> }): JSX.Element {
  return (
    <dl class="facts">
      {props.items.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}
