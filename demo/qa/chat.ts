/**
 * A chat message sent the way a customer's page would: with a session of the app from the host
 * backend, through that app's relay. The answer streams in; the stream is read to its end (a
 * Chatflow's stream ends where its run pauses for a form).
 */
import { AppClient } from '../../src/client/index.js';
import type { SessionGrant } from '../../src/protocol/index.js';
import { sessionUrl } from './contract.js';

export interface ChatAnswer {
  answer: string;
  conversationId: string;
  messageId: string;
  /** A Chatflow's workflow run, which the form element can follow. */
  runId: string;
}

export async function sendChatMessage(
  appId: string,
  message: { query: string; inputs: Record<string, unknown>; conversationId?: string },
  onAnswer: (answerSoFar: string) => void = () => undefined,
): Promise<ChatAnswer> {
  const url = sessionUrl(appId);
  const granted = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  if (!granted.ok) throw new Error(`session: HTTP ${granted.status}`);
  const grant = (await granted.json()) as SessionGrant;
  const client = new AppClient({ baseUrl: new URL(grant.relay_url, new URL(url, location.href)).href, credential: grant.token });
  const result: ChatAnswer = { answer: '', conversationId: '', messageId: '', runId: '' };
  // The relay puts the session's user in; `user` here only satisfies the request's shape.
  const body = { query: message.query, inputs: message.inputs, user: '', conversation_id: message.conversationId ?? '' };
  for await (const event of client.streamChatMessage(body)) {
    if ('conversation_id' in event && event.conversation_id) result.conversationId = event.conversation_id;
    if ('message_id' in event && event.message_id) result.messageId = event.message_id;
    if ('workflow_run_id' in event && event.workflow_run_id) result.runId ||= event.workflow_run_id;
    if (event.event === 'message' || event.event === 'agent_message') {
      result.answer += event.answer;
      onAnswer(result.answer);
    }
    if (event.event === 'message_replace') {
      result.answer = event.answer;
      onAnswer(result.answer);
    }
    if (event.event === 'message_end') result.messageId = event.id;
    if (event.event === 'error') throw new Error(`${event.code}: ${event.message}`);
  }
  return result;
}
