/**
 * The fixture: the apps (and later knowledge bases) the embedded service serves. It is JSON,
 * validated at load so that a mistake names its file, its path and the reason.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
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

const workflowNode = z.discriminatedUnion('type', [
  z.object({
    ...nodeBase,
    type: z.literal('start'),
    /** The run's inputs, as `/parameters` lists them in `user_input_form`. */
    variables: z
      .array(
        z.object({
          variable: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/),
          label: z.string(),
          type: z.enum(['text-input', 'paragraph', 'select', 'number']).default('text-input'),
          required: z.boolean().default(false),
          default: z.string().default(''),
          options: z.array(z.string()).optional(),
        }),
      )
      .default([]),
  }),
  z.object({
    ...nodeBase,
    type: z.literal('llm'),
    /** Template of the generated text; `{{#node.var#}}` references are substituted. */
    text: z.string(),
    chunk_size: z.number().int().min(1).default(8),
    chunk_delay_ms: z.number().int().min(0).default(15),
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

const edge = z.object({ source: id, target: id, source_handle: z.string().optional() });

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

const app = z.object({
  id,
  key: z.string().regex(/^app-/, 'app keys start with "app-"'),
  name: z.string(),
  description: z.string().default(''),
  mode: z.enum(['advanced-chat', 'workflow', 'agent', 'chat', 'agent-chat', 'completion']),
  author_name: z.string().default('Demo'),
  tags: z.array(z.string()).default([]),
  site,
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
    });
  });

export type Fixture = z.infer<typeof fixtureSchema>;
export type FixtureApp = Fixture['apps'][number];
export type FixtureWorkflow = NonNullable<FixtureApp['workflow']>;
export type WorkflowNode = FixtureWorkflow['nodes'][number];
export type HumanInputNode = Extract<WorkflowNode, { type: 'human-input' }>;

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
