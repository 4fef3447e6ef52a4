/**
 * The house rules of DESIGN.md, checked on the source: dependencies point one way, browser code
 * imports no Node code, the relay never imports the service, and the relay's core stays
 * runnable on edge runtimes.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { test } from 'node:test';

const SRC = 'src';

function sources(): string[] {
  return readdirSync(SRC, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(SRC, f));
}

/** Every module specifier a file imports or re-exports. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:import|export)\s[^'"`;]*?from\s+['"]([^'"]+)['"]|import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)];
  return specifiers.map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** The part of src/ a specifier lands in (`protocol`, `client`, …), or the package name. */
function target(file: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  const resolved = relative(SRC, normalize(join(dirname(file), specifier)));
  return resolved.startsWith('..') ? `outside:${resolved}` : resolved.split('/')[0]!;
}

const partOf = (file: string) => relative(SRC, file).split('/')[0]!;

const ALLOWED_PARTS: Record<string, string[]> = {
  protocol: ['protocol'],
  client: ['client', 'protocol'],
  elements: ['elements', 'client', 'protocol'],
  relay: ['relay', 'protocol'],
  service: ['service', 'protocol'],
  cli: ['cli', 'service', 'protocol'],
  // The elements' entry: their classes, and the protocol types their events carry.
  'index.ts': ['elements', 'protocol'],
};

test('dependencies point one way between the parts', () => {
  const problems: string[] = [];
  for (const file of sources()) {
    const part = partOf(file);
    for (const specifier of importsOf(file)) {
      if (!specifier.startsWith('.')) continue;
      const to = target(file, specifier);
      if (!ALLOWED_PARTS[part]?.includes(to)) problems.push(`${file} imports ${specifier} (${part} → ${to})`);
    }
  }
  assert.deepEqual(problems, []);
});

test('browser code (elements, client, protocol) imports no Node module', () => {
  const browserParts = ['elements', 'client', 'protocol'];
  const nodeOnly = /^(node:|@hono\/|hono|jose|zod|vite|playwright)/;
  const problems = sources()
    .filter((f) => browserParts.includes(partOf(f)))
    .flatMap((f) => importsOf(f).filter((s) => nodeOnly.test(s)).map((s) => `${f} imports ${s}`));
  assert.deepEqual(problems, []);
});

test("the relay's edge entries reach nothing Node-specific (edge runtimes)", () => {
  // `hitl-elements/relay` and `/relay/redis-http` are what Workers, Vercel Edge and Next.js
  // mount; `/relay/node` (and the Node transport it alone imports) and `/relay/redis` are Node's.
  const reached = new Set<string>();
  const visit = (file: string) => {
    if (reached.has(file)) return;
    reached.add(file);
    for (const s of importsOf(file)) if (s.startsWith('.')) visit(normalize(join(dirname(file), s.replace(/\.js$/, '.ts'))));
  };
  for (const entry of ['index.ts', 'redis-http.ts']) visit(join(SRC, 'relay', entry));
  assert.ok(reached.has(join(SRC, 'relay', 'relay.ts')), 'the walk reaches the relay itself');
  const problems = [...reached].flatMap((f) => importsOf(f).filter((s) => s.startsWith('node:') || s.startsWith('@hono/node')).map((s) => `${f} imports ${s}`));
  assert.deepEqual(problems, []);
});

test("the client's browser entry does not reach the knowledge side", () => {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const s of importsOf(file)) {
      if (s.startsWith('.')) visit(normalize(join(dirname(file), s.replace(/\.js$/, '.ts'))));
    }
  };
  visit(join(SRC, 'client', 'index.ts'));
  const knowledge = [...seen].filter((f) => /knowledge/.test(f) && !f.endsWith('protocol/index.ts') && !f.includes('protocol/'));
  assert.deepEqual(knowledge, []);
});
