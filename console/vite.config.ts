import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const page = (name: string) => fileURLToPath(new URL(`./${name}.html`, import.meta.url));

// Served by Meridian from dist/console: the console at /console/ (src/platform/console.ts), the
// catalog at / (src/platform/landing.ts) and the map viewer at /maps/{id}/viewer
// (src/maps/serve/viewer-routes.ts). Assets are under /console/assets/ whatever page loads them.
export default defineConfig({
  base: '/console/',
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    // MapLibre alone is over Vite's default warning size; it is one cached, hashed file.
    chunkSizeWarningLimit: 1500,
    rollupOptions: { input: { index: page('index'), catalog: page('catalog'), viewer: page('viewer') } },
  },
});
