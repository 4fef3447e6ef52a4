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
        /* A <progress> is 10em wide by itself; 3rem lets the player fit a 300 px column in every
           engine (Firefox sets "0:00 / 0:00" about 5 px wider than Chromium). */
        width: 3rem;
        min-width: 3rem;
        accent-color: var(--_accent);
      }
      [part~='time'] {
        color: var(--_muted-color);
        font-variant-numeric: tabular-nums;
        white-space: nowrap;
      }
    }
  `,
];
