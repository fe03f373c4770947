import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*/vitest.config.ts'],
    // Test files run in parallel, each with its own servers and database pools; on a large machine
    // Vitest's default (one worker per core) multiplied them past a shared PostgreSQL's
    // max_connections. At most 4 workers × up to 3 servers per file × TEST_POOL_SIZE (4,
    // packages/server/src/test-support/test-db.ts) stays well under 60 connections.
    // Two at least: most files wait on sockets and databases (servers, fakes, PostgreSQL, MySQL), so
    // a second worker nearly halves a 2-core machine's run (one worker took ~30 of CI's minutes).
    maxWorkers: Math.min(4, Math.max(2, availableParallelism())),
  },
});
