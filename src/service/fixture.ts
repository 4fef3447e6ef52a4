/**
 * The fixture: the apps (and later knowledge bases) the embedded service serves. It is JSON,
 * validated at load so that a mistake names its file, its path and the reason.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { fitsValueType } from './conversations/value-types.js';
import { knowledgeFixtureSchema } from './knowledge/fixture-schema.js';

const id = z.string().min(1);

const stringSource = z.object({
  type: z.enum(['constant', 'variable']),
  selector: z.array(z.string()).default([]),
  value: z.string().default(''),
});

const fileConstraints = {
  output_variable_name: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,29}$/, 'must be a valid output variable name'),
  allowed_file_types: z.array(z.enum(['image', 'document', 'audio', 'video', 'custom'])).default([]),
  allowed_file_extensions: z.array(z.string().regex(/^\./, 'extensions start with a dot')).default([]),
  allowed_file_upload_methods: z.array(z.enum(['local_file', 'remote_url'])).default(['local_file', 'remote_url']),
};

const formInput = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('paragraph'),
    output_variable_name: fileConstraints.output_variable_name,
    default: stringSource.nullable().default(null),
  }),
  z.object({
    type: z.literal('select'),
    output_variable_name: fileConstraints.output_variable_name,
    option_source: z.object({
      type: z.enum(['constant', 'variable']),
      selector: z.array(z.string()).default([]),
      value: z.array(z.string()).default([]),
    }),
  }),
  z.object({ type: z.literal('file'), ...fileConstraints }),
  z.object({ type: z.literal('file-list'), ...fileConstraints, number_limits: z.number().int().min(0).default(0) }),
]);

const userAction = z.object({
  id: z.string().max(20).regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must match ^[A-Za-z_][A-Za-z0-9_]*$'),
  title: z.string().max(100),
  button_style: z.enum(['primary', 'default', 'accent', 'ghost']).default('default'),
});

const nodeBase = { id, title: z.string().default('') };

/** An input of a run (`/parameters` `user_input_form`): start variables, or a chat app's inputs. */
const inputVariable = z.object({
  variable: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/),
  label: z.string(),
  type: z.enum(['text-input', 'paragraph', 'select', 'number']).default('text-input'),
  required: z.boolean().default(false),
  default: z.string().default(''),
  options: z.array(z.string()).optional(),
  max_length: z.number().int().min(1).optional(),
});

/** Streaming pace of generated text. */
const streamed = {
  chunk_size: z.number().int().min(1).default(8),
  chunk_delay_ms: z.number().int().min(0).default(15),
};

const workflowNode = z.discriminatedUnion('type', [
  z.object({
    ...nodeBase,
    type: z.literal('start'),
    /** The run's inputs, as `/parameters` lists them in `user_input_form`. */
    variables: z.array(inputVariable).default([]),
  }),
  z.object({
    ...nodeBase,
    type: z.literal('llm'),
    /** Template of the generated text; `{{#node.var#}}` references are substituted. */
    text: z.string(),
    ...streamed,
  }),
  z.object({
    ...nodeBase,
    type: z.literal('answer'),
    /** Chatflow only: streamed to the chat as `message` events and added to the message's answer. */
    answer: z.string(),
    ...streamed,
  }),
  z.object({
    ...nodeBase,
    type: z.literal('human-input'),
    form_content: z.string(),
    inputs: z.array(formInput).default([]),
    user_actions: z.array(userAction).min(1),
    timeout: z.number().int().min(1).default(36),
    timeout_unit: z.enum(['hour', 'day']).default('hour'),
    /** Test and QA fixtures may expire a form sooner than the real service's units allow. */
    timeout_seconds: z.number().int().min(1).optional(),
    delivery: z.enum(['web_app', 'email']).default('web_app'),
  }),
  z.object({ ...nodeBase, type: z.literal('end'), outputs: z.record(z.string(), z.string()).default({}) }),
]);

