import { css } from 'lit';
import { companionStyles } from '../shared/companion.styles.js';

export const styles = [
  ...companionStyles,
  css`
    @layer hitl {
      [part~='variable'] {
        padding: 0.5rem 0;
        border-top: 1px solid var(--_border-color);
      }
      [part~='name'] {
        font-weight: 600;
      }
      [part~='type'],
      [part~='description'] {
        color: var(--_muted-color);
        font-size: 0.85em;
        margin: 0.25rem 0 0;
      }
      [part~='editor'] {
        flex: 1;
        min-width: 10rem;
        font-family: ui-monospace, monospace;
      }
      [part~='editor'][type='checkbox'] {
        flex: none;
        min-width: 0;
      }
      [data-readonly] {
        margin: 0;
        padding-left: 1.2rem;
      }
      [aria-invalid='true'] {
        border-color: var(--_error-color);
      }
    }
  `,
];
