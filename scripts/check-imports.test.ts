/**
 * `npm run check:imports`: the repository keeps the import direction of
 * docs/architecture.md (ui → store → core, no cycles), and the check itself
 * fails on a bad import and on a cycle.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkImports, CORE_ORDER, cyclesOf, importViolations, layerOf, readProjectImports } from './check-imports';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('this repository', () => {
  // Reads every file of src/: about a second alone, over 5 s beside the rest of the suite on 2 cores.
  it('keeps the import direction and has no import cycle', () => {
    expect(checkImports(root)).toEqual([]);
  }, 60_000);
});

describe('layers', () => {
  it('every folder of src/ but store, ui and monaco is core; files directly in src/ are the entry', () => {
    expect(['src/k8s/path.ts', 'src/admission/simulate.ts', 'src/some-new-folder/x.ts', 'src/cel/a/b.ts'].map(layerOf)).toEqual([
      'core',
      'core',
      'core',
      'core',
    ]);
    expect(['src/ui/App.tsx', 'src/store/index.ts', 'src/monaco/setup.ts', 'src/main.tsx'].map(layerOf)).toEqual(['ui', 'store', 'monaco', 'entry']);
  });
});

describe('importViolations (modules given in memory)', () => {
  const clean = [
    { file: 'src/k8s/path.ts', specifiers: [] },
    { file: 'src/store/index.ts', specifiers: ['../k8s/path', 'zustand'] },
    { file: 'src/ui/App.tsx', specifiers: ['../store', 'react', '../monaco/setup'] },
    { file: 'src/monaco/setup.ts', specifiers: ['monaco-editor/editor', '../k8s/path'] },
    { file: 'src/main.tsx', specifiers: ['./ui/App', 'react-dom/client'] },
  ];
  it('accepts ui → store → core', () => {
    expect(importViolations(clean)).toEqual([]);
  });
  it('rejects core importing store, ui, monaco or a UI package', () => {
    const bad = [
      ...clean.slice(1),
      { file: 'src/k8s/path.ts', specifiers: ['../store', '../ui/App', 'react/jsx-runtime', '../monaco/setup.ts', 'monaco-yaml'] },
      { file: 'src/new-core/x.ts', specifiers: ['zustand', '@scope/react'] },
    ];
    expect(importViolations(bad)).toEqual([
      "src/k8s/path.ts: imports src/store/index.ts ('../store'), but core never imports src/store",
      "src/k8s/path.ts: imports src/ui/App.tsx ('../ui/App'), but core never imports src/ui",
      "src/k8s/path.ts: imports 'react/jsx-runtime', but core never imports react",
      "src/k8s/path.ts: imports src/monaco/setup.ts ('../monaco/setup.ts'), but core never imports src/monaco",
      "src/k8s/path.ts: imports 'monaco-yaml', but core never imports monaco-yaml",
      'src/new-core/x.ts: src/new-core is core but has no place in CORE_ORDER (scripts/check-imports.ts)',
      "src/new-core/x.ts: imports 'zustand', but core never imports zustand",
      'import cycle: src/k8s/path.ts → src/store/index.ts → src/k8s/path.ts',
    ]);
  });
  it('rejects store importing ui or monaco, and JSX in core', () => {
    const bad = [...clean, { file: 'src/store/x.ts', specifiers: ['../ui/App', 'monaco-editor'] }, { file: 'src/k8s/view.tsx', specifiers: [] }];
    expect(importViolations(bad)).toEqual([
      "src/store/x.ts: imports src/ui/App.tsx ('../ui/App'), but store never imports src/ui",
      "src/store/x.ts: imports 'monaco-editor', but store never imports monaco-editor",
      'src/k8s/view.tsx: core module written in JSX (core never uses React)',
    ]);
  });
  it('rejects ui calling the CEL engine or the YAML parser itself (types of src/cel/types.ts are fine)', () => {
    const modules = [
      ...clean,
      { file: 'src/cel/index.ts', specifiers: ['./types'] },
      { file: 'src/cel/types.ts', specifiers: [] },
      { file: 'src/yaml/index.ts', specifiers: [] },
      { file: 'src/ui/cel/use-cel.ts', specifiers: ['../../cel', '../../cel/types', '../../yaml'] },
    ];
    expect(importViolations(modules)).toEqual([
      "src/ui/cel/use-cel.ts: imports src/cel/index.ts ('../../cel'), but ui reaches src/cel only through the store",
      "src/ui/cel/use-cel.ts: imports src/yaml/index.ts ('../../yaml'), but ui reaches src/yaml only through the store",
    ]);
  });
  it('keeps the order inside the core: only downward, never beside, every folder placed', () => {
    expect(CORE_ORDER[0]).toEqual(['base']);
    expect(CORE_ORDER.at(-1)).toEqual(['cli']);
    const modules = [
      { file: 'src/base/path.ts', specifiers: [] },
      { file: 'src/yaml/index.ts', specifiers: ['../base/path'] },
      { file: 'src/k8s/index.ts', specifiers: ['../yaml', '../base/path'] },
      { file: 'src/cli/main.ts', specifiers: ['../k8s', '../yaml'] },
    ];
    expect(importViolations(modules)).toEqual([]);
    const bad = [
      ...modules,
      { file: 'src/cel/types.ts', specifiers: ['../k8s/index.ts', '../yaml'] },
      { file: 'src/request/model.ts', specifiers: ['../policy/cases'] },
      { file: 'src/policy/cases.ts', specifiers: [] },
      { file: 'src/base/json.ts', specifiers: ['../cli/main'] },
    ];
    expect(importViolations(bad)).toEqual([
      "src/cel/types.ts: imports src/k8s/index.ts ('../k8s/index.ts'), but src/cel sits below src/k8s in the core's order",
      "src/cel/types.ts: imports src/yaml/index.ts ('../yaml'), but src/cel sits beside src/yaml in the core's order",
      "src/request/model.ts: imports src/policy/cases.ts ('../policy/cases'), but src/request sits below src/policy in the core's order",
      "src/base/json.ts: imports src/cli/main.ts ('../cli/main'), but src/base sits below src/cli in the core's order",
    ]);
  });
  it('lets only tests, benches and test helpers import the test data (fixtures/)', () => {
    const modules = [
      ...clean,
      { file: 'src/k8s/a.test.ts', specifiers: ['../../fixtures'] },
      { file: 'src/yaml/b.bench.ts', specifiers: ['../../fixtures/index'] },
      { file: 'src/cel/test-helpers.ts', specifiers: ['../../fixtures'] },
      { file: 'src/k8s/fixes/c.test.ts', specifiers: ['./fixtures/own.yaml', '../../../fixtures'] },
      { file: 'src/k8s/path.ts', specifiers: ['../../fixtures'] },
      { file: 'src/store/gallery.ts', specifiers: ['../../fixtures/realworld/01-cert-manager-webhooks.yaml?raw'] },
    ];
    expect(importViolations(modules)).toEqual([
      "src/k8s/path.ts: imports the test data ('../../fixtures'), but only tests, benches and test helpers import fixtures/",
      "src/store/gallery.ts: imports the test data ('../../fixtures/realworld/01-cert-manager-webhooks.yaml?raw'), but only tests, benches and test helpers import fixtures/",
    ]);
  });
  it('rejects cycles, long and short, and names one path through each', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
      ['f', ['g']],
      ['g', ['f']],
    ]);
    expect(cyclesOf(graph)).toEqual(expect.arrayContaining([['a', 'b', 'c'], ['e'], ['f', 'g']]));
    expect(cyclesOf(graph)).toHaveLength(3);
    const modules = [...clean, { file: 'src/yaml/a.ts', specifiers: ['./b'] }, { file: 'src/yaml/b.ts', specifiers: ['./a.ts'] }];
    expect(importViolations(modules)).toEqual(['import cycle: src/yaml/a.ts → src/yaml/b.ts → src/yaml/a.ts']);
  });
});

describe('readProjectImports + importViolations on files on disk', () => {
  const dir = mkdtempSync(join(tmpdir(), 'check-imports-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  };
  write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'ESNext', moduleResolution: 'bundler', jsx: 'preserve', types: [] },
      include: ['src'],
    }),
  );
  write('src/store/index.ts', 'export const store = 1;\n');
  write('src/ui/App.tsx', "import { store } from '../store';\nexport const App = () => <div>{store}</div>;\n");
  // A deliberately bad import, type-only and behind a comment and a string that look like imports.
  write(
    'src/k8s/path.ts',
    "// import '../ui/App';\nconst s = \"import '../store'\";\nimport type { App } from '../ui/App';\nexport type A = typeof App;\nexport const t = s;\n",
  );
  // A cycle carried by a type-only import and an `import('…')` type.
  write('src/yaml/construct.ts', "import type { J } from './json';\nexport type C = J | number;\n");
  write('src/yaml/json.ts', "export type J = import('./construct').C[];\nexport const load = () => import('../k8s/path');\n");

  it('reads type-only imports, re-exports and import() (not comments or strings)', () => {
    expect(readProjectImports(dir)).toEqual([
      { file: 'src/k8s/path.ts', specifiers: ['../ui/App'] },
      { file: 'src/store/index.ts', specifiers: [] },
      { file: 'src/ui/App.tsx', specifiers: ['../store'] },
      { file: 'src/yaml/construct.ts', specifiers: ['./json'] },
      { file: 'src/yaml/json.ts', specifiers: ['./construct', '../k8s/path'] },
    ]);
  });
  it('fails on the bad import and on the cycle', () => {
    expect(checkImports(dir)).toEqual([
      "src/k8s/path.ts: imports src/ui/App.tsx ('../ui/App'), but core never imports src/ui",
      "src/yaml/json.ts: imports src/k8s/path.ts ('../k8s/path'), but src/yaml sits below src/k8s in the core's order",
      'import cycle: src/yaml/construct.ts → src/yaml/json.ts → src/yaml/construct.ts',
    ]);
  });
});
