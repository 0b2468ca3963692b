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

/**
 * Migrated schemas that finished tests gave back, emptied, by server URL. Migrating a new schema
 * runs every migration's DDL, most of a PostgreSQL test's setup; a test that asks for any fresh
 * schema gets one of these instead, with every table empty and every identity restarted, which is
 * what a newly migrated one holds. A schema whose shape a test changed is dropped, not kept. The
 * spares are dropped after each file (test/setup/pg-schema-pool.ts).
 */
const SPARES = Symbol.for('herald.pgSpareSchemas');
const spares: Map<string, string[]> = ((globalThis as { [SPARES]?: Map<string, string[]> })[SPARES] ??= new Map());
/** The shape of a newly migrated schema, by server URL (see `shapeOf`). */
const migratedShape = new Map<string, string>();

/**
 * A digest of a schema's tables, columns, indexes, constraints, triggers and views, with its own
 * name taken out: equal for two schemas the same migrations made, different once a test altered one.
 */
async function shapeOf(c: pg.Client, schema: string): Promise<string> {
  const r = await c.query<{ shape: string }>(
    `SELECT md5(coalesce(string_agg(replace(x, $1, ''), '|' ORDER BY x), '')) AS shape FROM (
       SELECT 'c:' || table_name || '.' || column_name || ':' || data_type || ':' || is_nullable || ':' || coalesce(column_default, '') AS x
         FROM information_schema.columns WHERE table_schema = $1
       UNION ALL SELECT 'i:' || indexname || ':' || indexdef FROM pg_indexes WHERE schemaname = $1
       UNION ALL SELECT 'k:' || conrelid::regclass::text || ':' || conname || ':' || pg_get_constraintdef(k.oid)
         FROM pg_constraint k JOIN pg_namespace n ON n.oid = k.connamespace WHERE n.nspname = $1
       UNION ALL SELECT 't:' || tgrelid::regclass::text || ':' || tgname
         FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid JOIN pg_namespace n ON n.oid = r.relnamespace WHERE n.nspname = $1 AND NOT t.tgisinternal
       UNION ALL SELECT 'v:' || table_name || ':' || view_definition FROM information_schema.views WHERE table_schema = $1
     ) s`,
    [schema],
  );
  return r.rows[0]!.shape;
}

async function withClient<T>(url: string, run: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await run(c);
  } finally {
    await c.end();
  }
}

async function dropSchema(url: string, schema: string): Promise<void> {
  await withClient(url, (c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
}

/**
 * Empties a finished test's schema and keeps it for the next test, or drops it when its shape is
 * no longer the migrations' or emptying it fails (a connection still holding a lock, or a server
 * user that is not a superuser).
 */
async function giveBack(url: string, schema: string): Promise<void> {
  const kept = await withClient(url, async (c) => {
    if ((await shapeOf(c, schema)) !== migratedShape.get(url)) return false;
    // Emptied row by row with foreign-key triggers off (a superuser's session_replication_role):
    // on tables this small that is ~50 times quicker than TRUNCATE, which makes new files for
    // every table and index. Then every sequence starts over, as in a new schema.
    await c.query(`SET lock_timeout = '2s'`);
    await c.query(`SET session_replication_role = replica`);
    await c.query(
      `DO $$ DECLARE r record; BEGIN
         FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = '${schema}' AND tablename <> 'schema_migrations' LOOP
           EXECUTE format('DELETE FROM %I.%I', '${schema}', r.tablename);
         END LOOP;
         FOR r IN SELECT sequencename FROM pg_sequences WHERE schemaname = '${schema}' LOOP
           EXECUTE format('ALTER SEQUENCE %I.%I RESTART', '${schema}', r.sequencename);
         END LOOP;
       END $$`,
    );
    return true;
  }).catch(() => false);
  if (kept) spares.set(url, [...(spares.get(url) ?? []), schema]);
  else await dropSchema(url, schema);
}

/** Drops the schemas kept for reuse (after each test file). */
export async function dropSpareSchemas(): Promise<void> {
  for (const [url, schemas] of spares) {
    spares.delete(url);
    for (const schema of schemas) await dropSchema(url, schema);
  }
}

/**
 * Opens a store on a fresh schema (migrated), plus a way to drop it. Without a name, on the suite's
 * server, the schema may be one an earlier test of the file gave back, emptied (see `spares`);
 * `drop()` gives it back.
 * A named schema is the caller's: it is made and dropped as asked.
 */
export async function openTestPostgresStore(
  schema?: string,
  contentCipher: ContentCipher | null = null,
  url: string = pgUrl(),
): Promise<{ store: PostgresStore; schema: string; drop(): Promise<void> }> {
  // Only the suite's own server keeps spares: a test's own server (a harness's pgConnectionString)
  // may be stopped before the file ends, when its spares could no longer be dropped.
  const pooled = schema === undefined && url === pgUrl();
  const name = schema ?? spares.get(url)?.pop() ?? freshSchema();
  const store = openPostgresStore({ connectionString: url, schema: name, maxConnections: 4, contentCipher });
  const applied = await store.migrate();
  if (pooled && applied.length > 0 && !migratedShape.has(url)) migratedShape.set(url, await withClient(url, (c) => shapeOf(c, name)));
  return {
    store,
    schema: name,
    drop: () => (pooled ? giveBack(url, name) : dropSchema(url, name)),
  };
}
