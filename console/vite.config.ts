import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The web console `loci serve` answers at `/`: built into dist/console, every asset bundled
// (nothing from a CDN), so it works offline.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: 'public',
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
    modulePreload: { polyfill: false },
  },
  // `npm run console:dev`: the page from Vite with hot reload, the API from a running
  // `loci serve --allowed-host localhost:5173` (LOCI_URL, default http://127.0.0.1:7411).
  server: {
    port: 5173,
    strictPort: true,
    proxy: Object.fromEntries(['/v1', '/health', '/openapi.json'].map((path) => [path, { target: process.env.LOCI_URL ?? 'http://127.0.0.1:7411', changeOrigin: true }])),
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: { alias: { react: 'preact/compat' } },
});
