// `vite build demo/react` bundles the example from the package's build output (`npm run build`
// first); `vite demo/react` serves it with the sample host backend mounted on /api.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { hitlPackage, hostBackendPlugin } from '../server.js';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  logLevel: 'warn',
  plugins: [hitlPackage(), react(), hostBackendPlugin()],
  build: { target: 'es2022' },
});
