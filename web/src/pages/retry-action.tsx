/**
 * "Retry" for one delivery (POST /v1/deliveries/:id/retry), with its confirmation and its inline
 * result: the same in the message dialog, on a failed row of the messages list and on a failed
 * row of a device's page, so a retry is one click and one confirmation wherever the row is.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { post, type Role } from '../api.js';
import { Confirm } from '../components.js';

/** What a retry needs of its delivery (a list row and the detail both have it). */
export interface RetryTarget {
  id: string;
  state: string;
  terminal_reason: string | null;
  provider_account: string;
  attempt_count: number;
}

/** States a replay accepts (src/delivery/replay-service.ts); `unknown` and `unresolved` need the duplicate risk accepted. */
export const RETRYABLE_STATES: ReadonlySet<string> = new Set(['retryable', 'unknown', 'terminal']);

/** Terminal reasons of a failed message (docs/operations.md) that a retry can still help: an expired one cannot be sent. */
const FAILED_REASONS: ReadonlySet<string> = new Set(['rejected', 'exhausted', 'unresolved']);

/** A row that shows a retry button: a failed message (terminal for a failure reason, or waiting to retry) a replay accepts. */
export function isFailedRow(d: { state: string; terminal_reason: string | null }): boolean {
  return d.state === 'retryable' || (d.state === 'terminal' && FAILED_REASONS.has(d.terminal_reason ?? ''));
}

/** The retry button, its confirmation and its result; nothing for a viewer. `label` names the row for a screen reader. */
export function RetryAction(props: { d: RetryTarget; role: Role; onDone: () => void; label?: string; disabled?: boolean }): JSX.Element | null {
  const { d } = props;
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  if (props.role === 'viewer') return null;
  const risky = d.state === 'unknown' || d.terminal_reason === 'unresolved';
  const run = () => {
    setBusy(true);
    setError(null);
    post(`/v1/deliveries/${encodeURIComponent(d.id)}/retry`, risky ? { accept_duplicate_risk: true } : {}).then(
      () => {
        setBusy(false);
        setAsking(false);
        setDone(true);
        props.onDone();
      },
      (e: unknown) => {
        setBusy(false);
        setError(e);
      },
    );
  };
  return (
    <span class="retry-action">
      <button
        type="button"
        disabled={props.disabled ?? !RETRYABLE_STATES.has(d.state)}
        aria-label={props.label}
        onClick={() => {
          setDone(false);
          setAsking(true);
        }}
      >
        Retry
      </button>
      {done ? (
        <span class="note note-ok" role="status">
          Retry scheduled.
        </span>
      ) : null}
      {asking ? (
        <Confirm
          title="Retry this delivery?"
          confirmLabel={risky ? 'Retry, accepting a possible duplicate' : 'Retry now'}
          danger={risky}
          busy={busy}
          error={error}
          onConfirm={run}
          onCancel={() => setAsking(false)}
        >
          {risky ? (
            <p>
              <strong>Duplicate risk:</strong> this delivery is {d.state === 'unknown' ? 'unknown' : 'unresolved'}: the provider may already have accepted the
              first submission, so the recipient may get this message twice. The retry uses the same idempotency key, which only prevents a duplicate if the
              provider deduplicates by key.
            </p>
          ) : (
            <p>
              Sends delivery {d.id} again now, with the same idempotency key, through {d.provider_account}. It was {d.state}
              {d.terminal_reason ? ` (${d.terminal_reason})` : ''} after {d.attempt_count} attempt(s).
            </p>
          )}
        </Confirm>
      ) : null}
    </span>
  );
}
