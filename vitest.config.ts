import { accessSync, constants, statfsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that start whole processes (the CLI, `herald start` under Chromium, the chaos run with
 * its SIGKILLed workers), drive a real Prometheus, or count provider calls per real second
 * (the shared rate limiter): they run one at a time, after the rest, so they never compete with
 * other files for the two cores.
 */
const SERIAL = [
  'test/cli/**/*.test.ts',
  'test/chaos/**/*.test.ts',
  'test/e2e/**/*.test.ts',
  'test/deploy/alert-rules-live.test.ts',
  'test/delivery/rate-limit.test.ts',
];

/**
 * How many files run at once in the parallel group. Most files wait (on HTTP servers, SQLite
 * fsyncs, PostgreSQL, timers) far more than they compute, so more files than cores fit; vitest's
 * default (cores − 1) ran this suite one file at a time on a 2-core machine.
 * `VITEST_MAX_WORKERS` overrides it (for example 1 on a busy machine).
 */
const PARALLEL_WORKERS = Number(process.env.VITEST_MAX_WORKERS ?? 3);

/**
 * The tests' temporary files (each harness's SQLite database, the embedded PostgreSQL's data
 * directory, Chromium's profile) on a RAM file system when the machine has one with room: a
 * SQLite commit there costs no disk flush, and the suite commits many thousands of times (each new
 * database alone runs every migration in its own transaction). The tests check what is written,
 * never how durably. A TMPDIR the caller set is kept.
 */
function ramTmpdir(): string | undefined {
  const dir = '/dev/shm';
  try {
    accessSync(dir, constants.W_OK);
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize >= 4 * 2 ** 30 ? dir : undefined;
  } catch {
    return undefined;
  }
}
if (process.env.TMPDIR === undefined) {
  const dir = ramTmpdir();
  if (dir) process.env.TMPDIR = dir;
}

/**
 * The parallel group's longest files, longest first (measured: `npx vitest run --reporter=json`,
 * each file's endTime − startTime). Vitest orders files by its results cache, and a clean
 * clone (CI) has none: it then starts the largest files first, by bytes, so short files of many
 * lines went first and these, small files that run whole conformance suites or thousands of
 * requests, started last and ran on alone while the other workers sat idle. Started first, they
 * overlap the rest. A file missing here only runs in vitest's own order.
 */
const LONGEST_FIRST = [
  // 165 s in CI (10,000 real sandbox sends per driver); it ran late and alone before it was listed.
  'test/campaigns/campaign-waves.test.ts',
  'test/store/postgres.test.ts',
  'test/fuzz/boundary.test.ts',
  'test/campaigns/campaign-plan-api.test.ts',
  'test/webhooks/webhook-api.test.ts',
  'test/delivery/counters.test.ts',
  'test/store/sqlite.test.ts',
  'test/observability/alerter.test.ts',
  'test/delivery/staged-rollout.test.ts',
  'test/providers/smtp/smtp-delivery.e2e.test.ts',
  'test/devices/gateway-flow.test.ts',
  'test/deploy/alert-rules-scenarios.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.findIndex((name) => f.moduleId.endsWith(name));
      return i === -1 ? LONGEST_FIRST.length : i;
    };
    // Stable: within a group, the listed files first in their order, then vitest's own order.
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => a.f.project.config.sequence.groupOrder - b.f.project.config.sequence.groupOrder || rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}

export default defineConfig({
  // The workspace's client from its TypeScript source: its package.json points plain Node at
  // dist/, which only `npm pack` (prepack) builds.
  resolve: { alias: { '@herald/client': fileURLToPath(new URL('packages/client/src/index.ts', import.meta.url)) } },
  test: {
    sequence: { sequencer: LongestFirst },
    // PostgreSQL for the driver tests: DATABASE_URL, or an embedded server started here; and
    // the external programs (promtool, Chromium), looked for once (test/helpers/external-tools.ts).
    globalSetup: ['test/setup/postgres.ts', 'test/setup/external-tools.ts'],
    // Drops the emptied PostgreSQL schemas a file's tests kept for reuse (test/helpers/postgres.ts).
    setupFiles: ['test/setup/pg-schema-pool.ts'],
    // After the summary, one block naming what was skipped for a missing program, and how to install it.
    reporters: ['default', './test/setup/external-tools-reporter.ts'],
    // Integration tests start real HTTP servers, SQLite files and processes.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['test/**/*.test.ts'],
          exclude: SERIAL,
          maxWorkers: PARALLEL_WORKERS,
          // A worker imports Herald's modules once for all the files it runs, not once per file:
          // importing them was most of a short file's time (test/http: 193 CPU-s isolated, 106
          // CPU-s shared, same files). The price is that module state must not carry one file's
          // past into the next: ids take their time from the clock they are given (src/ids.ts
          // ulidMaker), and a test that changes process.env or timers puts them back.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'serial',
          include: SERIAL,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
