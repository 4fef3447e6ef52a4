import { css } from 'lit';
import { baseStyles } from '../shared/styles.js';

export const styles = [
  baseStyles,
  css`
    @layer hitl {
      [part~='container'] {
        font: var(--hitl-font, inherit);
        color: var(--hitl-color, inherit);
        border: 1px solid var(--_b);
        border-radius: var(--_r);
        padding: var(--hitl-padding, 1rem);
        background: var(--hitl-background, none);
      }
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
        border-bottom: 1px solid var(--_b);
      }
      [part~='actions'] {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        margin-top: 1rem;
      }
      [part~='action-primary'] {
        background: var(--_a);
        border-color: var(--_a);
        color: var(--hitl-accent-contrast, #fff);
      }
      [part~='action-accent'] {
        border-color: var(--_a);
        /* On a dark Canvas the accent is lightened so its text stays readable. */
        color: light-dark(var(--_a), color-mix(in srgb, var(--_a), CanvasText));
      }
      [part~='action-ghost'] {
        border-color: transparent;
        background: none;
        color: inherit;
      }
      [part~='status'],
      [part~='countdown'] {
        color: var(--_m);
      }
    }
  `,
];
