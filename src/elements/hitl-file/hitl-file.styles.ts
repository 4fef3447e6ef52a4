import { css } from 'lit';
import { controlStyles } from '../shared/styles.js';

export const styles = [
  controlStyles,
  css`
    @layer hitl {
      ul {
        list-style: none;
        margin: 0;
        padding: 0;
      }
      li,
      [part~='url'],
      [part~='dropzone'] {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.5rem;
        margin: 0.25rem 0;
      }
      [part~='dropzone'] {
        border: 1px dashed var(--_border-color);
        border-radius: var(--_radius);
        padding: 0.75rem;
      }
      :host(:state(dragging)) [part~='dropzone'] {
        border-color: var(--_accent);
      }
      [part~='file-size'],
      [part~='hint'] {
        color: var(--_muted-color);
      }
    }
  `,
];
