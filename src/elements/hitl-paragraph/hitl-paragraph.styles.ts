import { css } from 'lit';
import { controlStyles } from '../shared/styles.js';

export const styles = [
  controlStyles,
  css`
    @layer hitl {
      textarea {
        display: block;
        width: 100%;
        min-height: 4.5em;
        max-height: 20em;
        resize: vertical;
      }
    }
  `,
];
