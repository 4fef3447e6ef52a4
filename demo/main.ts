/**
 * The QA page: pick an app and its run inputs (the scenario), pick the user, watch the live event
 * log, and drive the embedded service's faults. Each run gets a fresh `<human-input-form>`, so
 * nothing of the previous run lingers; apps that keep conversations also get the companion
 * elements.
 */
import '../src/elements/define-all.js';
import { CHAT_MODES, ChatPanel } from './qa/chat-panel.js';
import { APPS_PATH, sessionUrl, USER_COOKIE, type AppsAnswer, type DemoApp } from './qa/contract.js';
import { EventLog } from './qa/event-log.js';
import { qa, QaError } from './qa/qa-client.js';
import { renderRunInputs, runInputValues } from './qa/run-inputs.js';

/** Modes whose runs are workflows, so they can pause for a human. */
const WORKFLOW_MODES = new Set(['workflow', 'advanced-chat']);

const $ = <T extends Element>(selector: string) => document.querySelector<T>(selector)!;
const appSelect = $<HTMLSelectElement>('#app');
const inputsBox = $<HTMLDivElement>('#inputs');
const queryField = $<HTMLLabelElement>('#query-field');
const runInfo = $<HTMLParagraphElement>('#run-info');
const qaStatus = $<HTMLParagraphElement>('#qa-status');
const expireButton = $<HTMLButtonElement>('#expire');
const failButton = $<HTMLButtonElement>('#fail-run');
const log = new EventLog($<HTMLOListElement>('#log'));
const chat = new ChatPanel($<HTMLElement>('#chat-panel'), (text) => log.note('page', text));

let apps: DemoApp[] = [];
/** The token of the form on screen, for "Expire the form now". */
let formToken = '';
let runId = '';
let runActive = false;

// The user: a cookie the sample backend reads in place of a real login.
const userField = $<HTMLInputElement>('#user');
userField.value = document.cookie.split(/;\s*/).find((c) => c.startsWith(`${USER_COOKIE}=`))?.slice(USER_COOKIE.length + 1) ?? 'demo-user';
$('#who').addEventListener('submit', (event) => {
  event.preventDefault();
  document.cookie = `${USER_COOKIE}=${encodeURIComponent(userField.value)}; path=/; SameSite=Lax`;
  location.reload();
});

$('#scenario').addEventListener('submit', (event) => {
  event.preventDefault();
  void newRun();
});
appSelect.addEventListener('change', () => {
  showScenario();
  void newRun();
});
$('#clear-log').addEventListener('click', () => log.clear());

// Everything the element reports lands in the log; its events bubble out of it.
const page = $<HTMLElement>('main');
page.addEventListener('run-event', (e) => {
  const { event } = e;
  log.run(event);
  if ('workflow_run_id' in event && event.workflow_run_id) runId = event.workflow_run_id;
  runActive = event.event !== 'workflow_finished' && event.event !== 'error';
  if (event.event === 'human_input_required') formToken = event.data.form_token ?? '';
  if (['human_input_form_filled', 'human_input_form_timeout', 'workflow_finished', 'error'].includes(event.event)) formToken = '';
  showRun();
});
page.addEventListener('form-error', (e) => log.note('element', `form-error ${e.error.code}: ${e.error.message}`));
page.addEventListener('run-finished', () => log.note('element', 'run-finished'));

function selectedApp(): DemoApp {
  return apps.find((a) => a.id === appSelect.value) ?? apps[0]!;
}

function showScenario(): void {
  const app = selectedApp();
  renderRunInputs(inputsBox, app.user_input_form);
  queryField.hidden = !CHAT_MODES.has(app.mode);
  $<HTMLParagraphElement>('#no-form').hidden = WORKFLOW_MODES.has(app.mode);
  chat.show(CHAT_MODES.has(app.mode) ? app.id : undefined);
  history.replaceState(null, '', `#app=${encodeURIComponent(app.id)}`);
}

function showRun(): void {
  runInfo.textContent = runId ? `Run ${runId}${formToken ? ` · form ${formToken} open` : ''}` : 'Starting a run…';
  expireButton.disabled = !formToken || !qaAvailable;
  failButton.disabled = !runId || !runActive || !qaAvailable;
}

