/**
 * The companion elements end to end, as a new user meets them on a host page: the page, the
 * sample host backend with its relay, the embedded service (its default fixture's Chatbot app),
 * in Chromium. The page asks questions with its own chat box, then the user picks a conversation
 * with the keyboard, edits its variables, rates the answer, listens to it and renames the
 * conversation.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectProblems } from './helpers/forms.js';
import { useDemo } from './helpers/qa-page.js';

const SESSION = '/api/session?app=8f9e0d1c-2b3a-4c5d-9e8f-7a6b5c4d3e2f';

const site = useDemo();

/** A host page: the package through the demo's Vite server, a chat box of its own, the four companions wired together. */
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Support</title><link rel="icon" href="data:,">
<script type="module" src="/@id/hitl-elements/define"></script></head><body><main>
<h1>Support</h1>
<form id="ask"><label>Question <input name="q" required></label> <button>Ask</button></form>
<conversation-list id="list" session-url="${SESSION}"></conversation-list>
<conversation-variables id="vars" session-url="${SESSION}"></conversation-variables>
<p>Last answer: <span id="answer"></span></p>
<message-feedback id="feedback" session-url="${SESSION}"></message-feedback>
<tts-player id="player" session-url="${SESSION}"></tts-player>
</main><script>
let grant;
async function relay(method, path, body) {
  grant ??= await (await fetch('${SESSION}', { method: 'POST' })).json();
  const url = new URL(grant.relay_url, new URL('${SESSION}', location.href)).href + path;
  const response = await fetch(url, { method, headers: { Authorization: 'Bearer ' + grant.token, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
  return response.json();
}
document.getElementById('ask').addEventListener('submit', async (e) => {
  e.preventDefault();
  const q = e.target.elements.q;
  await relay('POST', '/chat-messages', { inputs: {}, query: q.value, response_mode: 'blocking', user: '' });
  q.value = '';
  await document.getElementById('list').reload();
});
document.getElementById('list').addEventListener('conversation-selected', async (e) => {
  const id = e.detail.id;
  document.getElementById('vars').conversationId = id;
  const { data } = await relay('GET', '/messages?conversation_id=' + id);
  const last = data.at(-1);
  document.getElementById('answer').textContent = last.answer;
  Object.assign(document.getElementById('feedback'), { conversationId: id, messageId: last.id });
  document.getElementById('player').messageId = last.id;
});
</script></body></html>`;

test('a new user picks a conversation, edits its variables, rates and hears the answer, renames it', { timeout: 90_000 }, async () => {
  const context = await site.browser.newContext();
  await context.addCookies([{ name: 'demo_user', value: `e2e-${Date.now()}`, url: site.demo.url }]);
  const page = await context.newPage();
  const problems = collectProblems(page);
  await page.route(`${site.demo.url}support.html`, (route) => route.fulfill({ contentType: 'text/html', body: PAGE }));
  await page.goto(`${site.demo.url}support.html`);

  const list = page.locator('conversation-list');
  await list.getByText('No conversations yet.').first().waitFor({ timeout: 15_000 });
  for (const question of ['Where is my order?', 'Do you ship abroad?']) {
    await page.getByRole('textbox', { name: 'Question' }).fill(question);
    await page.getByRole('button', { name: 'Ask' }).click();
    await list.getByRole('option', { name: new RegExp(question.replace('?', '\\?')) }).waitFor({ timeout: 15_000 });
  }

  // The newest conversation is first; the keyboard moves to the older one and picks it.
  const listbox = list.getByRole('listbox', { name: 'Conversations' });
  await listbox.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await listbox.getByRole('option', { selected: true, name: /Where is my order\?/ }).waitFor();

  const vars = page.locator('conversation-variables');
  const name = vars.getByRole('textbox', { name: 'customer_name' });
  await name.waitFor({ timeout: 10_000 });
  await name.fill('Grace Hopper');
  await vars.getByRole('button', { name: 'Save: customer_name' }).click();
  await vars.getByRole('status').filter({ hasText: 'Saved.' }).waitFor({ timeout: 10_000 });
  await page.locator('#answer').filter({ hasText: 'Thanks, Ada Lovelace!' }).waitFor({ timeout: 10_000 });

  const scores = vars.getByRole('textbox', { name: 'scores' });
  await scores.fill('["great"]');
  await vars.getByRole('button', { name: 'Save: scores' }).click();
  await vars.getByText("Type mismatch: variable 'scores' expects array[number], but got array[string] type").waitFor({ timeout: 10_000 });
  assert.equal(await scores.getAttribute('aria-invalid'), 'true');

  const feedback = page.locator('message-feedback');
  await feedback.getByRole('button', { name: 'Like', exact: true }).click();
  await feedback.getByRole('button', { name: 'Like', exact: true, pressed: true }).waitFor({ timeout: 10_000 });
  await feedback.getByRole('status').filter({ hasText: 'Thanks for your feedback.' }).waitFor();

  const player = page.locator('tts-player');
  await player.getByRole('button', { name: 'Play' }).click();
  await page.waitForFunction("document.querySelector('tts-player').currentTime > 0.3", undefined, { timeout: 30_000 });
  await player.getByRole('button', { name: 'Pause' }).click();
  await page.locator('tts-player:state(paused)').waitFor();

  await listbox.focus();
  await page.keyboard.press('F2');
  const rename = list.getByRole('textbox', { name: 'New name' });
  await rename.fill('Order 2041');
  await page.keyboard.press('Enter');
  await list.getByRole('option', { name: /Order 2041/ }).waitFor({ timeout: 10_000 });

  // The refused save is the one failed request the console reports.
  assert.deepEqual(problems.filter((p) => !/status of 400/.test(p)), []);
  await context.close();
});
