import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

const shared = (file: string) => fileURLToPath(new URL(`../shared/src/${file}`, import.meta.url));

export default defineConfig({
  plugins: [react()],
  // The shared package runs from source in tests (the build and type check use its dist).
  resolve: {
    alias: [
      { find: /^@modelgate\/shared$/, replacement: shared('index.ts') },
      { find: /^@modelgate\/shared\/api$/, replacement: shared('api/index.ts') },
    ],
  },
  test: {
    name: 'web',
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/test/setup.ts'],
    testTimeout: 45000,
  },
});
