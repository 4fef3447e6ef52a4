/** The page's live log: every run event the element reports, and the element's own events. */
import type { RunEvent } from '../../src/protocol/index.js';

export class EventLog {
  #started = performance.now();

  constructor(readonly list: HTMLOListElement) {}

  clear(): void {
    this.list.replaceChildren();
    this.#started = performance.now();
  }

  /** A run event, with what QA looks at for it. */
  run(event: RunEvent): void {
    this.#add(`${event.event}${detail(event)}`);
  }

  /** Something the element or the page did, told apart from the run's events by colour. */
  note(source: 'element' | 'page', text: string): void {
    this.#add(text, source);
  }

  #add(text: string, className?: string): void {
    const item = document.createElement('li');
    item.textContent = `+${((performance.now() - this.#started) / 1000).toFixed(2)} s  ${text}`;
    if (className) item.className = className;
    this.list.append(item);
    this.list.scrollTop = this.list.scrollHeight;
  }
}

function detail(event: RunEvent): string {
  switch (event.event) {
    case 'text_chunk':
      return ` ${JSON.stringify(event.data.text)}`;
    case 'human_input_required':
      return ` “${event.data.node_title}”${event.data.form_token ? '' : ' (answered by email: no form token; QA can still expire it)'}`;
    case 'human_input_form_filled':
      return ` “${event.data.action_text}”`;
    case 'workflow_finished':
      return ` ${event.data.status}`;
    case 'error':
      return ` ${event.code}: ${event.message}`;
    default:
      return '';
  }
}
