/**
 * The companions' tests talk to the fixture's chat apps through the sample host backend's
 * relays, each test as a user of its own (the demo backend's user cookie), so what one test
 * creates never shows in another's lists.
 */
import { SessionSource } from '../../../src/elements/shared/session.js';

/** The default fixture's Chatbot app (conversations, variables, feedback, text to audio). */
export const CHATBOT = '8f9e0d1c-2b3a-4c5d-9e8f-7a6b5c4d3e2f';

let users = 0;

/** A session URL of `app` for a new user: the grant is fetched now, while the cookie names that user. */
export async function newUser(app = CHATBOT): Promise<string> {
  const user = `companion-${Date.now().toString(36)}-${++users}`;
  const url = `/api/session?app=${app}&user=${user}`;
  // The demo backend names the user by a cookie, which every test page of this origin shares:
  // test files running side by side take turns, or one page's session could be for another's user.
  const grant = await navigator.locks.request('demo_user cookie', () => {
    document.cookie = `demo_user=${user}; path=/`;
    return SessionSource.for(url).grant();
  });
  const subject = (JSON.parse(atob(grant.token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { sub: string }).sub;
  if (subject !== user) throw new Error(`session granted for ${subject}, not ${user}`);
  return url;
}

export interface ChatAnswer {
  conversation_id: string;
  message_id: string;
  answer: string;
}

/** Sends a chat message (a new conversation unless `conversationId`) and waits for the answer. */
export async function chat(sessionUrl: string, query: string, conversationId?: string): Promise<ChatAnswer> {
  const api = await SessionSource.for(sessionUrl).transport();
  return api.json<ChatAnswer>('POST', '/chat-messages', {
    json: { inputs: {}, query, response_mode: 'blocking', user: '', ...(conversationId ? { conversation_id: conversationId } : {}) },
  });
}

/** `count` new conversations, `parallel` at a time, in order of creation. */
export async function conversations(sessionUrl: string, count: number, parallel = 1): Promise<ChatAnswer[]> {
  const answers: ChatAnswer[] = [];
  for (let i = 0; i < count; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - i) }, (_, j) => chat(sessionUrl, `Question ${i + j + 1}`));
    answers.push(...(await Promise.all(batch)));
  }
  return answers;
}