/**
 * An edge. `source_handle` names the action (or `__timeout`) a human-input node leaves by;
 * `when` makes an edge conditional: it is taken when the value at `variable` (a selector such
 * as `["start", "scenario"]`) is one of `in`. A node's conditional edges are tried in order
 * before its plain one, so one start node can route runs to several paths.
 */
const edge = z.object({
  source: id,
  target: id,
  source_handle: z.string().optional(),
  when: z.object({ variable: z.array(z.string()).min(2), in: z.array(z.string()).min(1) }).optional(),
});

const workflow = z
  .object({ id, nodes: z.array(workflowNode).min(1), edges: z.array(edge).default([]) })
  .superRefine((wf, ctx) => {
    const ids = new Set<string>();
    wf.nodes.forEach((node, i) => {
      if (ids.has(node.id)) ctx.addIssue({ code: 'custom', path: ['nodes', i, 'id'], message: `duplicate node id "${node.id}"` });
      ids.add(node.id);
    });
    if (wf.nodes.filter((n) => n.type === 'start').length !== 1) {
      ctx.addIssue({ code: 'custom', path: ['nodes'], message: 'a workflow has exactly one start node' });
    }
    wf.edges.forEach((e, i) => {
      for (const end of ['source', 'target'] as const) {
        if (!ids.has(e[end])) ctx.addIssue({ code: 'custom', path: ['edges', i, end], message: `no node "${e[end]}"` });
      }
    });
  });

const site = z.object({
  title: z.string(),
  description: z.string().default(''),
  icon: z.string().default('🤖'),
  icon_type: z.enum(['emoji', 'image']).default('emoji'),
  icon_background: z.string().default('#FFEAD5'),
  icon_url: z.string().nullable().default(null),
  chat_color_theme: z.string().default('#1C64F2'),
  chat_color_theme_inverted: z.boolean().default(false),
  copyright: z.string().default(''),
  custom_disclaimer: z.string().default(''),
  default_language: z.string().default('en-US'),
  input_placeholder: z.string().nullable().default(null),
  privacy_policy: z.string().default(''),
  show_workflow_steps: z.boolean().default(true),
  use_icon_as_answer_icon: z.boolean().default(false),
});

const VALUE_TYPES = [
  'string', 'number', 'object', 'secret', 'file', 'boolean',
  'array[any]', 'array[string]', 'array[number]', 'array[object]', 'array[file]', 'array[boolean]',
] as const;

/** A conversation variable every new conversation of the app starts with. */
const conversationVariable = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a valid variable name'),
  value_type: z.enum(VALUE_TYPES),
  value: z.unknown(),
  description: z.string().default(''),
});

/** A voice of the app's text-to-speech: an eSpeak NG voice and the container it answers in. */
const voice = z.object({
  value: z.string().min(1),
  name: z.string().default(''),
  espeak: z.string().regex(/^[a-z]{2,3}(-[a-z0-9]+)*(\+[a-z0-9]+)?$/i, 'an eSpeak NG voice such as "en-us" or "en-gb+f3"'),
  format: z.enum(['mp3', 'wav', 'ogg']),
});

const DEFAULT_VOICES = [
  { value: 'alloy', name: 'Alloy (MP3)', espeak: 'en-us', format: 'mp3' as const },
  { value: 'fable', name: 'Fable (WAV)', espeak: 'en-gb', format: 'wav' as const },
  { value: 'nova', name: 'Nova (Ogg)', espeak: 'en-us+f3', format: 'ogg' as const },
];

const enabled = (on: boolean) => z.object({ enabled: z.boolean() }).default({ enabled: on });

