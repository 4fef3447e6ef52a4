/**
 * The QA page: pick an app and its run inputs (the scenario), pick the user, watch the live event
 * log, and drive the embedded service's faults. Each run gets a fresh `<human-input-form>`, so
 * nothing of the previous run lingers; apps that keep conversations also get the companion
 * elements.
 *
 * The URL names what is on screen: `#app=<id>&run=<run id>`. Loading it (a reload, a link, an
 * edit of the hash) follows that run with `run-id`, so the element restores what was typed;
 * without `run=` a new run starts.
 */
import '../src/elements/define-all.js';
import { CHAT_MODES, ChatPanel } from './qa/chat-panel.js';
import type { ChatAnswer } from './qa/chat.js';
import { APPS_PATH, sessionUrl, USER_COOKIE, type AppsAnswer, type DemoApp } from './qa/contract.js';
import { EventLog } from './qa/event-log.js';
import { qa, QaError } from './qa/qa-client.js';
import { renderRunInputs, runInputValues, showRunInputs } from './qa/run-inputs.js';

/** Modes whose runs are workflows, so they can pause for a human. */
const WORKFLOW_MODES = new Set(['workflow', 'advanced-chat']);
/** How the app picker groups the modes (Dify's names for them). */
const MODE_NAMES: Record<string, string> = {
  workflow: 'Workflow',
  'advanced-chat': 'Chatflow',
  chat: 'Chatbot',
  'agent-chat': 'Agent (legacy)',
  agent: 'Agent',
  completion: 'Text generator',
};
/** Events after which the run's open form is gone. */
const FORM_CLOSED = new Set(['human_input_form_filled', 'human_input_form_timeout', 'workflow_finished', 'error']);

const $ = <T extends Element>(selector: string) => document.querySelector<T>(selector)!;
const appSelect = $<HTMLSelectElement>('#app');
const inputsBox = $<HTMLDivElement>('#inputs');
const queryField = $<HTMLLabelElement>('#query-field');
const runInfo = $<HTMLParagraphElement>('#run-info');
const qaStatus = $<HTMLParagraphElement>('#qa-status');
const expireButton = $<HTMLButtonElement>('#expire');
const failButton = $<HTMLButtonElement>('#fail-run');
const log = new EventLog($<HTMLOListElement>('#log'));
const chat = new ChatPanel($<HTMLElement>('#chat-panel'), {
  note: (text) => log.note('page', text),
  inputs: () => runInputValues(inputsBox),
  replied: (answer) => followReply(answer),
});

let apps: DemoApp[] = [];
let runId = '';
let runActive = false;
/** Why the run could not start, instead of "Starting a run…". */
let startProblem = '';
/** The form the run waits on: its token (null for a form answered by email) and id. */
let openForm: { token: string | null; id: string } | undefined;
/** Set while a run named by the URL is being followed: its own inputs go back into the Scenario fields once. */
let showInputsOfRun = '';

// The user: a cookie the sample backend reads in place of a real login.
const userField = $<HTMLInputElement>('#user');
userField.value = document.cookie.split(/;\s*/).find((c) => c.startsWith(`${USER_COOKIE}=`))?.slice(USER_COOKIE.length + 1) ?? 'demo-user';
$('#who').addEventListener('submit', (event) => {
  event.preventDefault();
  document.cookie = `${USER_COOKIE}=${encodeURIComponent(userField.value)}; path=/; SameSite=Lax`;
  // The run on screen is the previous user's, which the new one may not see: start afresh.
  runId = '';
  writeUrl();
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
  if ('workflow_run_id' in event && event.workflow_run_id && event.workflow_run_id !== runId) {
    runId = event.workflow_run_id;
    writeUrl();
  }
  runActive = event.event !== 'workflow_finished' && event.event !== 'error';
  if (event.event === 'human_input_required') openForm = { token: event.data.form_token, id: event.data.form_id };
  // A run named by the URL (a reload, a link) shows its own inputs in the Scenario fields; a run
  // the page started has them there already, and may not overwrite what is being typed for the next.
  if (event.event === 'workflow_started' && event.workflow_run_id === showInputsOfRun) {
    showInputsOfRun = '';
    showRunInputs(inputsBox, event.data.inputs);
  }
  if (FORM_CLOSED.has(event.event)) openForm = undefined;
  chat.followRun(event);
  showRun();
});
page.addEventListener('form-error', (e) => log.note('element', `form-error ${e.error.code}: ${e.error.message}`));
page.addEventListener('run-finished', () => log.note('element', 'run-finished'));

