/**
 * Setup file of every test file: drops the PostgreSQL schemas its tests gave back for reuse
 * (test/helpers/postgres.ts), so none outlives the file on a shared server (DATABASE_URL). The
 * helper, and with it the PostgreSQL driver, is loaded only by a file that kept one.
 */
import { afterAll } from 'vitest';

const SPARES = Symbol.for('herald.pgSpareSchemas');

afterAll(async () => {
  const spares = (globalThis as { [SPARES]?: Map<string, string[]> })[SPARES];
  if (!spares || spares.size === 0) return;
  const { dropSpareSchemas } = await import('../helpers/postgres.js');
  await dropSpareSchemas();
});
