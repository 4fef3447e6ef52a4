import { css } from 'lit';

/**
 * Rules every element shares (one stylesheet, adopted by each shadow root), in `@layer hitl` so
 * the host page's own CSS wins over ours. The `--hitl-*` custom properties theme them all; the
 * private `--_*` ones, named for what they hold, are what the rules read: the page's value, else the
 * app's (`themeStyle`), else the default.
 */
export const baseStyles = css`
  @layer hitl {
    :host,
    [part~='container'] {
      --_accent: var(--hitl-accent, var(--hitl-site-accent, #1c64f2));
      /* Text on the accent: the page's, else black or white for the app's colour (set with it by
         themeStyle), else white on the default blue. */
      --_accent-contrast: var(--hitl-accent-contrast, var(--hitl-site-contrast, #fff));
      --_border-color: var(--hitl-border-color, #d0d5dd);
      --_radius: var(--hitl-radius, 8px);
      /* Readable on light and dark pages: the error colour follows color-scheme, muted text is
         the surrounding text colour, faded. */
      --_error-color: var(--hitl-error-color, light-dark(#b42318, #fda29b));
      --_muted-color: var(--hitl-muted-color, color-mix(in srgb, currentColor 72%, transparent));
    }
    :host {
      display: block;
    }
    :host([hidden]) {
      display: none;
    }
    /* The box of the form and the companions (the inputs have none). */
    [part~='container'] {
      font: var(--hitl-font, inherit);
      color: var(--hitl-color, inherit);
      border: 1px solid var(--_border-color);
      border-radius: var(--_radius);
      padding: var(--hitl-padding, 1rem);
      background: var(--hitl-background, none);
    }
    [part~='status'] {
      color: var(--_muted-color);
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
      border: 1px solid var(--_border-color);
      border-radius: calc(var(--_radius) / 2);
      background: var(--hitl-input-background, Canvas);
      box-sizing: border-box;
    }
    button {
      color: var(--hitl-button-color, CanvasText);
      background: var(--hitl-button-background, Canvas);
      cursor: pointer;
    }
    :disabled,
    [aria-disabled='true'] {
      opacity: 0.6;
      cursor: not-allowed;
    }
    :focus-visible {
      outline: 2px solid var(--_accent);
      outline-offset: 2px;
    }
    [part~='error'] {
      color: var(--_error-color);
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
        border-color: var(--_error-color);
      }
    }
  `,
];