function selectedApp(): DemoApp {
  return apps.find((a) => a.id === appSelect.value) ?? apps[0]!;
}

/** What the URL asks for. */
function askedInUrl(): { app: string | null; run: string } {
  const params = new URLSearchParams(location.hash.slice(1));
  return { app: params.get('app'), run: params.get('run') ?? '' };
}

/** Records the app and the run on screen in the URL, so a reload comes back to them. */
function writeUrl(): void {
  const params = new URLSearchParams({ app: appSelect.value });
  if (runId) params.set('run', runId);
  // replaceState fires no `hashchange`, so the page does not react to its own record.
  history.replaceState(null, '', `#${params}`);
}

function showScenario(): void {
  const app = selectedApp();
  renderRunInputs(inputsBox, app.user_input_form);
  queryField.hidden = !CHAT_MODES.has(app.mode);
  $<HTMLParagraphElement>('#no-form').hidden = WORKFLOW_MODES.has(app.mode);
  chat.show(CHAT_MODES.has(app.mode) ? app.id : undefined, app.mode);
}

function showRun(): void {
  const form = openForm && ` · form ${openForm.token ?? `${openForm.id} (answered by email)`} open`;
  // Apps without a workflow have no run to tell of; their answer is in the Conversation panel.
  runInfo.textContent = !WORKFLOW_MODES.has(selectedApp().mode) ? '' : runId ? `Run ${runId}${form ?? ''}` : startProblem || 'Starting a run…';
  expireButton.disabled = !openForm || !qaAvailable;
  failButton.disabled = !runId || !runActive || !qaAvailable;
}

/** Forgets the run on screen (and clears the QA status of the previous one). */
function forgetRun(): void {
  runId = '';
  runActive = false;
  openForm = undefined;
  startProblem = '';
  qaStatus.textContent = '';
  writeUrl();
  showRun();
}

/**
 * A fresh element on the selected app: following `run` when given, else starting a run with
 * `inputs`. With neither (or for an app without a workflow) an empty placeholder takes its place,
 * so the previous run's element stops, and no element waits without a session URL.
 */
function mountForm(options: { run?: string; inputs?: Record<string, unknown> } = {}): void {
  const app = selectedApp();
  let form: HTMLElement;
  if (WORKFLOW_MODES.has(app.mode) && (options.run || options.inputs)) {
    const element = document.createElement('human-input-form');
    if (options.inputs) element.inputs = options.inputs;
    if (options.run) element.runId = options.run;
    element.sessionUrl = sessionUrl(app.id);
    form = element;
  } else {
    form = document.createElement('div');
    form.hidden = true;
  }
  form.id = 'form';
  $('#form').replaceWith(form);
}

/** Follows an existing run of the selected app (named by the URL, or started by a chat message). */
function follow(run: string, why: string): void {
  forgetRun();
  runId = run;
  writeUrl();
  showRun();
  log.note('page', `following run ${run}${why}`);
  mountForm({ run });
}

/** Starts a run of the chosen scenario in a new element; `dropAfter` arms a one-off stream cut first. */
async function newRun(dropAfter?: number): Promise<void> {
  const app = selectedApp();
  const inputs = runInputValues(inputsBox);
  log.clear();
  forgetRun();
  mountForm();
  let chatRun = '';
  try {
    // A chat app's turn starts with a message; in a Chatflow it starts a run, which the element follows.
    if (CHAT_MODES.has(app.mode)) {
      const answer = await chat.send($<HTMLInputElement>('#query').value || 'Hello', inputs);
      if (app.mode === 'advanced-chat') {
        if (!answer.runId) throw new Error('the chat message started no workflow run');
        chatRun = answer.runId;
      }
    }
    if (dropAfter !== undefined) {
      await qa.cutNextStream(dropAfter);
      log.note('page', `the next stream drops after ${dropAfter} events`);
    }
  } catch (error) {
    startProblem = `Could not start: ${(error as Error).message}`;
    log.note('page', startProblem);
    showRun();
    return;
  }
  // Another app was picked meanwhile: its own run is starting.
  if (selectedApp() !== app) return;
  if (chatRun) follow(chatRun, ', started by the chat message');
  else mountForm({ inputs });
}

