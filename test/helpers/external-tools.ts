/**
 * The programs some tests drive that npm cannot install: promtool (Debian's `prometheus`) and
 * Chromium (Debian's `chromium`). `.ci/run` installs both with apt; a new user's machine may
 * have neither (issue 23).
 *
 * Each is looked for once per run, in vitest's main process (test/setup/external-tools.ts runs
 * `<tool> --version`), and the answer reaches every test file through `inject`. A file asks
 * for a tool with `externalTool(name, uses)`:
 * - found: it gets the command to run;
 * - missing and `CI` unset: it gets `available: false` and skips what needs the tool; the miss
 *   is written to a directory of records that the run's last reporter
 *   (test/setup/external-tools-reporter.ts) reads to print one block: what was skipped, why,
 *   and the one command that installs the tools;
 * - missing and `CI` set: it throws, naming the tool, so the file fails and so does the run.
 *
 * Records are files in a temporary directory because vitest runs test files in forked
 * workers: no memory is shared with the reporter.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, inject } from 'vitest';

export type ToolName = 'promtool' | 'chromium';

declare module 'vitest' {
  export interface ProvidedContext {
    externalTools: Record<ToolName, Located>;
    externalToolRecords: string;
  }
}

interface ToolSpec {
  /** The Debian package that installs it. */
  debianPackage: string;
  /** The command run, and `--version`-checked: a name on PATH or an absolute path. */
  command: () => string;
}

export const TOOLS: Record<ToolName, ToolSpec> = {
  promtool: { debianPackage: 'prometheus', command: () => 'promtool' },
  // HERALD_CHROMIUM: another Chromium build (DEVELOPERS.md, "End-to-end tests in Chromium").
  chromium: { debianPackage: 'chromium', command: () => process.env.HERALD_CHROMIUM ?? '/usr/bin/chromium' },
};

/** The one command that installs every tool above, as root (the README gives it and `.ci/run` runs it). */
export const INSTALL_COMMAND = `apt-get update && apt-get install -y --no-install-recommends ${Object.values(TOOLS)
  .map((t) => t.debianPackage)
  .sort()
  .join(' ')}`;

/** CI is set (and not "false" or "0"): a missing tool fails instead of skipping. */
export const IN_CI = !['', 'false', '0'].includes(process.env.CI ?? '');

export type Located = { available: true; command: string; version: string } | { available: false; command: string; reason: string };

/**
 * Whether `name` runs here: `<command> --version` must exit 0. Running it, not only looking for
 * the file, is what tells an installed program from a path that is there but cannot run (a
 * broken link, or a file bound over it to hide it).
 */
export function locateTool(name: ToolName): Located {
  const command = TOOLS[name].command();
  // Chromium's --version can take a few seconds on a loaded machine; a hung binary is a missing one.
  const r = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? `${command} is not installed` : `${command} cannot run (${code ?? r.error.message})`;
    return { available: false, command, reason };
  }
  if (r.status !== 0) return { available: false, command, reason: `\`${command} --version\` exited with ${r.status ?? r.signal}` };
  const version = `${r.stdout}${r.stderr}`.trim().split('\n')[0] ?? '';
  return { available: true, command, version };
}

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** One file's miss of one tool, written by the file's worker and read by the reporter. */
export interface ToolRecord {
  tool: ToolName;
  /** The test file, relative to the repository. */
  file: string;
  /** What the file does not check without the tool, in a few words. */
  uses: string;
  reason: string;
  /** CI was set: the file failed instead of skipping. */
  ci: boolean;
}

/** Where this run's records go: one directory per vitest main process (`pid`). */
export function toolRecordsDir(pid: number): string {
  return join(tmpdir(), `herald-external-tools-${pid}`);
}

let written = 0;

function record(r: ToolRecord): void {
  const dir = inject('externalToolRecords');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${process.pid}-${written++}.json`), JSON.stringify(r));
}

/** Every record of this run, in no particular order (the reporter sorts). */
export function readToolRecords(dir: string): ToolRecord[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return []; // Nothing was missing: no record was ever written.
  }
  return names.filter((n) => n.endsWith('.json')).map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as ToolRecord);
}

/**
 * The tool `name` for the calling test file, which says in a few words what it `uses` it for.
 * Missing: recorded for the end-of-run block, then `available: false` (skip what needs it), or
 * under CI an error that fails the file. Call at the top of the file, not inside a test.
 */
export function externalTool(name: ToolName, uses: string): Located {
  const located = inject('externalTools')[name];
  if (located.available) return located;
  const testPath = expect.getState().testPath;
  const file = testPath ? relative(ROOT, testPath) : '(unknown file)';
  record({ tool: name, file, uses, reason: located.reason, ci: IN_CI });
  if (IN_CI) {
    throw new Error(`${name} is required when CI is set (${located.reason}); ${file} needs it for ${uses}. Install it: ${INSTALL_COMMAND} (as .ci/run does)`);
  }
  return located;
}
