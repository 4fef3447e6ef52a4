/**
 * `GET /datasets/{id}/pipeline/datasource-plugins` over real HTTP through KnowledgeClient: the
 * published and draft versions of the fixture's knowledge pipeline, credentials, user input
 * variables derived from the nodes' datasource parameters, `is_published` parsing, and the real
 * errors for knowledge bases without a pipeline (service-api.md 5, dify-wire.md §7).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KnowledgeClient } from '../../src/client/knowledge.js';
import type { DatasourceNode } from '../../src/protocol/index.js';
import { ARCHIVE_ID, HANDBOOK_ID, rejects, startKnowledge, SUPPORT_FAQ_ID, uniqueName, type KnowledgeHarness } from './knowledge-helpers.js';

let h: KnowledgeHarness;
let kc: KnowledgeClient;

before(async () => {
  h = await startKnowledge();
  kc = h.kc;
});
after(() => h.close());

const byNode = (nodes: DatasourceNode[]) => Object.fromEntries(nodes.map((n) => [n.node_id, n]));
const vars = (node: DatasourceNode | undefined) => node?.user_input_variables.map((v) => v.variable);

describe('datasource plugins of Demo handbook', () => {
  test('the published version (the default) lists its datasource nodes of all four types', async () => {
    const nodes = await kc.listDatasourcePlugins(HANDBOOK_ID);
    assert.deepEqual(nodes.map((n) => n.node_id), ['datasource_file', 'datasource_notion', 'datasource_drive', 'datasource_web']);
    assert.deepEqual(nodes.map((n) => n.datasource_type).sort(), ['local_file', 'online_document', 'online_drive', 'website_crawl']);
    for (const n of nodes) {
      assert.deepEqual(Object.keys(n).sort(), ['credentials', 'datasource_type', 'node_id', 'plugin_id', 'provider_name', 'title', 'user_input_variables']);
      assert.ok(n.credentials.length > 0, `${n.node_id} has credentials`);
      assert.ok(n.user_input_variables.length > 0, `${n.node_id} has user input variables`);
      for (const c of n.credentials) assert.deepEqual(Object.keys(c).sort(), ['id', 'is_default', 'name', 'type']);
    }
    const m = byNode(nodes);
    assert.deepEqual(m.datasource_web, {
      node_id: 'datasource_web',
      plugin_id: 'langgenius/firecrawl_datasource',
      provider_name: 'firecrawl',
      datasource_type: 'website_crawl',
      title: 'Website crawl',
      user_input_variables: [
        { belong_to_node_id: 'datasource_web', type: 'text-input', label: 'Start URL', variable: 'start_url', required: true, max_length: 2048, placeholder: 'https://docs.example.com' },
        { belong_to_node_id: 'datasource_web', type: 'number', label: 'Page limit', variable: 'max_pages', required: false, default_value: 10, unit: 'pages' },
      ],
      credentials: [{ id: '474c0d6e-d8df-4d11-bedf-d6929ea498b3', name: 'Firecrawl key', type: 'api-key', is_default: true }],
    });
    assert.deepEqual(vars(m.datasource_file), ['doc_language'], 'a variable selector references a shared variable');
    assert.deepEqual(m.datasource_notion?.credentials.map((c) => [c.name, c.is_default]), [['Demo workspace', true], ['Engineering wiki', false]]);
  });

  test('the draft differs: another node, a renamed node and another variable', async () => {
    const published = await kc.listDatasourcePlugins(HANDBOOK_ID, { is_published: true });
    const draft = await kc.listDatasourcePlugins(HANDBOOK_ID, { is_published: false });
    assert.notDeepEqual(draft, published);
    assert.deepEqual(draft.map((n) => n.node_id), ['datasource_file', 'datasource_notion', 'datasource_drive', 'datasource_web', 'datasource_confluence']);
    const m = byNode(draft);
    assert.equal(m.datasource_web?.title, 'Website crawl (with subpages)');
    assert.deepEqual(vars(m.datasource_web), ['start_url', 'max_pages', 'crawl_sub_pages']);
    assert.equal(m.datasource_confluence?.datasource_type, 'online_document');
    assert.deepEqual(vars(m.datasource_confluence), ['space_key']);
    assert.equal(m.datasource_confluence?.credentials[0]?.name, 'Team space');
  });

  test('is_published is read as a boolean', async () => {
    const count = async (value: string) =>
      (await kc.transport.json<DatasourceNode[]>('GET', `/datasets/${HANDBOOK_ID}/pipeline/datasource-plugins`, { query: { is_published: value } })).length;
    assert.equal(await count('false'), 5);
    assert.equal(await count('0'), 5);
    assert.equal(await count('true'), 4);
    assert.equal(await count('1'), 4);
    await rejects(kc.transport.json('GET', `/datasets/${HANDBOOK_ID}/pipeline/datasource-plugins`, { query: { is_published: 'maybe' } }), {
      status: 400,
      code: 'invalid_param',
      message: /is_published\n {2}Input should be a valid boolean/,
    });
  });

  test('the scoped key may read them; other knowledge bases stay forbidden', async () => {
    assert.equal((await h.scoped.listDatasourcePlugins(HANDBOOK_ID)).length, 4);
    await rejects(h.scoped.listDatasourcePlugins(SUPPORT_FAQ_ID), { status: 403, code: 'forbidden' });
  });
});

describe('knowledge bases without a (published) pipeline', () => {
  test('no pipeline: 400 "Pipeline not found"', async () => {
    await rejects(kc.listDatasourcePlugins(ARCHIVE_ID), { status: 400, code: 'invalid_param', message: 'Pipeline not found' });
    const fresh = await kc.createDataset({ name: uniqueName('NoPipe') });
    await rejects(kc.listDatasourcePlugins(fresh.id, { is_published: false }), { status: 400, code: 'invalid_param', message: 'Pipeline not found' });
    await rejects(kc.listDatasourcePlugins('00000000-0000-4000-8000-000000000000'), { status: 404, code: 'not_found', message: 'Dataset not found.' });
  });

  test('a pipeline never published: the draft is listed, the published version is not found', async () => {
    const draftOnly = await startKnowledge((raw) => {
      raw.knowledge.pipelines[0].published = null;
    });
    try {
      await rejects(draftOnly.kc.listDatasourcePlugins(HANDBOOK_ID), { status: 400, code: 'invalid_param', message: 'Pipeline or workflow not found' });
      assert.equal((await draftOnly.kc.listDatasourcePlugins(HANDBOOK_ID, { is_published: false })).length, 5);
      assert.equal((await draftOnly.kc.getDataset(HANDBOOK_ID)).is_published, false);
    } finally {
      await draftOnly.close();
    }
  });

  test('user input variables follow the parameters that reference them', async () => {
    const custom = await startKnowledge((raw) => {
      const node = raw.knowledge.pipelines[0].published.nodes.find((n: { id: string }) => n.id === 'datasource_drive');
      node.data.datasource_parameters = {
        folder: { type: 'mixed', value: '{{#rag.shared.doc_language#}}' },
        depth: { type: 'variable', value: ['rag', 'datasource_web', 'max_pages'] },
        note: { type: 'constant', value: 'plain text, no reference' },
      };
    });
    try {
      const nodes = byNode(await custom.kc.listDatasourcePlugins(HANDBOOK_ID));
      assert.deepEqual(vars(nodes.datasource_drive), ['doc_language', 'max_pages']);
    } finally {
      await custom.close();
    }
  });
});