/**
 * A reply in a Chatflow starts a run of its own, which may pause at a form of its own: the page
 * follows that run from then on (a run whose form was still open waits on in the service).
 */
function followReply(answer: ChatAnswer): void {
  if (selectedApp().mode !== 'advanced-chat' || !answer.runId || answer.runId === runId) return;
  const left = openForm && runId ? ` (run ${runId} still waits for its form)` : '';
  follow(answer.runId, `, started by the reply${left}`);
}

/** The page as the URL asks: its app, and its run or a new one. */
function loadFromUrl(): void {
  const asked = askedInUrl();
  const app = apps.find((a) => a.id === asked.app);
  if (asked.app !== null && !app) log.note('page', `no app ${asked.app} here: showing ${selectedApp().name}`);
  if (app && app.id !== appSelect.value) {
    appSelect.value = app.id;
    showScenario();
  }
  if (asked.run && WORKFLOW_MODES.has(selectedApp().mode)) {
    log.clear();
    showInputsOfRun = asked.run;
    follow(asked.run, ' (named in the URL)');
  } else void newRun();
}

window.addEventListener('hashchange', () => {
  const asked = askedInUrl();
  // Already on screen: nothing to do.
  if (asked.app === appSelect.value && asked.run === runId) return;
  loadFromUrl();
});

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
  $<HTMLInputElement>('#idle-timeout').value = String(settings.streamIdleTimeoutMs);
}

$('#latency-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const latencyMs = Number($<HTMLInputElement>('#latency').value);
  void control(() => qa.change({ latencyMs }), `latency set to ${latencyMs} ms`);
});
$('#idle-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const streamIdleTimeoutMs = Number($<HTMLInputElement>('#idle-timeout').value);
  void control(() => qa.change({ streamIdleTimeoutMs }), `streams close after ${streamIdleTimeoutMs} ms without an event`);
});
$('#cut-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void newRun(Number($<HTMLInputElement>('#cut-after').value));
});
expireButton.addEventListener('click', () => {
  // A form answered by email has no token; the service's QA endpoint takes its id as well.
  const form = openForm?.token ?? openForm?.id ?? '';
  void control(() => qa.expireForm(form), 'form expired');
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
  // The runs are gone with the reset, so a new one starts; the status line then says what was done.
  void control(async () => {
    // The page stops following the run before the service forgets it; a form left on the page
    // would reconnect in between and be told its run does not exist (404).
    forgetRun();
    mountForm();
    await qa.reset();
    await showQaSettings();
    await newRun();
  }, 'service reset: runs, forms and settings are back to their start');
});

async function init(): Promise<void> {
  const answer = await fetch(APPS_PATH);
  const described = (await answer.json()) as AppsAnswer;
  // Every app that can pause for a human or hold a conversation (a Text Generator does neither).
  apps = described.apps.filter((a) => WORKFLOW_MODES.has(a.mode) || CHAT_MODES.has(a.mode));
  if (!apps.length) apps = described.apps;
  $('#upstream').textContent = described.upstream === 'embedded' ? 'Embedded service (fixture apps)' : 'A real deployment (UPSTREAM_URL)';
  appSelect.replaceChildren(...appOptions(apps));
  appSelect.value = described.default_app;
  if (!appSelect.value) appSelect.selectedIndex = 0;
  qaAvailable = described.qa;
  $<HTMLFieldSetElement>('#qa-controls').disabled = !qaAvailable;
  const unavailable = $<HTMLParagraphElement>('#qa-unavailable');
  unavailable.hidden = qaAvailable;
  unavailable.textContent = described.qa_unavailable ?? '';
  if (qaAvailable) await showQaSettings();
  showScenario();
  loadFromUrl();
}

/** The picker's options, grouped by mode in the order the apps come. */
function appOptions(list: DemoApp[]): HTMLElement[] {
  const groups = new Map<string, HTMLOptGroupElement>();
  for (const app of list) {
    let group = groups.get(app.mode);
    if (!group) {
      group = document.createElement('optgroup');
      group.label = MODE_NAMES[app.mode] ?? (app.mode || 'Other');
      groups.set(app.mode, group);
    }
    group.append(new Option(app.name, app.id));
  }
  return [...groups.values()];
}

void init();
