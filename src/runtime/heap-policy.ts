/**
 * How far V8 lets the old generation grow past its live data before the next full collection,
 * for the long-running processes (`herald start`, `api`, `worker`).
 *
 * Measured (docs/benchmarks.md, "Memory: where the peak RSS goes"): a worker keeps ~28 MB of
 * live heap (most of it loaded code and its source text) and an API ~38 MB, but during a
 * campaign each promotes ~3 MB/s of short-lived rows and requests that survive two scavenges.
 * On a machine with this much RAM V8 picks a growing factor of up to 4, so the first full GC
 * of the run came at ~140 MB of old space, ~75 % of it garbage: that, not live data, was the
 * 240–264 MB peak RSS. A fixed factor of 1.5 caps the old space near 1.5 × live (+ one step),
 * at the price of more full collections (2–3 → 5–10 per process in a 40,000-recipient run),
 * each mostly concurrent marking of ~30 MB; the processes' CPU per campaign did not move.
 */
import { setFlagsFromString } from 'node:v8';

/** Old-generation growth after a full GC, percent of the live size: V8's factor is 1 + this / 100. */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Sets V8's heap growing factor for this process, unless the operator started Node with one
 * (`node --heap-growing-percent=N bin/herald.js worker`; 0 gives V8 its own dynamic factor
 * back; Node refuses the flag in NODE_OPTIONS); returns the flag applied, or null when left
 * alone. V8 reads the flag each time it recomputes the limit (after every full GC), so setting
 * it after start-up applies from the next collection on.
 */
export function applyHeapPolicy(execArgv: readonly string[] = process.execArgv): string | null {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent/.test(a))) return null;
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  setFlagsFromString(flag);
  return flag;
}
