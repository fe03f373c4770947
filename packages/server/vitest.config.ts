import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const workspaceSource = (name: string) => fileURLToPath(new URL(`../${name}/src/index.ts`, import.meta.url));

export default defineConfig({
  // The workspace packages run from source. An alias rather than the `source` export condition:
  // Vitest hands SSR conditions to Node for external deps too, and some (eventsource-parser, used
  // by the `ai` SDK) publish a `source` export pointing at .ts files Node cannot load.
  resolve: {
    alias: [
      { find: /^@modelgate\/shared$/, replacement: workspaceSource('shared') },
      { find: /^@modelgate\/shared\/api$/, replacement: fileURLToPath(new URL('../shared/src/api/index.ts', import.meta.url)) },
      { find: /^@modelgate\/testkit$/, replacement: workspaceSource('testkit') },
    ],
  },
  test: {
    name: 'server',
    environment: 'node',
    include: ['src/**/*.test.ts'],
    // The agents tier runs real CLI clients: only through vitest.agents.config.ts (`npm run test:agents`).
    exclude: [...configDefaults.exclude, 'src/**/*.agents.test.ts'],
    // Provider folders register themselves (relay/adapters/registry.ts loadProviders) before each test file.
    setupFiles: ['src/test-support/load-providers.setup.ts'],
    testTimeout: 30000,
    hookTimeout: 60000,
  },
});
