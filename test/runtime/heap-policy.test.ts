/**
 * The long-running processes' heap policy (src/runtime/heap-policy.ts): an operator's own
 * --heap-growing-percent is left alone, and with the policy a process whose short-lived objects
 * are promoted keeps its old space near 1.5 × its live data instead of letting it grow to
 * several times that. The second test runs in a child process (a V8 flag is process-wide)
 * and counts bytes, never time: a fixed number of rounds, each promoting one batch.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { applyHeapPolicy } from '../../src/runtime/heap-policy.js';

const run = promisify(execFile);
const POLICY = fileURLToPath(new URL('../../src/runtime/heap-policy.ts', import.meta.url));

/**
 * In a child: ~24 MB of live objects, then 300 rounds that each keep 2,000 small objects for the
 * next 40 rounds (long enough to survive two scavenges and be promoted, then garbage). Prints
 * the largest old space seen and the live heap after a full GC.
 */
const CHILD = `
import v8 from 'node:v8';
const { applyHeapPolicy } = await import(process.env.POLICY);
if (process.env.APPLY === '1') applyHeapPolicy([]);
const live = Array.from({ length: 250_000 }, (_, i) => ({ i, s: 'live-' + i }));
const old = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size;
let peak = 0;
const queue = [];
for (let round = 0; round < 300; round++) {
  queue.push(Array.from({ length: 2_000 }, (_, i) => ({ round, i, s: 'batch-' + round + '-' + i })));
  if (queue.length > 40) queue.shift();
  peak = Math.max(peak, old());
  await new Promise((r) => setImmediate(r));
}
queue.length = 0;
globalThis.gc();
console.log(JSON.stringify({ peak, live: v8.getHeapStatistics().used_heap_size, kept: live.length }));
`;

async function churn(apply: boolean): Promise<{ peak: number; live: number }> {
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', CHILD], {
    env: { ...process.env, POLICY, APPLY: apply ? '1' : '0', NODE_OPTIONS: '' },
  });
  return JSON.parse(stdout) as { peak: number; live: number };
}

describe('heap policy', () => {
  it('leaves a growing factor the operator gave Node on the command line (Node refuses it in NODE_OPTIONS)', () => {
    expect(applyHeapPolicy(['--max-old-space-size=512', '--heap-growing-percent=0'])).toBeNull();
    expect(applyHeapPolicy(['--heap_growing_percent=20'])).toBeNull();
  });

  it('keeps the old space within ~1.5 × the live heap where V8 alone lets promoted garbage pile up', async () => {
    const [without, withPolicy] = await Promise.all([churn(false), churn(true)]);
    // The live heap is the same either way (~24 MB kept, plus the module graph).
    expect(Math.abs(withPolicy.live - without.live)).toBeLessThan(4 * 2 ** 20);
    // With the policy: at most 1.5 × live plus V8's minimum step and a young generation's worth.
    expect(withPolicy.peak).toBeLessThan(withPolicy.live * 1.5 + 48 * 2 ** 20);
    // And the policy is what made the difference: V8's own factor (up to 4 on a machine with this much RAM) lets it grow further.
    expect(without.peak).toBeGreaterThan(withPolicy.peak * 1.3);
  }, 120_000);
});
