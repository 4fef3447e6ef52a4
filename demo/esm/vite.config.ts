// `vite build demo/esm` bundles the example from the package's build output (`npm run build`
// first); `vite demo/esm` serves it with the sample host backend mounted on /api.
import { defineConfig } from 'vite';
import { hitlPackage, hostBackendPlugin } from '../server.js';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  logLevel: 'warn',
  plugins: [hitlPackage(), hostBackendPlugin()],
  build: { target: 'es2022' },
});
