import { css } from 'lit';
import { companionStyles } from '../shared/companion.styles.js';

export const styles = [
  ...companionStyles,
  css`
    @layer hitl {
      [part~='list'] {
        max-height: var(--hitl-list-max-height, 24rem);
        overflow: auto;
        border-radius: calc(var(--_radius) / 2);
      }
      [part~='option'] {
        display: flex;
        justify-content: space-between;
        gap: 0.5rem;
        padding: 0.5rem;
        border-radius: calc(var(--_radius) / 2);
        cursor: pointer;
      }
      [part~='option-active'] {
        outline: 1px dashed var(--_border-color);
        outline-offset: -3px;
      }
      [part~='list']:focus-visible [part~='option-active'] {
        outline: 2px solid var(--_accent);
      }
      [part~='option-selected'] {
        background: var(--_accent);
        color: var(--_accent-contrast);
      }
      /* Inside the chosen row, in the colour of its text: the accent would not show on the accent. */
      [part~='option-selected'],
      [part~='list']:focus-visible [part~='option-selected'] {
        outline-color: currentColor;
      }
      [part~='name'] {
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
      }
      [part~='time'] {
        flex: none;
        font-size: 0.85em;
        color: var(--_muted-color);
      }
      [part~='option-selected'] [part~='time'] {
        color: inherit;
      }
      [part~='name-input'] {
        width: 100%;
        box-sizing: border-box;
      }
    }
  `,
];
