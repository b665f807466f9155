import { defineConfig } from 'vite';

// The MCP App (ui://ripple/review): a second build of the same sources with
// its own entry (review.html → src/app-review/). It goes to .review-build/,
// then inline.mjs folds the one script and the one stylesheet into a single
// self-contained HTML document at internal/mcpserver/app/review.html, which
// is committed and embedded in the binary (a host loads it with no network).
//
// `--mode host` builds the test host page the same way (apphost.html →
// src/app-host/, inlined into e2e/apphost/testdata/host.html).
export default defineConfig(({ mode }) => ({
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: mode === 'host' ? '.apphost-build' : '.review-build',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    cssCodeSplit: false,
    assetsInlineLimit: Number.MAX_SAFE_INTEGER,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1000,
    rolldownOptions: {
      input: mode === 'host' ? 'apphost.html' : 'review.html',
      output: {
        codeSplitting: false,
        entryFileNames: 'assets/[name].js',
        chunkFileNames: 'assets/[name].js',
        assetFileNames: 'assets/[name][extname]',
      },
    },
  },
}));
