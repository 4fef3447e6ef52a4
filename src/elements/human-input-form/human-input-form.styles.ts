import { css } from 'lit';

/** In `@layer hitl` so the host page's own CSS wins over ours. */
export const styles = css`
  @layer hitl {
    :host {
      display: block;
      font: var(--hitl-font, inherit);
      color: var(--hitl-color, inherit);
      --_accent: var(--hitl-accent, #1c64f2);
      --_radius: var(--hitl-radius, 8px);
      --_border: var(--hitl-border-color, #d0d5dd);
    }
    :host([hidden]) {
      display: none;
    }
    [part='container'] {
      border: 1px solid var(--_border);
      border-radius: var(--_radius);
      padding: var(--hitl-padding, 1rem);
      background: var(--hitl-background, transparent);
    }
    [part='title'] {
      font-size: 1.1em;
      margin: 0 0 0.5rem;
    }
    [part='field'] {
      display: grid;
      gap: 0.25rem;
      margin: 0.75rem 0;
    }
    [part='label'] {
      font-weight: 600;
    }
    textarea {
      font: inherit;
      min-height: 4.5em;
      padding: 0.5rem;
      border: 1px solid var(--_border);
      border-radius: calc(var(--_radius) / 2);
      resize: vertical;
      field-sizing: content;
    }
    textarea:focus-visible,
    button:focus-visible {
      outline: 2px solid var(--_accent);
      outline-offset: 2px;
    }
    [part='actions'] {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
      margin-top: 1rem;
    }
    button {
      font: inherit;
      padding: 0.5rem 1rem;
      border-radius: calc(var(--_radius) / 2);
      border: 1px solid var(--_border);
      background: var(--hitl-button-background, #fff);
      color: inherit;
      cursor: pointer;
    }
    button[data-style='primary'] {
      background: var(--_accent);
      border-color: var(--_accent);
      color: var(--hitl-accent-contrast, #fff);
    }
    button[data-style='accent'] {
      border-color: var(--_accent);
      color: var(--_accent);
    }
    button[data-style='ghost'] {
      border-color: transparent;
      background: transparent;
    }
    button:disabled {
      opacity: 0.6;
      cursor: not-allowed;
    }
    [part='status'] {
      margin: 0.5rem 0 0;
      color: var(--hitl-muted-color, #475467);
    }
    [part='error'] {
      color: var(--hitl-error-color, #b42318);
    }
    .visually-hidden {
      position: absolute;
      width: 1px;
      height: 1px;
      overflow: hidden;
      clip: rect(0 0 0 0);
      white-space: nowrap;
    }
  }
`;
