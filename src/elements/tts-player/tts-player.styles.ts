import { css } from 'lit';
import { companionStyles } from '../shared/companion.styles.js';

export const styles = [
  ...companionStyles,
  css`
    @layer hitl {
      [part~='row'] {
        margin: 0;
        flex-wrap: nowrap;
      }
      [part~='progress'] {
        flex: 1;
        /* A <progress> is 10em wide by itself; 4rem lets the player fit a phone-width column. */
        width: 4rem;
        min-width: 4rem;
        accent-color: var(--_a);
      }
      [part~='time'] {
        color: var(--_m);
        font-variant-numeric: tabular-nums;
        white-space: nowrap;
      }
    }
  `,
];
