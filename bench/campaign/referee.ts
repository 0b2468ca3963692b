/**
 * The referee: Herald's sandbox provider (compiled dist/, unchanged) started in this process
 * with an sms quota of R per second, so its ledger, its per-second counts and every 429 it
 * answers are read directly instead of as 100 MB of JSON over HTTP.
 *
 * The sandbox keeps no count of the 429s its quota answers, and its per-second counts hold only
 * what it accepted (never above R by construction). So the quota controller's `admit` is
 * observed here, at run time, without changing src/sandbox: every `{ ok: false }` it returns is
 * exactly one 429 response (with no faults configured, the second check after the fault plan
 * sees the same second and the same count as the first, so it cannot refuse what the first let
 * through). Accepted plus refused, per second, is what the provider *received*.
 */
import type * as Sandbox from '../../src/sandbox/index.js';

type SandboxModule = Pick<typeof Sandbox, 'startSandbox'>;

export interface Referee {
  url: string;
  handle: Sandbox.SandboxHandle;
  /** Quota refusals (429 responses) per epoch second. */
  refusedPerSecond: Map<number, number>;
  refused(): number;
  /** Called with every submission the ledger records (cheap progress, without copying the ledger). */
  onRecord(listener: (entry: Sandbox.NewLedgerEntry) => void): void;
  close(): Promise<void>;
}

/** Starts the sandbox with `quota` sms sends per second and a 429 counter on its quota. */
export async function startReferee(mod: SandboxModule, quota: number): Promise<Referee> {
  const handle = await mod.startSandbox({ port: 0, host: '127.0.0.1', quota: { sms: quota } });
  const refusedPerSecond = new Map<number, number>();
  let refused = 0;
  const admit = handle.quota.admit.bind(handle.quota);
  handle.quota.admit = (channel, nowMs, ledger) => {
    const decision = admit(channel, nowMs, ledger);
    if (!decision.ok) {
      refused += 1;
      const second = Math.floor(nowMs / 1000);
      refusedPerSecond.set(second, (refusedPerSecond.get(second) ?? 0) + 1);
    }
    return decision;
  };
  const listeners: Array<(entry: Sandbox.NewLedgerEntry) => void> = [];
  const record = handle.ledger.record.bind(handle.ledger);
  handle.ledger.record = (entry) => {
    record(entry);
    for (const l of listeners) l(entry);
  };
  return {
    url: handle.url,
    handle,
    refusedPerSecond,
    refused: () => refused,
    onRecord: (l) => void listeners.push(l),
    close: () => handle.close(),
  };
}
