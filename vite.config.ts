/**
 * The script-tag bundle: every element and its dependencies in one minified IIFE that registers
 * the tags when loaded, plus one small file per shipped locale beside it (loaded on demand).
 * The ESM package itself is emitted by `tsc -p tsconfig.build.json`.
 */
import { transform as transformCss } from 'lightningcss';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, parseAst, transformWithOxc, type Plugin } from 'vite';

const src = (path: string) => fileURLToPath(new URL(`src/elements/${path}`, import.meta.url));

/**
 * Minifies the CSS of Lit `css` templates (the `*styles.ts` modules, which interpolate nothing)
 * with lightningcss: the bundle has a size budget, and template text is left alone by JS
 * minifiers.
 */
function minifyLitCss(): Plugin {
  return {
    name: 'hitl:minify-lit-css',
    transform(code, id) {
      if (!id.endsWith('styles.ts')) return undefined;
      const out = code.replace(/\bcss`([^`$\\]*)`/g, (_, text: string) => {
        const minified = transformCss({ filename: id, code: Buffer.from(text), minify: true }).code.toString();
        return `css\`${minified}\``;
      });
      return { code: out, map: null };
    },
  };
}

/**
 * Collapses the line breaks and indentation in Lit `html` templates of the elements to one space,
 * which renders the same (no template holds text in `<pre>` or a `<textarea>`): JS minifiers
 * leave template text alone, and the bundle has a size budget.
 */
function minifyLitHtml(): Plugin {
  return {
    name: 'hitl:minify-lit-html',
    transform(code, id) {
      if (!id.includes('/src/elements/') || !id.endsWith('.ts') || !code.includes('html`')) return undefined;
      const spans: { start: number; end: number }[] = [];
      const visit = (node: unknown): void => {
        if (!node || typeof node !== 'object') return;
        const n = node as { type?: string; tag?: { type: string; name?: string }; quasi?: { quasis: { start: number; end: number }[] } };
        if (n.type === 'TaggedTemplateExpression' && n.tag?.type === 'Identifier' && n.tag.name === 'html') spans.push(...n.quasi!.quasis);
        for (const value of Object.values(node)) visit(value);
      };
      visit(parseAst(code, { lang: 'ts' }));
      // Each quasi's span includes its delimiters (`, ${, }), none of which holds a line break.
      let out = '';
      let at = 0;
      for (const { start, end } of spans.sort((a, b) => a.start - b.start)) {
        out += code.slice(at, start) + code.slice(start, end).replace(/[ \t]*\n\s*/g, ' ');
        at = end;
      }
      return { code: out + code.slice(at), map: null };
    },
  };
}

/** Emits `hitl-elements.<locale>.js` for each shipped locale (`src/elements/locales/*.ts`). */
function localeFiles(): Plugin {
  return {
    name: 'hitl:locale-files',
    async generateBundle() {
      for (const file of readdirSync(src('locales')).filter((f) => f.endsWith('.ts'))) {
        const { code } = await transformWithOxc(readFileSync(src(`locales/${file}`), 'utf8'), file);
        this.emitFile({ type: 'asset', fileName: `hitl-elements.${file.replace(/\.ts$/, '')}.js`, source: code });
      }
    },
  };
}

export default defineConfig({
  define: {
    'process.env.NODE_ENV': JSON.stringify('production'),
    // The bundle runs in a browser (its banner below checks once): the define modules' own Node
    // guards fold away.
    'typeof document': JSON.stringify('object'),
  },
  plugins: [minifyLitCss(), minifyLitHtml(), localeFiles()],
  resolve: {
    // An IIFE cannot split chunks: the bundle loads locales as files beside itself instead.
    alias: [
      { find: /^\.\/locale-loader\.js$/, replacement: src('shared/locale-loader.script.ts') },
      { find: /^\.\/companion-locale-loader\.js$/, replacement: src('shared/companion-locale-loader.script.ts') },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    minify: true,
    sourcemap: true,
    reportCompressedSize: false,
    rolldownOptions: {
      // Imported in Node (`hitl-elements/script` in a server build), the bundle does nothing: the
      // browser registers the tags.
      output: { banner: "if(typeof document<'u'){", footer: '}' },
    },
    lib: {
      entry: 'src/elements/define-all.ts',
      formats: ['iife'],
      name: 'HitlElements',
      fileName: () => 'hitl-elements.js',
    },
  },
});
