/**
 * The messages page's bulk cancel: the list's current filters become POST /v1/deliveries/cancel's
 * filter; the server's preview (dry_run) says how many would be cancelled and how many are in
 * flight and left alone, and only a confirmation cancels (docs/scheduling.md "Bulk cancel").
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { post, type Role } from '../api.js';
import { Confirm, ErrorNote } from '../components.js';
import { plural } from '../format.js';
import { cancelFilterFor } from '../bulk-cancel-filter.js';

interface Preview {
  matched: number;
  would_cancel: number;
  in_flight: number;
  ended: number;
}
interface Result {
  matched: number;
  cancelled: number;
  in_flight: number;
  ended: number;
  changed: number;
}

export function BulkCancel(props: { params: Record<string, string>; role: Role; onDone: () => void }): JSX.Element | null {
  const [preview, setPreview] = useState<Preview | null>(null);
  const [result, setResult] = useState<Result | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (props.role === 'viewer') return null;
  const chosen = cancelFilterFor(props.params);
  const run = <T,>(dryRun: boolean, then: (r: T) => void) => {
    if (!('filter' in chosen)) return;
    setBusy(true);
    setError(null);
    post<T>('/v1/deliveries/cancel', { filter: chosen.filter, ...(dryRun ? { dry_run: true } : {}) }).then(
      (r) => {
        then(r);
        setBusy(false);
      },
      (e: unknown) => {
        setError(e);
        setBusy(false);
      },
    );
  };
  return (
    <div class="bulk-cancel" role="group" aria-label="Bulk cancel">
      <button
        type="button"
        disabled={busy || !('filter' in chosen)}
        onClick={() => {
          setResult(null);
          run<Preview>(true, setPreview);
        }}
      >
        Cancel matching…
      </button>
      {'refused' in chosen ? <span class="muted"> {chosen.refused}</span> : null}
      {result ? (
        <p class="note note-ok" role="status">
          Cancelled {plural(result.cancelled, 'delivery', 'deliveries')}; {result.in_flight} in flight left alone
          {result.changed > 0 ? `; ${result.changed} changed meanwhile and were not cancelled` : ''}.
        </p>
      ) : null}
      {preview === null ? <ErrorNote error={error} /> : null}
      {preview ? (
        <Confirm
          title="Cancel these deliveries?"
          confirmLabel={`Cancel ${plural(preview.would_cancel, 'delivery', 'deliveries')}`}
          danger
          busy={busy}
          error={error}
          onConfirm={() =>
            run<Result>(false, (r) => {
              setResult(r);
              setPreview(null);
              props.onDone();
            })
          }
          onCancel={() => setPreview(null)}
        >
          <p>
            <strong>{plural(preview.would_cancel, 'delivery', 'deliveries')}</strong> waiting to be sent would be cancelled; they are never sent.
          </p>
          <p>
            {preview.in_flight > 0
              ? `${plural(preview.in_flight, 'delivery is', 'deliveries are')} in flight (submitting or unknown): a provider may already have them, so they are left alone.`
              : 'None is in flight.'}
          </p>
          {preview.ended > 0 ? <p>{plural(preview.ended, 'delivery has', 'deliveries have')} already ended.</p> : null}
        </Confirm>
      ) : null}
    </div>
  );
}
