import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The gateway serves the built console itself; in dev, Vite forwards every server path to it.
const backend = process.env.MODELGATE_DEV_BACKEND ?? 'http://localhost:3000';

export default defineConfig({
  plugins: [react()],
  // Enums, option keys and the quota and cost math come from the shared package's source (no build step).
  resolve: { alias: [{ find: /^@modelgate\/shared$/, replacement: fileURLToPath(new URL('../shared/src/index.ts', import.meta.url)) }] },
  server: {
    proxy: {
      '/api': { target: backend, changeOrigin: true },
      '/pg': { target: backend, changeOrigin: true },
      '/v1': { target: backend, changeOrigin: true },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // One vendor chunk plus one small chunk per screen: the server rate-limits web requests per IP
    // (GLOBAL_WEB_RATE_LIMIT, 60 per 3 min by default), so a page load must stay a handful of files.
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'vendor', test: /node_modules/ },
            { name: 'shared', test: /\/src\/(components|lib|features\/home)\// },
          ],
        },
      },
    },
    // The vendor chunk (React, antd, i18next, marked, DOMPurify) is ~1.3 MB before gzip by design.
    chunkSizeWarningLimit: 2000,
  },
});
