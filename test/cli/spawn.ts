/**
 * Runs the built `herald` binary (`node bin/herald.js …`) as a child process: collects its
 * output, waits for a line with a deadline, sends signals. Every child is tracked so a test's
 * afterEach can kill whatever is still running (`killChildren`), pass or fail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(ROOT, 'bin/herald.js');
const MAIN = join(ROOT, 'dist/cli/main.js');

/** The CLI tests run the compiled CLI; a missing build is an error, never a silent skip. */
export function requireBuild(): void {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} does not exist: run \`npm run build\` before the CLI tests`);
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface HeraldProcess {
  proc: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in the stream (stdout by default); rejects at the deadline or on exit. */
  waitFor(pattern: RegExp, opts?: { stream?: 'stdout' | 'stderr'; timeoutMs?: number }): Promise<RegExpMatchArray>;
  /** Resolves when the process exits; rejects at the deadline (the process is left running for afterEach). */
  exited(timeoutMs?: number): Promise<Exit>;
  signal(sig: NodeJS.Signals): void;
}

const children = new Set<HeraldProcess>();
const tempDirs = new Set<string>();

/** Environment for a child: the parent's, minus anything Herald reads, plus `extra`. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // Herald's own settings and the suite's DATABASE_URL stay out: a child runs on its own data
  // dir (SQLite) unless a test hands it a database explicitly.
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('HERALD_') && k !== 'DATABASE_URL') env[k] = v;
  return { ...env, ...extra };
}

/** Starts `node bin/herald.js ...args`. */
export function spawnHerald(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): HeraldProcess {
  const proc = spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: childEnv(opts.env ?? {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let exit: Exit | null = null;
  const listeners = new Set<() => void>();
  const changed = () => listeners.forEach((l) => l());
  proc.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    changed();
  });
  proc.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    changed();
  });
  // 'close' (not 'exit'): the output streams are fully read by then.
  proc.on('close', (code, signal) => {
    exit = { code, signal };
    changed();
  });

  const until = <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const tick = () => {
        let value: T | undefined;
        try {
          value = check();
        } catch (e) {
          done();
          reject(e instanceof Error ? e : new Error('the check threw a non-Error', { cause: e }));
          return;
        }
        if (value !== undefined) {
          done();
          resolve(value);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n--- stdout:\n${out}\n--- stderr:\n${err}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        listeners.delete(tick);
      };
      listeners.add(tick);
      tick();
    });

  const child: HeraldProcess = {
    proc,
    pid: proc.pid!,
    stdout: () => out,
    stderr: () => err,
    waitFor(pattern, o = {}) {
      const stream = o.stream ?? 'stdout';
      return until(
        () => {
          const m = (stream === 'stdout' ? out : err).match(pattern);
          if (m) return m;
          if (exit)
            throw new Error(`herald ${args.join(' ')} exited (${JSON.stringify(exit)}) before printing ${pattern}\n--- stdout:\n${out}\n--- stderr:\n${err}`);
          return undefined;
        },
        o.timeoutMs ?? 15_000,
        `${pattern} on ${stream} of herald ${args.join(' ')}`,
      );
    },
    exited(timeoutMs = 15_000) {
      return until(() => exit ?? undefined, timeoutMs, `herald ${args.join(' ')} to exit`);
    },
    signal(sig) {
      if (!exit) proc.kill(sig);
    },
  };
  children.add(child);
  proc.on('close', () => children.delete(child));
  return child;
}

/** Runs a command to completion (with a deadline) and returns its exit code and output. */
export async function runHerald(
  args: string[],
  opts: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnHerald(args, opts);
  const exit = await child.exited(opts.timeoutMs ?? 15_000);
  return { code: exit.code, stdout: child.stdout(), stderr: child.stderr() };
}

/** Kills every child still running (SIGKILL) and waits for them; call from afterEach. */
export async function killChildren(): Promise<void> {
  const running = [...children];
  for (const c of running) c.signal('SIGKILL');
  await Promise.all(running.map((c) => c.exited(5_000).catch(() => undefined)));
  children.clear();
}

