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
      --_e: var(--hitl-error-color, #b42318);
      --_m: var(--hitl-muted-color, #475467);
    }
    :host {
      display: block;
    }
    :host([hidden]) {
      display: none;
    }
    button,
    input,
    select,
    textarea {
      font: inherit;
      color: inherit;
      padding: 0.4rem 0.8rem;
      border: 1px solid var(--_b);
      border-radius: calc(var(--_r) / 2);
      background: var(--hitl-input-background, #fff);
      box-sizing: border-box;
    }
    button {
      background: var(--hitl-button-background, #fff);
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
