import { css } from 'lit';
import { baseStyles } from './styles.js';

/** What the companions add to the shared rules: the box, the accent of chosen buttons, lists, rows, the status line. */
export const companionStyles = [
  baseStyles,
  css`
    @layer hitl {
      :host {
        font: var(--hitl-font, inherit);
        color: var(--hitl-color, inherit);
      }
      [part~='container'] {
        --_c: var(--hitl-accent-contrast, var(--hitl-site-contrast, #fff));
        border: 1px solid var(--_b);
        border-radius: var(--_r);
        padding: var(--hitl-padding, 1rem);
        background: var(--hitl-background, transparent);
      }
      textarea {
        width: 100%;
      }
      [part~='list'] {
        list-style: none;
        margin: 0.5rem 0;
        padding: 0;
      }
      [aria-pressed='true'],
      [data-primary] {
        background: var(--_a);
        border-color: var(--_a);
        color: var(--_c);
      }
      [data-inverted] :is([aria-pressed='true'], [data-primary]) {
        background: var(--hitl-background, #fff);
        color: var(--_a);
      }
      [part~='status'] {
        margin: 0.5rem 0 0;
        color: var(--_m);
      }
      [part~='status']:empty {
        margin: 0;
      }
      [part~='field-error'] {
        color: var(--_e);
      }
      [part~='row'] {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        align-items: center;
        margin-top: 0.5rem;
      }
      svg {
        width: 1.2em;
        height: 1.2em;
        vertical-align: -0.2em;
        fill: currentColor;
      }
    }
  `,
];
