import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // PostgreSQL for the driver tests: DATABASE_URL, or an embedded server started here.
    globalSetup: ['test/setup/postgres.ts'],
    // Integration tests start real HTTP servers, SQLite files and processes; 2 cores here.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
