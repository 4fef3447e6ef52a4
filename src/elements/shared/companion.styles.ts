import { css } from 'lit';
import { baseStyles } from './styles.js';

/** What the companions add to the shared rules: the accent of chosen buttons, lists, rows, the status line's spacing. */
export const companionStyles = [
  baseStyles,
  css`
    @layer hitl {
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
        background: var(--_accent);
        border-color: var(--_accent);
        color: var(--_accent-contrast);
      }
      [data-inverted] :is([aria-pressed='true'], [data-primary]) {
        background: var(--hitl-background, #fff);
        color: var(--_accent);
      }
      [part~='status'] {
        margin: 0.5rem 0 0;
      }
      [part~='status']:empty {
        margin: 0;
      }
      [part~='field-error'] {
        color: var(--_error-color);
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
