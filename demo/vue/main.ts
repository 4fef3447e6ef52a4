import { createApp } from 'vue';
// Registers <human-input-form>; vite.config.ts tells Vue's compiler the tag is a custom element.
import 'hitl-elements/human-input-form/define';
import App from './App.vue';

createApp(App).mount('#app');
