import { defineConfig } from 'vitest/config';
import server from './vitest.config.ts';

/**
 * The `agents` tier (src/agents/*.agents.test.ts): real Claude Code and Codex CLI against ModelGate.
 * Run by `npm run test:agents` (scripts/test-agents.mjs installs the pinned clients first); the normal
 * server project (vitest.config.ts) excludes these files. Files run one at a time: each starts its own
 * server and its scenarios run in order, every client run bounded by clients.ts RUN_TIMEOUT_MS.
 */
export default defineConfig({
  // The workspace packages from source, as in the server project.
  resolve: server.resolve,
  test: {
    name: 'agents',
    environment: 'node',
    include: ['src/agents/**/*.agents.test.ts'],
    fileParallelism: false,
    testTimeout: 150_000,
    hookTimeout: 60_000,
  },
});
