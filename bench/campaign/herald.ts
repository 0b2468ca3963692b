/**
 * The Herald processes of the campaign run (the compiled CLI, through the chaos run's tracked
 * children): on PostgreSQL one `herald api` and `--workers` × `herald worker` on one schema; on
 * SQLite one `herald start` (API, workers and campaign runner in one process, its own data
 * directory). Plus the few API calls the run makes, and each process's peak memory from /proc.
 */
import { readFileSync } from 'node:fs';
import { HeraldChild } from '../chaos/processes.js';

/** How Herald runs: split roles (PostgreSQL) or the all-in-one process (SQLite). */
export type HeraldLayout = { kind: 'split'; workers: number } | { kind: 'start' };

export interface HeraldProcesses {
  apiUrl: string;
  /** Every process of the run: `api` and `worker[i]`, or the one `start`. */
  processes: HeraldChild[];
  /** Set when a process exited without the run asking it to. */
  crashed(): string | null;
}

/** What the layout runs, for headers: "herald api + 4 × herald worker" or "one herald start". */
export function describeLayout(layout: HeraldLayout): string {
  return layout.kind === 'split' ? `herald api + ${layout.workers} × herald worker` : 'one herald start (api + worker + campaign runner)';
}

/** Starts the API (it creates and migrates the store), then any workers; resolves once all are up. */
export async function startHerald(opts: { layout: HeraldLayout; configFile: string; dataDir: string; env: Record<string, string> }): Promise<HeraldProcesses> {
  const args = ['--config', opts.configFile, '--data-dir', opts.dataDir];
  let crash: string | null = null;
  const watch = (c: HeraldChild) => {
    void c.exited.then((exit) => {
      if (!c.signalledByRunner) crash ??= `${c.name} (pid ${c.pid}) exited on its own: ${JSON.stringify(exit)}\n${c.stderrTail().slice(-2_000)}`;
    });
    return c;
  };
  const first = opts.layout.kind === 'split' ? 'api' : 'start';
  const api = watch(new HeraldChild(first, [first, ...args, '--port', '0'], opts.env));
  const apiUrl = (await api.waitFor(/^\s*API:\s+(http\S+)/m, 30_000))[1]!;
  const workers =
    opts.layout.kind === 'split'
      ? Array.from({ length: opts.layout.workers }, (_, i) => watch(new HeraldChild(`worker[${i}]`, ['worker', ...args], opts.env)))
      : [];
  await Promise.all(workers.map((w) => w.waitFor(/Herald is running/, 30_000)));
  return { apiUrl, processes: [api, ...workers], crashed: () => crash };
}

/** Peak and current resident memory of a process, MB (VmHWM / VmRSS in /proc/<pid>/status). */
export function memoryMb(pid: number): { peak: number; now: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { peak: kb('VmHWM') / 1024, now: kb('VmRSS') / 1024 };
  } catch {
    return null;
  }
}

/** One JSON call to the API; rejects with the body unless the status is `expect`. */
export async function api<T>(apiUrl: string, apiKey: string, method: string, path: string, expect: number, body?: unknown): Promise<T> {
  const res = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${method} ${path} answered ${res.status} (expected ${expect}): ${text.slice(0, 1_000)}`);
  return JSON.parse(text) as T;
}
