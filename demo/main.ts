/** The demo page's own script: user switching and the live event log. */
import '../src/elements/define-all.js';
import type { RunEventEvent } from '../src/elements/human-input-form/events.js';

const USER_COOKIE = 'demo_user';
const form = document.querySelector('human-input-form')!;
const log = document.querySelector<HTMLOListElement>('#log')!;
const userField = document.querySelector<HTMLInputElement>('#user')!;

userField.value = document.cookie.split(/;\s*/).find((c) => c.startsWith(`${USER_COOKIE}=`))?.split('=')[1] ?? 'demo-user';

document.querySelector('#who')!.addEventListener('submit', (event) => {
  event.preventDefault();
  document.cookie = `${USER_COOKIE}=${encodeURIComponent(userField.value)}; path=/; SameSite=Lax`;
  location.reload();
});
document.querySelector('#restart')!.addEventListener('click', () => {
  log.replaceChildren();
  void form.start();
});

form.addEventListener('run-event', (e: RunEventEvent) => {
  const item = document.createElement('li');
  const { event } = e.event;
  item.textContent = event === 'text_chunk' ? `${event} ${JSON.stringify(e.event.data.text)}` : event;
  log.append(item);
  log.scrollTop = log.scrollHeight;
});
