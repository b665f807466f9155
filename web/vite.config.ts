import { defineConfig } from 'vite';

// The build goes into internal/web/dist, which is committed and embedded in
// the Go binary. Names carry no hashes (the Go server sends ETags) so a
// rebuild of the same sources gives byte-identical files, which CI checks.
export default defineConfig({
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../internal/web/dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      output: {
        entryFileNames: 'assets/[name].js',
        chunkFileNames: 'assets/[name].js',
        assetFileNames: 'assets/[name][extname]',
      },
    },
  },
  server: {
    // `npm exec vite` for UI work against a running `ripple serve`.
    proxy: { '/api': 'http://127.0.0.1:8000' },
  },
});
