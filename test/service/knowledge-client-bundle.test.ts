/**
 * Build check: a browser bundle of the app-side client entry (`src/client/index.ts`) contains
 * nothing of the knowledge side, while the knowledge entry (`src/client/knowledge.ts`) does.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../../', import.meta.url));

async function bundle(entry: string): Promise<{ code: string; inputs: string[] }> {
  const result = await build({
    entryPoints: [`${root}${entry}`],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    minify: false,
    logLevel: 'silent',
    absWorkingDir: root,
  });
  return { code: result.outputFiles[0]!.text, inputs: Object.keys(result.metafile.inputs) };
}

/** Marks only the knowledge side has. */
const KNOWLEDGE_MARKS = ['KnowledgeClient', 'createDocumentByText', '/datasets', 'datasource-plugins', 'indexing-status', 'knowledge-client'];

describe('client bundles', () => {
  test('the app-side entry bundles for the browser without any knowledge operation', async () => {
    const app = await bundle('src/client/index.ts');
    assert.ok(app.code.includes('AppClient'), 'the app client is in it');
    assert.ok(!app.inputs.some((i) => i.includes('knowledge-client') || i.endsWith('client/knowledge.ts')), app.inputs.join(', '));
    for (const mark of KNOWLEDGE_MARKS) assert.ok(!app.code.includes(mark), `"${mark}" is in the app-side bundle`);
    assert.ok(!/node:/.test(app.code), 'no Node built-ins');
  });

  test('the knowledge entry carries the knowledge operations (the check above can see them)', async () => {
    const knowledge = await bundle('src/client/knowledge.ts');
    for (const mark of ['KnowledgeClient', 'createDocumentByText', '/datasets', 'datasource-plugins', 'indexing-status']) {
      assert.ok(knowledge.code.includes(mark), `"${mark}" missing from the knowledge bundle`);
    }
  });
});
