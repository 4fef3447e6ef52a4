/**
 * The fixture's `knowledge` section: the default fixture's contents, and validation errors that
 * name the path and the reason.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KnowledgeClient } from '../../src/client/knowledge.js';
import { FixtureError, loadFixture, parseFixture, startService } from '../../src/service/index.js';
import { defaultFixtureJson, HANDBOOK_ID, rejects, type RawFixture } from './knowledge-helpers.js';

function problems(mutate: (raw: RawFixture) => void): { path: string; reason: string }[] {
  const raw = defaultFixtureJson();
  mutate(raw);
  try {
    parseFixture(raw, 'test.json');
  } catch (error) {
    assert.ok(error instanceof FixtureError, String(error));
    assert.match(error.message, /^Invalid fixture test\.json:/);
    return error.problems;
  }
  assert.fail('the fixture was accepted');
}

describe('the default fixture', () => {
  test('has the two knowledge keys, Demo handbook and models of both kinds', async () => {
    const fixture = await loadFixture();
    const kn = fixture.knowledge!;
    assert.deepEqual(kn.keys.map((k) => k.key), ['dataset-demo', 'dataset-demo-scoped']);
    assert.deepEqual(kn.keys[1]?.datasets, ['Demo handbook']);
    const handbook = kn.datasets.find((d) => d.name === 'Demo handbook')!;
    assert.equal(handbook.id, HANDBOOK_ID);
    assert.ok(handbook.documents.length >= 3);
    assert.ok(handbook.tags.length >= 1);
    assert.ok(handbook.pipeline);
    assert.ok(kn.models.some((m) => m.model_type === 'text-embedding'));
    assert.ok(kn.models.some((m) => m.model_type === 'rerank'));
    assert.ok(kn.subscription.knowledge_rate_limit!.limit > 0);
    assert.ok(fixture.apps.length >= 1, 'the app entries are still there');
  });
});

describe('validation names the path and the reason', () => {
  test('a scope naming an unknown knowledge base', () => {
    const found = problems((raw) => {
      raw.knowledge.keys[1].datasets = ['Demo handbook', 'Nope'];
    });
    assert.deepEqual(found, [{ path: 'knowledge.keys[1].datasets[1]', reason: 'no knowledge base named "Nope"' }]);
  });

  test('ids, names, keys', () => {
    const found = problems((raw) => {
      raw.knowledge.datasets[0].id = 'handbook';
      raw.knowledge.datasets[1].name = raw.knowledge.datasets[2].name;
      raw.knowledge.keys[0].key = 'app-knowledge';
    });
    const paths = found.map((p) => p.path);
    assert.ok(paths.includes('knowledge.datasets[0].id'), paths.join(', '));
    assert.ok(paths.includes('knowledge.keys[0].key'), paths.join(', '));
    assert.match(found.find((p) => p.path === 'knowledge.datasets[0].id')!.reason, /UUID/);
    assert.match(found.find((p) => p.path === 'knowledge.keys[0].key')!.reason, /start with "dataset-"/);
  });

  test('duplicate knowledge base names', () => {
    const found = problems((raw) => {
      raw.knowledge.datasets[2].name = 'Support FAQ';
    });
    assert.deepEqual(found, [{ path: 'knowledge.datasets[2].name', reason: 'duplicate knowledge base name "Support FAQ"' }]);
  });

  test('a retrieval model breaking the seed rules', () => {
    const found = problems((raw) => {
      raw.knowledge.datasets[0].retrieval_model.reranking_mode = null;
    });
    assert.deepEqual(found, [{ path: 'knowledge.datasets[0].retrieval_model.reranking_mode', reason: 'Value error, reranking_mode is required when reranking_enable is true' }]);
  });

  test('references to tags, pipelines and accounts; datasource nodes', () => {
    const found = problems((raw) => {
      raw.knowledge.datasets[0].tags.push('Missing');
      raw.knowledge.datasets[0].pipeline = 'Nope';
      raw.knowledge.datasets[3].created_by = 'ghost';
      delete raw.knowledge.pipelines[0].draft.nodes[0].data.plugin_id;
    });
    assert.deepEqual(
      found.map((p) => `${p.path}: ${p.reason}`).sort(),
      [
        'knowledge.datasets[0].pipeline: no knowledge pipeline "Nope"',
        'knowledge.datasets[0].tags[2]: no tag "Missing"',
        'knowledge.datasets[3].created_by: no account "ghost"',
        'knowledge.pipelines[0].draft.nodes[0].data.plugin_id: a datasource node needs it',
      ],
    );
  });

  test('model providers must be full identifiers', () => {
    const found = problems((raw) => {
      raw.knowledge.models[0].provider = 'openai';
    });
    assert.deepEqual(found, [{ path: 'knowledge.models[0].provider', reason: 'must be "<organization>/<plugin_name>/<provider_name>"' }]);
  });
});

describe('a fixture without a knowledge section', () => {
  test('knowledge keys are all invalid', async () => {
    const raw = defaultFixtureJson();
    delete raw.knowledge;
    const svc = await startService({ fixture: parseFixture(raw), port: 0 });
    try {
      const kc = new KnowledgeClient({ baseUrl: svc.url, credential: 'dataset-demo' });
      await rejects(kc.listDatasets(), { status: 401, code: 'unauthorized', message: 'Access token is invalid' });
    } finally {
      await svc.close();
    }
  });
});
