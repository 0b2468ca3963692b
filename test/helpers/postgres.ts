/** One fresh schema per test on the suite's PostgreSQL (see test/setup/postgres.ts). */
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { ContentCipher } from '../../src/store/content-cipher.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';

export const pgUrl = (): string => inject('pgUrl');

/** A new unique schema name. */
export function freshSchema(): string {
  return `herald_t_${randomBytes(6).toString('hex')}`;
}

/** Opens a store on a fresh schema (migrated), plus a way to drop it. */
export async function openTestPostgresStore(
  schema = freshSchema(),
  contentCipher: ContentCipher | null = null,
  url: string = pgUrl(),
): Promise<{ store: PostgresStore; schema: string; drop(): Promise<void> }> {
  const store = openPostgresStore({ connectionString: url, schema, maxConnections: 4, contentCipher });
  await store.migrate();
  return {
    store,
    schema,
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}
