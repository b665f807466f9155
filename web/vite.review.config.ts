import { defineConfig } from 'vite';

// The MCP App (ui://ripple/review): a second build of the same sources with
// its own entry (review.html → src/app-review/). It goes to .review-build/,
// then inline.mjs folds the one script and the one stylesheet into a single
// self-contained HTML document at internal/mcpserver/app/review.html, which
// is committed and embedded in the binary (a host loads it with no network).
export default defineConfig({
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '.review-build',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    cssCodeSplit: false,
    assetsInlineLimit: Number.MAX_SAFE_INTEGER,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1000,
    rolldownOptions: {
      input: 'review.html',
      output: {
        codeSplitting: false,
        entryFileNames: 'assets/[name].js',
        chunkFileNames: 'assets/[name].js',
        assetFileNames: 'assets/[name][extname]',
      },
    },
  },
});