/** A fresh temporary directory, removed by `removeTempDirs`. */
export function tempDir(prefix = 'herald-cli-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** Removes the directories made by `tempDir`; call from afterEach after killChildren. */
export function removeTempDirs(): void {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/** Polls `check` (with vi.waitFor) until it returns a value other than undefined, or throws at the deadline naming `what`. */
export async function poll<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  try {
    return await vi.waitFor(
      async () => {
        const value = await check();
        if (value === undefined) throw new Error('not yet');
        return value;
      },
      { timeout: timeoutMs, interval: intervalMs },
    );
  } catch (e) {
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${e instanceof Error ? e.message : JSON.stringify(e)}`, { cause: e });
  }
}

// ---- A running `herald start` and its HTTP API ----

export interface Banner {
  apiUrl: string;
  /** The dashboard's URL, when the banner names one. */
  dashboardUrl: string | null;
  sandboxUrl: string | null;
  dataDir: string;
  /** The key when this start created one. */
  key: string | null;
  /** The -d body of the printed curl, when one was printed. */
  curlBody: string | null;
}

/** Reads what `herald start` prints once it is ready. */
export function parseBanner(stdout: string): Banner {
  const api = /^\s*API:\s+(http\S+)/m.exec(stdout);
  if (!api) throw new Error(`no API URL in:\n${stdout}`);
  const dataDir = /^\s*Data dir:\s+(.+?)\s*$/m.exec(stdout);
  if (!dataDir) throw new Error(`no data dir in:\n${stdout}`);
  return {
    apiUrl: api[1]!,
    dashboardUrl: /^\s*Dashboard:\s+(http\S+)/m.exec(stdout)?.[1] ?? null,
    sandboxUrl: /^\s*Sandbox:\s+(http\S+)/m.exec(stdout)?.[1] ?? null,
    dataDir: dataDir[1]!,
    key: /^\s+(hld_sk_[0-9A-Za-z]+)\s*$/m.exec(stdout)?.[1] ?? null,
    curlBody: /^\s*-d '(\{.*\})'\s*$/m.exec(stdout)?.[1] ?? null,
  };
}

/**
 * `herald start …` until its banner is printed. The deadline is 30 s, not the 15 s of other waits:
 * a fresh start (module load, every migration, the sandbox) took 6 s at load average 20 on this
 * 2-core machine and more than 15 s at 24 (two of three e2e runs failed in beforeAll there).
 */
export async function startHerald(args: string[], opts: { env?: Record<string, string> } = {}): Promise<{ child: HeraldProcess; banner: Banner }> {
  const child = spawnHerald(['start', ...args], opts);
  await child.waitFor(/^Stop with Ctrl-C/m, { timeoutMs: 30_000 });
  return { child, banner: parseBanner(child.stdout()) };
}

/** SIGTERM, then the exit within a deadline. */
export async function stopHerald(child: HeraldProcess, timeoutMs = 10_000): Promise<Exit> {
  child.signal('SIGTERM');
  return child.exited(timeoutMs);
}

let otpCounter = 0;

/** A one-time-code request for an SMS recipient; phone and text are unique per call within a file. */
export function otpRequest(recipientId: string): { body: Record<string, unknown>; phone: string; text: string } {
  otpCounter += 1;
  // 415-555-01xx is reserved for fiction; the sandbox's magic reject number (+15005550001) is avoided.
  const phone = `+1415555${String(150 + otpCounter).padStart(4, '0')}`;
  const text = `Your code is ${randomInt(100_000, 1_000_000)}`;
  return { body: { recipient: { id: recipientId, phone }, purpose: 'otp', channels: ['sms'], content: { text }, ttl_seconds: 300 }, phone, text };
}

/** POST /v1/notifications. */
export async function postNotification(apiUrl: string, key: string, body: unknown, idempotencyKey: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${apiUrl}/v1/notifications`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `"${idempotencyKey}"` },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** GET /v1/notifications/:id. */
export async function getNotification(apiUrl: string, key: string, id: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${apiUrl}/v1/notifications/${id}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, json: await res.json() };
}

/** Polls the notification until its only delivery reaches `state`; returns that delivery. */
export async function waitForDeliveryState(apiUrl: string, key: string, id: string, state: string, timeoutMs = 10_000): Promise<any> {
  let last: unknown = null;
  try {
    return await poll(
      async () => {
        const { status, json } = await getNotification(apiUrl, key, id);
        if (status !== 200) throw new Error(`GET /v1/notifications/${id} answered ${status}: ${JSON.stringify(json)}`);
        last = json.deliveries;
        const d = json.deliveries[0];
        return d?.state === state ? d : undefined;
      },
      `notification ${id} to be ${state}`,
      timeoutMs,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last deliveries: ${JSON.stringify(last)}`);
  }
}

/** The sandbox ledger, optionally for one idempotency key. */
export async function ledger(sandboxUrl: string, idempotencyKey?: string): Promise<Array<{ idempotency_key: string; channel: string; destination: string }>> {
  const q = idempotencyKey === undefined ? '' : `?idempotency_key=${encodeURIComponent(idempotencyKey)}`;
  const res = await fetch(`${sandboxUrl}/ledger${q}`);
  if (res.status !== 200) throw new Error(`GET /ledger answered ${res.status}`);
  return ((await res.json()) as { entries: any[] }).entries;
}

/** SIGTERM, then asserts a clean exit (code 0) within the deadline, with the output in the failure. */
export async function expectCleanStop(child: HeraldProcess, timeoutMs = 10_000): Promise<void> {
  const exit = await stopHerald(child, timeoutMs);
  if (exit.code !== 0 || exit.signal !== null) {
    throw new Error(`expected exit 0 after SIGTERM, got ${JSON.stringify(exit)}\n--- stdout:\n${child.stdout()}\n--- stderr:\n${child.stderr()}`);
  }
}