/** `GET /parameters`, minus `user_input_form` (from the start node, or `inputs` for chat apps). */
const parameters = z
  .object({
    opening_statement: z.string().default(''),
    suggested_questions: z.array(z.string()).default([]),
    suggested_questions_after_answer: enabled(false),
    speech_to_text: enabled(false),
    text_to_speech: z
      .object({
        enabled: z.boolean().default(true),
        voice: z.string().default('alloy'),
        language: z.string().default('en-US'),
        autoPlay: z.enum(['enabled', 'disabled']).default('disabled'),
        /** Not on the wire: what each `voice` value synthesizes. */
        voices: z.array(voice).min(1).default(DEFAULT_VOICES),
      })
      .default({ enabled: true, voice: 'alloy', language: 'en-US', autoPlay: 'disabled', voices: DEFAULT_VOICES }),
    retriever_resource: enabled(false),
    annotation_reply: enabled(false),
    more_like_this: enabled(false),
    sensitive_word_avoidance: enabled(false),
    file_upload: z.record(z.string(), z.unknown()).default({}),
    /** Upload limits, in MB, enforced by `POST /files/upload`. */
    system_parameters: z
      .object({
        file_size_limit: z.number().int().min(1).default(15),
        image_file_size_limit: z.number().int().min(1).default(10),
        audio_file_size_limit: z.number().int().min(1).default(50),
        video_file_size_limit: z.number().int().min(1).default(100),
        workflow_file_upload_limit: z.number().int().min(1).default(10),
      })
      .default({ file_size_limit: 15, image_file_size_limit: 10, audio_file_size_limit: 50, video_file_size_limit: 100, workflow_file_upload_limit: 10 }),
  })
  .superRefine((p, ctx) => {
    if (!p.text_to_speech.voices.some((v) => v.value === p.text_to_speech.voice)) {
      ctx.addIssue({ code: 'custom', path: ['text_to_speech', 'voice'], message: `no voice "${p.text_to_speech.voice}" among text_to_speech.voices` });
    }
  });

/**
 * What a Chatbot, Agent, Legacy Agent or Text Generator app answers: a template (with
 * `{{#sys.query#}}`, `{{#inputs.<name>#}}` and `{{#conversation.<name>#}}`), streamed in chunks;
 * agent modes first report the tool calls in `thoughts`.
 */
const reply = z.object({
  answer: z.string(),
  ...streamed,
  thoughts: z
    .array(
      z.object({
        /** One tool, or several joined by `;` as the real agent runners record them. */
        tool: z.string(),
        /** Display names per tool (default: the tool's own name); a missing `zh_Hans` falls back to `en_US`. */
        tool_labels: z.record(z.string(), z.object({ en_US: z.string() }).catchall(z.string())).default({}),
        tool_input: z.record(z.string(), z.unknown()).default({}),
        observation: z.string(),
        thought: z.string().default(''),
      }),
    )
    .default([]),
});

/**
 * A tool an agent app is configured with (`agent_mode.tools`), for `GET /meta`'s `tool_icons`: a
 * built-in provider's icon is a URL of the console API, a custom (`api`) provider's its own emoji
 * icon (the real service's fallback when none: 😁 on #252525).
 */
const agentTool = z.object({
  provider_type: z.enum(['builtin', 'api']),
  provider_id: z.string().min(1),
  tool_name: z.string().min(1),
  icon: z.object({ background: z.string(), content: z.string() }).optional(),
});

const app = z.object({
  id,
  key: z.string().regex(/^app-/, 'app keys start with "app-"'),
  name: z.string(),
  description: z.string().default(''),
  mode: z.enum(['advanced-chat', 'workflow', 'agent', 'chat', 'agent-chat', 'completion']),
  author_name: z.string().default('Demo'),
  tags: z.array(z.string()).default([]),
  site,
  parameters: parameters.default(parameters.parse({})),
  /** Inputs of a chat or completion app (workflow apps take their start node's variables). */
  inputs: z.array(inputVariable).default([]),
  conversation_variables: z.array(conversationVariable).default([]),
  reply: reply.optional(),
  tools: z.array(agentTool).default([]),
  workflow: workflow.optional(),
});

