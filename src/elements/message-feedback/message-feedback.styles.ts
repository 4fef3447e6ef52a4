import { css } from 'lit';
import { companionStyles } from '../shared/companion.styles.js';

export const styles = [
  ...companionStyles,
  css`
    @layer hitl {
      [part~='container'] {
        border: 0;
        padding: 0;
      }
      [part~='row'] {
        margin: 0;
      }
      [part~='dislike'] svg {
        transform: rotate(180deg);
      }
      [part~='comment-form'] {
        margin-top: 0.5rem;
      }
    }
  `,
];
