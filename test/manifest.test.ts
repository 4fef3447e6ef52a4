/** `custom-elements.json` is generated from the elements' JSDoc and committed; it must be current. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const pkgFiles = (JSON.parse(readFileSync('package.json', 'utf8')) as { files: string[] }).files;

test('the committed custom-elements.json matches the source (run `npm run analyze` to refresh it)', () => {
  // The analyzer resolves its outdir against the working directory.
  const dir = `.cem-check-${process.pid}`;
  try {
    execFileSync('node_modules/.bin/cem', ['analyze'], { env: { ...process.env, CEM_OUTDIR: dir }, stdio: 'pipe' });
    const generated = JSON.parse(readFileSync(join(dir, 'custom-elements.json'), 'utf8'));
    const committed = JSON.parse(readFileSync('custom-elements.json', 'utf8'));
    assert.deepEqual(committed, generated);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every element in the manifest documents its tag, events and parts', () => {
  const manifest = JSON.parse(readFileSync('custom-elements.json', 'utf8')) as {
    modules: { declarations?: { customElement?: boolean; tagName?: string; events?: unknown[]; cssParts?: unknown[] }[] }[];
  };
  const elements = manifest.modules.flatMap((m) => m.declarations ?? []).filter((d) => d.customElement);
  assert.ok(elements.length > 0, 'no custom element in the manifest');
  for (const element of elements) {
    assert.ok(element.tagName, 'an element without @tag');
    assert.ok(element.events?.length, `${element.tagName} documents no events`);
    assert.ok(element.cssParts?.length, `${element.tagName} documents no parts`);
  }
});

interface ManifestEvent {
  name?: string;
  type?: { text?: string };
  description?: string;
}
const manifest = JSON.parse(readFileSync('custom-elements.json', 'utf8')) as {
  modules: { path: string; declarations?: { customElement?: boolean; tagName?: string; events?: ManifestEvent[] }[]; exports?: { declaration: { module?: string } }[] }[];
};

test('custom-elements.json is valid against the Custom Elements Manifest schema', async () => {
  const { Ajv } = await import('ajv');
  const schema = JSON.parse(readFileSync('node_modules/custom-elements-manifest/schema.json', 'utf8'));
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  assert.ok(validate(manifest), JSON.stringify(validate.errors, null, 2));
});

test('every event in custom-elements.json is a documented one, kebab-case, with its class (and detail) as type', () => {
  // Event classes a user can import: the package's own (exported by `hitl-elements`) and the DOM's.
  // Read, not imported: this program type-checks without the DOM library.
  const exported = (file: string): string => {
    const text = readFileSync(file, 'utf8');
    return text + [...text.matchAll(/^export \* from '(\.[^']+)\.js';$/gm)].map((m) => exported(join(file, '..', `${m[1]}.ts`))).join('\n');
  };
  const index = exported('src/index.ts');
  for (const element of manifest.modules.flatMap((m) => m.declarations ?? []).filter((d) => d.customElement)) {
    for (const event of element.events ?? []) {
      assert.match(event.name ?? '', /^[a-z]+(-[a-z]+)*$/, `${element.tagName}: event ${JSON.stringify(event.name)}`);
      assert.ok(event.description, `${element.tagName} ${event.name}: no description`);
      const type = event.type?.text ?? '';
      const eventClass = /^(\w+)/.exec(type)?.[1] ?? '';
      assert.ok(eventClass === 'Event' || new RegExp(`\\bexport (class ${eventClass}\\b|\\{[^}]*\\b${eventClass}\\b)`).test(index), `${element.tagName} ${event.name}: type ${JSON.stringify(type)} is not an event class the package exports`);
      if (eventClass === 'CompanionEvent') assert.match(type, /^CompanionEvent<.+>$/, `${element.tagName} ${event.name}: a CompanionEvent names its detail`);
      // Each companion event has a class of its own (`ConversationSelectedEvent`), as the form's do.
      assert.notEqual(eventClass, 'CompanionEvent', `${element.tagName} ${event.name}: typed as the generic CompanionEvent, not its own class`);
    }
  }
});

test('every module path in custom-elements.json names a file the package ships', () => {
  const built = new Set((readdirSync('src', { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => `dist/${f.replace(/\.ts$/, '.js')}`));
  const files = (pkgFiles as string[]).map((f) => f.replace(/\/$/, ''));
  const paths = new Set<string>();
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(collect);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'path' || key === 'module') && typeof value === 'string') paths.add(value);
      else collect(value);
    }
  };
  collect(manifest.modules);
  assert.ok(paths.size > 10);
  for (const path of paths) {
    assert.ok(built.has(path), `${path} is not built from a source file`);
    assert.ok(files.some((f) => path === f || path.startsWith(`${f}/`)), `${path} is outside package.json "files"`);
  }
});
