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
      // The browser's Host is passed on (no changeOrigin): the gateway refuses a cookie-authenticated
      // write whose Origin is not the host it was sent to (server http/csrf.ts).
      '/api': { target: backend },
      '/pg': { target: backend },
      '/v1': { target: backend, changeOrigin: true },
    },
  },
  // One chunk per screen (src/app/router.tsx) plus vendor chunks split so that a page fetches only
  // the libraries it renders: the sign-in page stays under its budget (docs/performance.md#console-bundle,
  // checked by scripts/bundle-report.mjs after every build). Hashed assets are served with a week's
  // cache and are not counted by the web rate limit (only the HTML fallback is).
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // scripts/bundle-report.mjs reads it to print what each route loads.
    manifest: true,
    rolldownOptions: {
      // The shared package's modules only declare things, but some build tables with calls at load
      // time (the option registry): without this, importing one helper from its index kept them all.
      treeshake: { moduleSideEffects: (id) => (/[\\/]packages[\\/]shared[\\/]src[\\/]/.test(id) ? false : undefined) },
      output: {
        // entriesAware names a chunk after every screen sharing it (lib~index~index~…): keep it short.
        chunkFileNames: (chunk) => (chunk.name.startsWith('lib~') ? 'assets/lib-[hash].js' : 'assets/[name]-[hash].js'),
        codeSplitting: {
          groups: [
            // React, its DOM renderer and the router change least often: their own long-cached chunk.
            { name: 'react', test: /[\\/]node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/, priority: 3 },
            // Libraries the shell itself needs (antd's layout and form parts, i18next, react-query):
            // every page loads them, so one file.
            { name: 'vendor', test: /[\\/]node_modules[\\/]/, tags: ['$initial'], priority: 2 },
            // The rest of antd and the other libraries only screens use, split by which screens
            // import them, so a screen fetches what it renders and the sign-in screens stay light.
            { name: 'lib', test: /[\\/]node_modules[\\/]/, entriesAware: true, priority: 1 },
          ],
        },
      },
    },
  },
});
