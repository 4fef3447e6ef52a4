/**
 * The script-tag bundle: every element and its dependencies in one minified IIFE that registers
 * the tags when loaded. The ESM package itself is emitted by `tsc -p tsconfig.build.json`.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    minify: true,
    sourcemap: true,
    reportCompressedSize: false,
    lib: {
      entry: 'src/elements/define-all.ts',
      formats: ['iife'],
      name: 'HitlElements',
      fileName: () => 'hitl-elements.js',
    },
  },
});
