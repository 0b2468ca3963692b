/**
 * The Herald processes of the campaign run: one `herald api` and `--workers` × `herald worker`
 * (the compiled CLI, through the chaos run's tracked children) on one PostgreSQL schema, plus
 * the few API calls the run makes, and each process's peak memory from /proc.
 */
import { readFileSync } from 'node:fs';
import { HeraldChild } from '../chaos/processes.js';

export interface HeraldProcesses {
  apiUrl: string;
  api: HeraldChild;
  workers: HeraldChild[];
  /** Set when a process exited without the run asking it to. */
  crashed(): string | null;
}

/** Starts the API (it creates and migrates the schema), then the workers; resolves once all are up. */
export async function startHerald(opts: { workers: number; configFile: string; dataDir: string; env: Record<string, string> }): Promise<HeraldProcesses> {
  const args = ['--config', opts.configFile, '--data-dir', opts.dataDir];
  let crash: string | null = null;
  const watch = (c: HeraldChild) => {
    void c.exited.then((exit) => {
      if (!c.signalledByRunner) crash ??= `${c.name} (pid ${c.pid}) exited on its own: ${JSON.stringify(exit)}\n${c.stderrTail().slice(-2_000)}`;
    });
    return c;
  };
  const api = watch(new HeraldChild('api', ['api', ...args, '--port', '0'], opts.env));
  const apiUrl = (await api.waitFor(/^\s*API:\s+(http\S+)/m, 30_000))[1]!;
  const workers = Array.from({ length: opts.workers }, (_, i) => watch(new HeraldChild(`worker[${i}]`, ['worker', ...args], opts.env)));
  await Promise.all(workers.map((w) => w.waitFor(/Herald is running/, 30_000)));
  return { apiUrl, api, workers, crashed: () => crash };
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
