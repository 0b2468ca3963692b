/**
 * promtool (Debian's `prometheus` package), Prometheus's own checker, for the tests that use it:
 * the alert rules and the Grafana dashboard's queries (deploy/), and the second opinion on
 * every scrape of /metrics. Found through test/helpers/external-tools.ts: missing, a local run
 * skips what needs it (and says so at the end); with CI set the file fails.
 */
import { spawnSync } from 'node:child_process';
import { externalTool, type Located } from './external-tools.js';

/** promtool for the calling test file, which says in a few words what it `uses` it for. */
export function findPromtool(uses: string): Located {
  return externalTool('promtool', uses);
}

/** Runs promtool with `args` (and `input` on its standard input); its exit status and everything it printed. */
export function runPromtool(tool: Located, args: string[], input?: string): { status: number | null; output: string } {
  const r = spawnSync(tool.command, args, { encoding: 'utf8', ...(input !== undefined ? { input } : {}) });
  if (r.error) throw new Error(`${tool.command} ${args.join(' ')}: ${r.error.message}`);
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}
