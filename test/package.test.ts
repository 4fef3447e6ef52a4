/**
 * The package's shape for ESM users: an entry point and a define module per element, `sideEffects`
 * naming exactly the modules that register tags, and every export backed by a source file.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  name: string;
  exports: Record<string, string | { types: string; import: string }>;
  sideEffects: string[];
};
const elementsDir = 'src/elements';
const elementFolders = readdirSync(elementsDir).filter((f) => existsSync(join(elementsDir, f, 'define.ts')));
const sourceFiles = (readdirSync('src', { recursive: true }) as string[]).map((f) => `src/${f}`).filter((f) => f.endsWith('.ts'));

/** The files (source and built) a `sideEffects` glob matches: `*` stays within one folder. */
function matches(glob: string, file: string): boolean {
  const pattern = glob.replace(/^\.\//, '').replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
  return new RegExp(`^${pattern}$`).test(file);
}
const builtFiles = sourceFiles.map((f) => f.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js')).concat('dist/hitl-elements.js');
const candidates = [...sourceFiles, ...builtFiles];
const withSideEffects = new Set(candidates.filter((f) => pkg.sideEffects.some((g) => matches(g, f))));

test('every element folder has a class entry and a define entry in "exports"', () => {
  assert.ok(elementFolders.length > 0);
  for (const name of elementFolders) {
    assert.deepEqual(pkg.exports[`./${name}`], {
      types: `./dist/types/elements/${name}/${name}.d.ts`,
      import: `./dist/elements/${name}/${name}.js`,
    });
    assert.deepEqual(pkg.exports[`./${name}/define`], {
      types: `./dist/types/elements/${name}/define.d.ts`,
      import: `./dist/elements/${name}/define.js`,
    });
  }
});

test('define-all (hitl-elements/define) registers every element, directly or through the define modules it imports', () => {
  const reached = new Set<string>();
  const visit = (file: string) => {
    for (const [, target] of readFileSync(file, 'utf8').matchAll(/^import '(\.{1,2}\/[^']*define\.js)';$/gm)) {
      const path = join(file, '..', target!).replace(/\.js$/, '.ts');
      if (!reached.has(path)) {
        reached.add(path);
        visit(path);
      }
    }
  };
  visit(join(elementsDir, 'define-all.ts'));
  for (const name of elementFolders) assert.ok(reached.has(join(elementsDir, name, 'define.ts')), `define-all.ts does not register ${name}`);
});

test('"sideEffects" lists exactly the modules that register tags', () => {
  const registering = [
    'src/elements/define-all.ts',
    'dist/elements/define-all.js',
    'dist/hitl-elements.js',
    // The form's parts (they register the file inputs) and the script-tag build's own entry and chunk.
    'src/elements/human-input-form/parts.ts',
    'dist/elements/human-input-form/parts.js',
    'src/elements/script.ts',
    'src/elements/script-parts.ts',
    ...elementFolders.flatMap((name) => [`src/elements/${name}/define.ts`, `dist/elements/${name}/define.js`]),
  ];
  assert.deepEqual([...withSideEffects].sort(), registering.sort());
  for (const glob of pkg.sideEffects) assert.ok(candidates.some((f) => matches(glob, f)), `"sideEffects" entry ${glob} matches nothing`);
});

test('no module outside the define modules registers a tag or imports one that does', () => {
  for (const file of sourceFiles.filter((f) => f.startsWith('src/') && !withSideEffects.has(f))) {
    const source = readFileSync(file, 'utf8');
    assert.doesNotMatch(source, /customElements\.define\(|@customElement\(/, `${file} registers a tag`);
    assert.doesNotMatch(source, /from '[^']*\/define(-all)?\.js'|import '[^']*\/define(-all)?\.js'/, `${file} imports a define module`);
  }
});

test('every ESM export is built from a source file', () => {
  for (const [entry, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string' || entry === './script') continue; // the bundle, the manifest and IDE data, package.json
    if (['./react', './vue', './svelte', './solid', './jsx'].includes(entry)) continue; // typings generated from the manifest by the build
    const source = target.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
    assert.ok(existsSync(source), `${entry} → ${target.import} has no source ${source}`);
    assert.equal(target.types, target.import.replace(/^\.\/dist\//, './dist/types/').replace(/\.js$/, '.d.ts'), `${entry}: types do not sit beside the module`);
  }
});

test('TAG_NAMES (hitl-elements/tags) lists exactly the tags of custom-elements.json', async () => {
  const { TAG_NAMES } = await import('../src/tags.js');
  const manifest = JSON.parse(readFileSync('custom-elements.json', 'utf8')) as { modules: { declarations?: { tagName?: string }[] }[] };
  const tags = manifest.modules.flatMap((m) => m.declarations ?? []).flatMap((d) => (d.tagName ? [d.tagName] : []));
  assert.deepEqual([...TAG_NAMES].sort(), [...new Set(tags)].sort());
});
