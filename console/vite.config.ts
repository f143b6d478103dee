import { defineConfig } from 'vite';

// Served by Meridian at /console/ from dist/console (src/platform/console.ts).
export default defineConfig({
  base: '/console/',
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    // MapLibre alone is over Vite's default warning size; it is one cached, hashed file.
    chunkSizeWarningLimit: 1500,
  },
});
