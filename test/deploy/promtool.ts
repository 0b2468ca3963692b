/**
 * promtool (Debian's `prometheus` package) for the deploy/ tests: whether it is here, and one
 * way to run it. CI installs it (.ci/run); elsewhere the tests that need it are skipped and say
 * so, and a test fails when CI=true and it is missing.
 */
import { spawnSync } from 'node:child_process';

export interface Promtool {
  available: boolean;
  /** The first line of `promtool --version`, or '' when absent. */
  version: string;
}

/** Looks promtool up on PATH once. */
export function findPromtool(): Promtool {
  const r = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  return r.error ? { available: false, version: '' } : { available: true, version: (r.stdout || r.stderr).split('\n')[0] ?? '' };
}

/** Runs promtool with `args`; its exit status and everything it printed. */
export function runPromtool(args: string[]): { status: number | null; output: string } {
  const r = spawnSync('promtool', args, { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** CI=true: a missing promtool is a failure, not a skip. */
export const IN_CI = process.env.CI === 'true';