export const fixtureSchema = z
  .object({
    tenant_id: id,
    apps: z.array(app).min(1),
    /** Knowledge keys, models and knowledge bases; without it every knowledge key is invalid. */
    knowledge: knowledgeFixtureSchema.optional(),
  })
  .superRefine((fx, ctx) => {
    const keys = new Set<string>();
    fx.apps.forEach((a, i) => {
      if (keys.has(a.key)) ctx.addIssue({ code: 'custom', path: ['apps', i, 'key'], message: `duplicate app key "${a.key}"` });
      keys.add(a.key);
      if ((a.mode === 'workflow' || a.mode === 'advanced-chat') && !a.workflow) {
        ctx.addIssue({ code: 'custom', path: ['apps', i, 'workflow'], message: `a ${a.mode} app needs a workflow` });
      }
      if (a.mode !== 'workflow' && a.mode !== 'advanced-chat' && !a.reply) {
        ctx.addIssue({ code: 'custom', path: ['apps', i, 'reply'], message: `a ${a.mode} app needs a reply` });
      }
      const names = new Set<string>();
      a.conversation_variables.forEach((v, j) => {
        if (names.has(v.name)) ctx.addIssue({ code: 'custom', path: ['apps', i, 'conversation_variables', j, 'name'], message: `duplicate variable "${v.name}"` });
        names.add(v.name);
        if (!fitsValueType(v.value_type, v.value)) {
          ctx.addIssue({ code: 'custom', path: ['apps', i, 'conversation_variables', j, 'value'], message: `not a value of type ${v.value_type}` });
        }
      });
      a.workflow?.nodes.forEach((n, j) => {
        if (n.type === 'answer' && a.mode !== 'advanced-chat') {
          ctx.addIssue({ code: 'custom', path: ['apps', i, 'workflow', 'nodes', j, 'type'], message: 'answer nodes belong to Chatflow (advanced-chat) apps' });
        }
      });
    });
  });

export type Fixture = z.infer<typeof fixtureSchema>;
export type FixtureApp = Fixture['apps'][number];
export type FixtureWorkflow = NonNullable<FixtureApp['workflow']>;
export type WorkflowNode = FixtureWorkflow['nodes'][number];
export type HumanInputNode = Extract<WorkflowNode, { type: 'human-input' }>;
export type FixtureEdge = FixtureWorkflow['edges'][number];
export type InputVariable = z.infer<typeof inputVariable>;
export type ConversationVariableSeed = FixtureApp['conversation_variables'][number];
export type VoiceConfig = z.infer<typeof voice>;
export type ValueType = (typeof VALUE_TYPES)[number];

/** A fixture that does not validate: names the file, each failing path and its reason. */
export class FixtureError extends Error {
  constructor(
    readonly file: string,
    readonly problems: { path: string; reason: string }[],
  ) {
    super(`Invalid fixture ${file}:\n${problems.map((p) => `  at ${p.path || '(root)'}: ${p.reason}`).join('\n')}`);
    this.name = 'FixtureError';
  }
}

/** Validates a parsed fixture; `file` only names it in errors. */
export function parseFixture(data: unknown, file = '(inline fixture)'): Fixture {
  const result = fixtureSchema.safeParse(data);
  if (result.success) return result.data;
  throw new FixtureError(
    file,
    result.error.issues.map((issue) => ({
      path: issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, ''),
      reason: issue.message,
    })),
  );
}

export const DEFAULT_FIXTURE_PATH = fileURLToPath(new URL('../../demo/fixtures/default.json', import.meta.url));

/** Reads and validates a fixture file (the default fixture when no path is given). */
export async function loadFixture(path = DEFAULT_FIXTURE_PATH): Promise<Fixture> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new FixtureError(path, [{ path: '', reason: `cannot read the file (${(error as Error).message})` }]);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new FixtureError(path, [{ path: '', reason: `not valid JSON (${(error as Error).message})` }]);
  }
  return parseFixture(data, path);
}

/**
 * A raw fixture with every stream delay (`chunk_delay_ms`) set to 0, changed in place: for load
 * and memory measurements and tests that run many runs, where only what is kept matters.
 */
export function withoutStreamDelays<T>(raw: T): T {
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if (key === 'chunk_delay_ms') (value as Record<string, unknown>)[key] = 0;
        else walk(child);
      }
    }
  };
  walk(raw);
  return raw;
}
