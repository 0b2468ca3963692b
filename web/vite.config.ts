// The dashboard's build: a Preact app compiled by Vite into dist/web, which Herald serves at
// /dashboard (src/http). No @preact/preset-vite: Vite 8 transforms JSX with oxc, told here to
// use Preact's automatic runtime; nothing else is needed for a production build.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/dashboard/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // The CSP allows scripts and styles from 'self' only: no inline module preload polyfill.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
  // `vite --config web/vite.config.ts` for development: /v1 goes to a running Herald.
  server: { proxy: { '/v1': process.env.HERALD_URL ?? 'http://127.0.0.1:8080' } },
});