/** Starts a run of the chosen scenario in a new element; `dropAfter` arms a one-off stream cut first. */
async function newRun(dropAfter?: number): Promise<void> {
  const app = selectedApp();
  const inputs = runInputValues(inputsBox);
  log.clear();
  runId = '';
  runActive = false;
  formToken = '';
  showRun();
  const form = document.createElement('human-input-form');
  form.id = 'form';
  form.inputs = inputs;
  form.hidden = !WORKFLOW_MODES.has(app.mode);
  try {
    // A chat app's turn starts with a message; in a Chatflow it starts a run, which the element follows.
    if (CHAT_MODES.has(app.mode)) {
      const answer = await chat.send($<HTMLInputElement>('#query').value || 'Hello', inputs);
      if (app.mode === 'advanced-chat') {
        if (!answer.runId) throw new Error('the chat message started no workflow run');
        runId = answer.runId;
        form.runId = runId;
        log.note('page', `following run ${runId}`);
      }
    }
    if (dropAfter !== undefined) {
      await qa.cutNextStream(dropAfter);
      log.note('page', `the next stream drops after ${dropAfter} events`);
    }
  } catch (error) {
    log.note('page', `could not start: ${(error as Error).message}`);
    return;
  }
  // Without a workflow there is nothing to follow; the element stays idle (no session URL).
  if (WORKFLOW_MODES.has(app.mode)) form.sessionUrl = sessionUrl(app.id);
  $('human-input-form').replaceWith(form);
}

// QA controls: only with the embedded service; against a real deployment they say why not.
let qaAvailable = false;

async function control(action: () => Promise<unknown>, done: string): Promise<void> {
  qaStatus.textContent = '';
  try {
    await action();
    qaStatus.textContent = done;
    log.note('page', `QA: ${done}`);
  } catch (error) {
    qaStatus.textContent = error instanceof QaError ? `${error.code}: ${error.message}` : String(error);
  }
}

async function showQaSettings(): Promise<void> {
  const settings = await qa.settings();
  $<HTMLInputElement>('#latency').value = String(settings.latencyMs);
  $<HTMLInputElement>('#fail-fetch').checked = settings.failRemoteFetch;
}

$('#latency-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const latencyMs = Number($<HTMLInputElement>('#latency').value);
  void control(() => qa.change({ latencyMs }), `latency set to ${latencyMs} ms`);
});
$('#cut-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void newRun(Number($<HTMLInputElement>('#cut-after').value));
});
expireButton.addEventListener('click', () => {
  const token = formToken;
  void control(() => qa.expireForm(token), 'form expired');
});
failButton.addEventListener('click', () => {
  const run = runId;
  void control(() => qa.failRun(run), 'run failed');
});
$<HTMLInputElement>('#fail-fetch').addEventListener('change', (event) => {
  const failRemoteFetch = (event.target as HTMLInputElement).checked;
  void control(() => qa.change({ failRemoteFetch }), failRemoteFetch ? 'remote file fetches fail' : 'remote file fetches work');
});
$('#reset').addEventListener('click', () => {
  void control(async () => {
    await qa.reset();
    await showQaSettings();
  }, 'service reset: runs, forms and settings are back to their start').then(() => newRun());
});

async function init(): Promise<void> {
  const answer = await fetch(APPS_PATH);
  const described = (await answer.json()) as AppsAnswer;
  // Every app that can pause for a human or hold a conversation (a Text Generator does neither).
  apps = described.apps.filter((a) => WORKFLOW_MODES.has(a.mode) || CHAT_MODES.has(a.mode));
  if (!apps.length) apps = described.apps;
  $('#upstream').textContent = described.upstream === 'embedded' ? 'Embedded service (fixture apps)' : 'A real deployment (UPSTREAM_URL)';
  appSelect.replaceChildren(...apps.map((a) => new Option(`${a.name} (${a.mode})`, a.id)));
  const asked = new URLSearchParams(location.hash.slice(1)).get('app');
  appSelect.value = apps.some((a) => a.id === asked) ? asked! : described.default_app;
  if (!appSelect.value) appSelect.selectedIndex = 0;
  qaAvailable = described.qa;
  $<HTMLFieldSetElement>('#qa-controls').disabled = !qaAvailable;
  const unavailable = $<HTMLParagraphElement>('#qa-unavailable');
  unavailable.hidden = qaAvailable;
  unavailable.textContent = described.qa_unavailable ?? '';
  if (qaAvailable) await showQaSettings();
  showScenario();
  await newRun();
}

void init();
