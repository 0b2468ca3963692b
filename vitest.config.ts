import { defineConfig } from 'vitest/config';

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

export default defineConfig({
  test: {
    // PostgreSQL for the driver tests: DATABASE_URL, or an embedded server started here; and
    // the external programs (promtool, Chromium), looked for once (test/helpers/external-tools.ts).
    globalSetup: ['test/setup/postgres.ts', 'test/setup/external-tools.ts'],
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
