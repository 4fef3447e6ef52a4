import { css } from 'lit';
import { baseStyles } from '../shared/styles.js';

export const styles = [
  baseStyles,
  css`
    @layer hitl {
      h2 {
        font-size: 1.1em;
        margin: 0 0 0.5rem;
      }
      fieldset {
        border: 0;
        margin: 0;
        padding: 0;
        min-width: 0;
      }
      [part~='filled'] {
        border-bottom: 1px solid var(--_border-color);
      }
      [part~='actions'] {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        margin-top: 1rem;
      }
      [part~='action-primary'] {
        background: var(--_accent);
        border-color: var(--_accent);
        color: var(--_accent-contrast);
      }
      [part~='action-accent'] {
        border-color: var(--_accent);
        /* On a dark Canvas the accent is lightened so its text stays readable. */
        color: light-dark(var(--_accent), color-mix(in srgb, var(--_accent), CanvasText));
      }
      [part~='action-ghost'] {
        border-color: transparent;
        background: none;
        color: inherit;
      }
      [part~='countdown'] {
        color: var(--_muted-color);
      }
    }
  `,
];
