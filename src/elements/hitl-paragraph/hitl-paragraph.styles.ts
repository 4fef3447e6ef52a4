import { css } from 'lit';
import { controlStyles } from '../shared/styles.js';

export const styles = [
  controlStyles,
  css`
    @layer hitl {
      /* Grows with its text by CSS where the engine can (measuring it in script forced a layout per
         input, per update); elsewhere the element measures it when its text changes. */
      textarea {
        field-sizing: content;
        display: block;
        width: 100%;
        min-height: 4.5em;
        max-height: 20em;
        resize: vertical;
      }
    }
  `,
];
