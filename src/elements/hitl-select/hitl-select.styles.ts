import { css } from 'lit';
import { controlStyles } from '../shared/styles.js';

export const styles = [
  controlStyles,
  css`
    @layer hitl {
      select {
        max-width: 100%;
      }
    }
  `,
];
