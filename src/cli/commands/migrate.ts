/** `herald migrate`: applies pending schema migrations and says which. */
import { mkdirSync } from 'node:fs';
import { connectStore, describeDatabase } from '../../runtime/node.js';
import { CONFIG_FLAGS, parseFlags } from '../args.js';
import { loadConfig } from '../load-config.js';

export const MIGRATE_HELP = `Usage: herald migrate [--config herald.json] [--data-dir ./herald-data]

Applies pending numbered migrations to the database and lists them: the SQLite file in the
data directory, or PostgreSQL when DATABASE_URL is set. Safe to run while other Herald
processes start: migrations take the database's write lock (SQLite) or an advisory lock
(PostgreSQL).
`;

export async function migrateCommand(argv: string[]): Promise<number> {
  const flags = parseFlags(argv, CONFIG_FLAGS);
  if (flags.help) {
    process.stdout.write(MIGRATE_HELP);
    return 0;
  }
  const config = loadConfig(flags.config, flags['data-dir'] ? { dataDir: flags['data-dir'] } : {});
  mkdirSync(config.data_dir, { recursive: true });
  // Not openStore(): it migrates on open, so the migrate() below would always report nothing applied.
  const store = connectStore(config);
  const pending = await store.migrate();
  await store.close();
  process.stdout.write(`Database ${describeDatabase(config)} is up to date${pending.length ? ` (applied ${pending.join(', ')})` : ''}.\n`);
  return 0;
}
