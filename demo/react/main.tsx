import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// Registers <human-input-form> before React renders it, so React sets `inputs` as a property.
import 'hitl-elements/human-input-form/define';
import { App } from './App.js';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
