import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const workspaceSource = (name: string) => fileURLToPath(new URL(`../${name}/src/index.ts`, import.meta.url));

/**
 * The `agents` tier (src/agents/*.agents.test.ts): real Claude Code and Codex CLI against ModelGate.
 * Run by `npm run test:agents` (scripts/test-agents.mjs installs the pinned clients first); the normal
 * server project (vitest.config.ts) excludes these files. Files run one at a time: each starts its own
 * server and its scenarios run in order, every client run bounded by clients.ts RUN_TIMEOUT_MS.
 */
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@modelgate\/shared$/, replacement: workspaceSource('shared') },
      { find: /^@modelgate\/shared\/api$/, replacement: fileURLToPath(new URL('../shared/src/api/index.ts', import.meta.url)) },
      { find: /^@modelgate\/testkit$/, replacement: workspaceSource('testkit') },
    ],
  },
  test: {
    name: 'agents',
    environment: 'node',
    include: ['src/agents/**/*.agents.test.ts'],
    fileParallelism: false,
    testTimeout: 150_000,
    hookTimeout: 60_000,
  },
});
