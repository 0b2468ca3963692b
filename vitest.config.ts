import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real HTTP servers and SQLite files; 2 cores here.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
