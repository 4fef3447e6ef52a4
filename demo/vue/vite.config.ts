// `vite build demo/vue` bundles the example from the package's build output (`npm run build`
// first); `vite demo/vue` serves it with the sample host backend mounted on /api.
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';
import { hitlPackage, hostBackendPlugin, vueOptions } from '../server.js';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  logLevel: 'warn',
  // vueOptions(): every tag of the package's custom-elements.json is a custom element to Vue.
  plugins: [hitlPackage(), vue(vueOptions()), hostBackendPlugin()],
  build: { target: 'es2022' },
});
