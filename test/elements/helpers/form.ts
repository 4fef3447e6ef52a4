/** Reaching into `<human-input-form>` and its inputs the way a user's eyes and hands would. */
import { fixture, html } from '@open-wc/testing';
import '../../../src/elements/human-input-form/define.js';
import type { HumanInputForm } from '../../../src/elements/human-input-form/human-input-form.js';
import type { HitlControl } from '../../../src/elements/shared/control.js';
import { AppClient } from '../../../src/client/app-client.js';
import type { HumanInputRequest, SessionGrant } from '../../../src/protocol/index.js';
import { until } from './wait.js';

/** The session URL of one of the fixture's apps (test/fixtures/browser.json). */
export const sessionUrl = (app?: string) => (app ? `/api/session?app=${app}` : '/api/session');

export const root = (el: Element) => el.shadowRoot!;
export const $ = <T extends Element = HTMLElement>(el: Element, selector: string) => root(el).querySelector<T>(selector);
export const $$ = <T extends Element = HTMLElement>(el: Element, selector: string) => [...root(el).querySelectorAll<T>(selector)];
export const statusText = (el: HumanInputForm) => $(el, '[part~=status]')?.textContent?.trim() ?? '';
export const control = <T extends HitlControl = HitlControl>(el: HumanInputForm, name: string) => $<T>(el, `[name="${name}"]`);
export const inner = <T extends Element = HTMLElement>(ctrl: Element, selector: string) => ctrl.shadowRoot!.querySelector<T>(selector);
export const actions = (el: HumanInputForm) => $$<HTMLButtonElement>(el, 'button[part~=action]');
export const action = (el: HumanInputForm, title: string) => actions(el).find((b) => b.textContent!.trim() === title)!;
export const hasState = (el: Element, state: string) => el.matches(`:state(${state})`);

/** Mounts the element and waits until it shows a form (or `state`). */
export async function mount(attributes: { app?: string; runId?: string; formToken?: string; inputs?: unknown; lang?: string } = {}, state = 'ready'): Promise<HumanInputForm> {
  const el = await fixture<HumanInputForm>(
    html`<human-input-form
      session-url=${sessionUrl(attributes.app)}
      run-id=${attributes.runId ?? ''}
      form-token=${attributes.formToken ?? ''}
      lang=${attributes.lang ?? 'en'}
      .inputs=${attributes.inputs ?? {}}
    ></human-input-form>`,
  );
  await until(() => hasState(el, state), `the ${state} state (now: ${statusText(el)})`);
  return el;
}

/** Types into a paragraph input as a user does. */
export function type(ctrl: HitlControl, text: string): void {
  const area = inner<HTMLTextAreaElement>(ctrl, 'textarea')!;
  area.value = text;
  area.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
}

/** Chooses an option of a select input as a user does. */
export function choose(ctrl: HitlControl, option: string): void {
  const select = inner<HTMLSelectElement>(ctrl, 'select')!;
  select.value = option;
  select.dispatchEvent(new Event('change', { bubbles: true }));
}

/** A client of the same relay the element uses, for arranging runs outside the element. */
export async function relayClient(app?: string): Promise<AppClient> {
  const response = await fetch(sessionUrl(app), { method: 'POST' });
  const grant = (await response.json()) as SessionGrant;
  return new AppClient({ baseUrl: new URL(grant.relay_url, location.href).href, credential: grant.token });
}

/** Starts a run of `app` outside the element; resolves at its first form. */
export async function startRun(app?: string, inputs: Record<string, unknown> = {}): Promise<{ client: AppClient; runId: string; form: HumanInputRequest }> {
  const client = await relayClient(app);
  for await (const event of client.streamWorkflow({ inputs, user: 'ignored-by-the-relay' })) {
    if (event.event === 'human_input_required') return { client, runId: event.workflow_run_id!, form: event.data };
  }
  throw new Error('the run did not pause');
}

/** The embedded service's QA controls, through the sample host backend. */
export async function qa(path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`/api/qa${path}`, {
    method: body === undefined ? 'GET' : path === '/settings' ? 'PATCH' : 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`QA ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Collects the names of the raw run events the element re-dispatches. */
export function recordEvents(el: HumanInputForm): string[] {
  const names: string[] = [];
  el.addEventListener('run-event', (e) => names.push(e.event.event));
  return names;
}
