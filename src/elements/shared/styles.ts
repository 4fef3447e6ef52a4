import { css } from 'lit';

/**
 * Rules every element shares (one stylesheet, adopted by each shadow root), in `@layer hitl` so
 * the host page's own CSS wins over ours. The `--hitl-*` custom properties theme them all.
 */
export const baseStyles = css`
  @layer hitl {
    :host,
    [part~='container'] {
      --_a: var(--hitl-accent, var(--hitl-site-accent, #1c64f2));
      --_b: var(--hitl-border-color, #d0d5dd);
      --_r: var(--hitl-radius, 8px);
      /* Readable on light and dark pages: the error colour follows color-scheme, muted text is
         the surrounding text colour, faded. */
      --_e: var(--hitl-error-color, light-dark(#b42318, #fda29b));
      --_m: var(--hitl-muted-color, color-mix(in srgb, currentColor 72%, transparent));
    }
    :host {
      display: block;
    }
    :host([hidden]) {
      display: none;
    }
    /* Every control sets both its background and its text colour (never one of them inherited
       from the page), from system colours that follow the page's color-scheme. */
    button,
    input,
    select,
    textarea {
      font: inherit;
      color: var(--hitl-input-color, CanvasText);
      padding: 0.4rem 0.8rem;
      border: 1px solid var(--_b);
      border-radius: calc(var(--_r) / 2);
      background: var(--hitl-input-background, Canvas);
      box-sizing: border-box;
    }
    button {
      color: var(--hitl-button-color, CanvasText);
      background: var(--hitl-button-background, Canvas);
      cursor: pointer;
    }
    :disabled {
      opacity: 0.6;
      cursor: not-allowed;
    }
    :focus-visible {
      outline: 2px solid var(--_a);
      outline-offset: 2px;
    }
    [part~='error'] {
      color: var(--_e);
    }
    [part~='label'] {
      display: block;
      font-weight: 600;
      margin-bottom: 0.25rem;
    }
  }
`;

/** What the inputs add: spacing, and the red border of a value that cannot be submitted. */
export const controlStyles = [
  baseStyles,
  css`
    @layer hitl {
      :host {
        margin: 0.75rem 0;
      }
      :host(:state(user-invalid)) [part~='control'] {
        border-color: var(--_e);
      }
    }
  `,
];
