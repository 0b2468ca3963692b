/**
 * Child processes of the chaos run: `node bin/herald.js <command>` with a tracked handle.
 * Every child started here is remembered until it exits, so `killAllChildren()` can SIGKILL
 * whatever is left, whatever went wrong (the runner's finally block and the test's afterAll
 * both call it). Only processes started by this module are ever signalled.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(ROOT, 'bin/herald.js');
export const MAIN = join(ROOT, 'dist/cli/main.js');

/** The run executes the compiled CLI; a missing build is a clear error, never a silent skip. */
export function requireBuild(): void {
  if (!existsSync(MAIN)) {
    throw new Error(`${MAIN} does not exist: run \`npm run build\` first (the chaos run starts dist/ through bin/herald.js)`);
  }
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

// Enough of stderr to diagnose a failure without holding every JSON log line of a long run.
const STDERR_TAIL_BYTES = 32 * 1024;

/** What to run instead of `node bin/herald.js` (the benchmarks' peer processes and their Redis). */
export interface Launch {
  /** The executable (default: this Node). */
  file: string;
  /** Arguments before the child's own `args` (default: bin/herald.js). */
  prefix: string[];
}

export class HeraldChild {
  readonly proc: ChildProcess;
  readonly pid: number;
  readonly startedAt = Date.now();
  /** When the process first printed "Herald is running" (its services, the sweeper among them, started); null before. */
  runningAt: number | null = null;
  private out = '';
  private errTail = '';
  /** Log lines at level error (50) or fatal (60), counted over the whole life of the process. */
  errorLines = 0;
  /** Log lines at level warn (40). */
  warnLines = 0;
  /** Set when the runner itself sent SIGKILL/SIGTERM (a planned exit). */
  signalledByRunner = false;
  exit: ExitInfo | null = null;
  readonly exited: Promise<ExitInfo>;
  private readonly listeners = new Set<() => void>();
  private partial = '';

  constructor(
    readonly name: string,
    readonly args: string[],
    env: Record<string, string>,
    launch: Launch = { file: process.execPath, prefix: [BIN] },
  ) {
    this.proc = spawn(launch.file, [...launch.prefix, ...args], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    this.pid = this.proc.pid ?? -1;
    this.proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
      if (this.out.length < 64 * 1024) this.out += d;
      if (this.runningAt === null && this.out.includes('Herald is running')) this.runningAt = Date.now();
      this.changed();
    });
    this.proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.errTail = (this.errTail + d).slice(-STDERR_TAIL_BYTES);
      this.countLevels(d);
    });
    this.exited = new Promise((resolveExit) => {
      // 'close', not 'exit': the streams are fully read by then.
      this.proc.on('close', (code, signal) => {
        this.exit = { code, signal };
        live.delete(this);
        this.changed();
        resolveExit(this.exit);
      });
      this.proc.on('error', () => {
        // spawn failure: 'close' follows with a code; nothing else to do here.
      });
    });
    live.add(this);
  }

  private countLevels(chunk: string): void {
    const text = this.partial + chunk;
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      const m = /"level":(\d+)/.exec(line);
      if (!m) continue;
      const level = Number(m[1]);
      if (level >= 50) this.errorLines += 1;
      else if (level === 40) this.warnLines += 1;
    }
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  stdout(): string {
    return this.out;
  }

  stderrTail(): string {
    return this.errTail;
  }

  /** Resolves with the first match of `pattern` on stdout; rejects on exit or at the deadline. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    return new Promise((resolveMatch, reject) => {
      const check = () => {
        const m = this.out.match(pattern);
        if (m) {
          done();
          resolveMatch(m);
        } else if (this.exit) {
          done();
          reject(new Error(`${this.name} exited (${JSON.stringify(this.exit)}) before printing ${pattern}\n${this.describe()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${this.name} did not print ${pattern} within ${timeoutMs} ms\n${this.describe()}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }

  /** Sends a signal if the process is still running, marking the exit as planned. */
  signal(sig: NodeJS.Signals): void {
    if (this.exit) return;
    this.signalledByRunner = true;
    this.proc.kill(sig);
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit. */
  async stop(graceMs = 5_000): Promise<ExitInfo> {
    if (this.exit) return this.exit;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  describe(): string {
    return `--- ${this.name} (pid ${this.pid}) stdout:\n${this.out}\n--- stderr (tail):\n${this.errTail}`;
  }
}

const live = new Set<HeraldChild>();

/** Environment for a child: the parent's, minus anything Herald reads, plus `extra`. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('HERALD_') || k === 'DATABASE_URL') continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/** SIGKILLs every child this module started that is still running, and waits for them (bounded). */
export async function killAllChildren(timeoutMs = 5_000): Promise<void> {
  const running = [...live];
  for (const c of running) c.signal('SIGKILL');
  await Promise.race([Promise.all(running.map((c) => c.exited)), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
}

/** How many children are still running (the test asserts 0 after cleanup). */
export function liveChildren(): number {
  return live.size;
}
