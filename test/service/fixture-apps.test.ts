/** The app part of the fixture: validated at load, with the path and reason of each mistake. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FixtureError, parseFixture } from '../../src/service/index.js';
import { defaultFixture, KEYS, type RawFixture } from './app-helpers.js';

function problems(mutate: (raw: RawFixture) => void): { path: string; reason: string }[] {
  const raw = defaultFixture();
  mutate(raw);
  try {
    parseFixture(raw, 'broken.json');
  } catch (error) {
    assert.ok(error instanceof FixtureError);
    assert.match(error.message, /^Invalid fixture broken\.json:\n/);
    return error.problems;
  }
  assert.fail('the fixture was accepted');
}

const index = (key: string) => defaultFixture().apps.findIndex((a: { key: string }) => a.key === key);
const app = (raw: RawFixture, key: string) => raw.apps.find((a: { key: string }) => a.key === key);

test('the default fixture has one app of each mode, with the keys of DESIGN.md', () => {
  const fixture = parseFixture(defaultFixture());
  assert.deepEqual(fixture.apps.map((a) => [a.key, a.mode]), [
    [KEYS.chatflow, 'advanced-chat'], [KEYS.workflow, 'workflow'], [KEYS.agent, 'agent'],
    [KEYS.chatbot, 'chat'], [KEYS.legacyAgent, 'agent-chat'], [KEYS.textGenerator, 'completion'],
  ]);
  for (const key of [KEYS.chatflow, KEYS.chatbot, KEYS.legacyAgent]) {
    assert.equal(fixture.apps.find((a) => a.key === key)!.conversation_variables.length, 12, key);
  }
});

test('mistakes name their path and reason', () => {
  const bot = index(KEYS.chatbot);
  const wf = index(KEYS.workflow);
  assert.deepEqual(problems((raw) => (app(raw, KEYS.chatbot).conversation_variables[1].value = 'three')), [
    { path: `apps[${bot}].conversation_variables[1].value`, reason: 'not a value of type number' },
  ]);
  assert.deepEqual(problems((raw) => delete app(raw, KEYS.chatbot).reply), [{ path: `apps[${bot}].reply`, reason: 'a chat app needs a reply' }]);
  assert.deepEqual(problems((raw) => app(raw, KEYS.workflow).workflow.nodes.push({ id: 'say', type: 'answer', answer: 'hi' })), [
    { path: `apps[${wf}].workflow.nodes[${app(defaultFixture(), KEYS.workflow).workflow.nodes.length}].type`, reason: 'answer nodes belong to Chatflow (advanced-chat) apps' },
  ]);
  assert.deepEqual(problems((raw) => (app(raw, KEYS.chatbot).parameters.text_to_speech = { voice: 'echo' })), [
    { path: `apps[${bot}].parameters.text_to_speech.voice`, reason: 'no voice "echo" among text_to_speech.voices' },
  ]);
  const dup = problems((raw) => app(raw, KEYS.chatbot).conversation_variables.push({ name: 'tags', value_type: 'string', value: 'x' }));
  assert.deepEqual(dup, [{ path: `apps[${bot}].conversation_variables[12].name`, reason: 'duplicate variable "tags"' }]);
  const when = problems((raw) => (app(raw, KEYS.workflow).workflow.edges[0].when = { variable: ['start'], in: [] }));
  assert.deepEqual(when.map((p) => p.path).sort(), [`apps[${wf}].workflow.edges[0].when.in`, `apps[${wf}].workflow.edges[0].when.variable`]);
});
