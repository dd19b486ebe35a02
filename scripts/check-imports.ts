/**
 * The import-direction rule of docs/architecture.md, checked on the imports the
 * TypeScript compiler reads (type-only imports, re-exports, `import()` calls and
 * `import('x').T` types included):
 *
 * - core = every folder of src/ except store, ui and monaco (k8s, cel, yaml,
 *   policy, request, admission, cli, share and any folder added later). Core
 *   never imports src/ui, src/store or src/monaco, nor react, react-dom, zustand,
 *   monaco-editor or monaco-yaml, and holds no .tsx file (JSX imports React).
 * - src/store never imports src/ui or src/monaco (nor the Monaco packages).
 * - src/ui reaches the CEL engine and the YAML parser only through the store
 *   (it may import the types of src/cel/types.ts).
 * - No import cycle between modules of src/.
 * - Only tests, benches and test helpers import the repository's test data (fixtures/), so
 *   none of it reaches the app or the CLI bundle.
 *
 * Files directly in src/ (main.tsx, the entry) may import anything. Run as
 * `npm run check:imports` (scripts/check-imports.test.ts, also part of `npm test`).
 */
import { existsSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { API } from 'typescript/unstable/sync';
import type { Node, SourceFile } from 'typescript/unstable/ast';
import { SyntaxKind } from 'typescript/unstable/ast';
import {
  isCallExpression,
  isExportDeclaration,
  isExternalModuleReference,
  isImportDeclaration,
  isImportEqualsDeclaration,
  isImportTypeNode,
  isLiteralTypeNode,
  isStringLiteral,
} from 'typescript/unstable/ast/is';

/** Folders of src/ that are not core. */
const EDGE_FOLDERS = ['store', 'ui', 'monaco'] as const;
const UI_PACKAGES = ['react', 'react-dom', 'zustand', 'monaco-editor', 'monaco-yaml'];
const MONACO_PACKAGES = ['monaco-editor', 'monaco-yaml'];

interface Rule {
  folders: readonly string[];
  packages: readonly string[];
  /** Files of the forbidden folders that may be imported all the same. */
  except?: readonly string[];
  why?: string;
}

/**
 * The order inside the core, bottom first: a core folder imports only folders of a lower rank
 * (peers of one rank never import each other). A core folder that is not listed is an error
 * until it is placed here (docs/architecture.md shows the same table).
 */
export const CORE_ORDER: readonly (readonly string[])[] = [
  ['base'], // paths, JSON helpers, JSON Patch, the release table
  ['yaml', 'cel'], // text ↔ values with positions; the CEL engine
  ['k8s'], // registry, defaulting, validation, lints, fixes
  ['request'], // the one admission request model (Attributes) and test inputs
  ['policy'], // admission policies: matching, evaluation, saved cases
  ['admission'], // the chain: webhooks and policies in order, lockout
  ['check', 'share'], // the one check pipeline; the workspace file and share links
  ['migrate'], // Gatekeeper and Kyverno policies converted into native admission
  ['impact'], // replaying a cluster's objects and audit log
  ['cli'], // the command line
];

/** The rank of a core folder in CORE_ORDER, or undefined when it is not placed. */
export function rankOf(folder: string): number | undefined {
  const i = CORE_ORDER.findIndex((r) => r.includes(folder));
  return i < 0 ? undefined : i;
}

/** What each layer may not import: folders of src/ and npm packages. */
const FORBIDDEN: Readonly<Record<string, Rule>> = {
  core: { folders: EDGE_FOLDERS, packages: UI_PACKAGES },
  store: { folders: ['ui', 'monaco'], packages: MONACO_PACKAGES },
  // The UI asks the store for CEL answers and parsed YAML (src/store/cel.ts, docPositions); it may read CEL's types.
  ui: { folders: ['cel', 'yaml'], packages: [], except: ['src/cel/types.ts'], why: 'through the store' },
};

export interface ModuleImports {
  /** Path relative to the project root, with forward slashes: `src/k8s/path.ts`. */
  file: string;
  /** Module specifiers as written (`../store`, `react/jsx-runtime`). */
  specifiers: string[];
}

/** The layer of a file under src/: its first folder, `core` for the rest, `entry` for files directly in src/. */
export function layerOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] !== 'src' || parts.length < 3) return 'entry';
  const folder = parts[1]!;
  return (EDGE_FOLDERS as readonly string[]).includes(folder) ? folder : 'core';
}

/** `react/jsx-runtime` → `react`, `@scope/pkg/x` → `@scope/pkg`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Test code: the only modules of src/ that may import the repository's test data (fixtures/). */
export const isTestModule = (file: string): boolean => /\.(test|bench)\.tsx?$/.test(file) || /(^|\/)test-helpers\.ts$/.test(file);

/** The file a relative specifier names, among the known files (vite `?worker`-style suffixes dropped). */
export function resolveRelative(from: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  const bare = specifier.replace(/\?.*$/, '');
  const base = posix.normalize(posix.join(posix.dirname(from), bare));
  const candidates = [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`];
  if (/\.(m?js|jsx)$/.test(base)) candidates.push(base.replace(/\.m?jsx?$/, '.ts'), base.replace(/\.m?jsx?$/, '.tsx'));
  return candidates.find((c) => known.has(c));
}

/** Every broken rule, one message per import, then one per cycle. */
export function importViolations(modules: readonly ModuleImports[]): string[] {
  const known = new Set(modules.map((m) => m.file));
  const graph = new Map<string, string[]>();
  const out: string[] = [];
  for (const m of modules) {
    const layer = layerOf(m.file);
    const rule = FORBIDDEN[layer];
    const edges: string[] = [];
    const from = m.file.split('/')[1]!;
    if (layer === 'core' && m.file.endsWith('.tsx')) out.push(`${m.file}: core module written in JSX (core never uses React)`);
    if (layer === 'core' && rankOf(from) === undefined) out.push(`${m.file}: src/${from} is core but has no place in CORE_ORDER (scripts/check-imports.ts)`);
    for (const spec of m.specifiers) {
      if (spec.startsWith('.')) {
        const named = posix.normalize(posix.join(posix.dirname(m.file), spec.replace(/\?.*$/, '')));
        if ((named === 'fixtures' || named.startsWith('fixtures/')) && !isTestModule(m.file)) {
          out.push(`${m.file}: imports the test data ('${spec}'), but only tests, benches and test helpers import fixtures/`);
        }
        const target = resolveRelative(m.file, spec, known);
        if (target === undefined) continue; // css, json and other assets
        edges.push(target);
        const folder = target.split('/')[1]!;
        if (rule && layerOf(target) !== 'entry' && rule.folders.includes(folder) && !rule.except?.includes(target)) {
          out.push(
            `${m.file}: imports ${target} ('${spec}'), but ${layer} ${rule.why ? `reaches src/${folder} only ${rule.why}` : `never imports src/${folder}`}`,
          );
        }
        const [rf, rt] = [rankOf(from), rankOf(folder)];
        if (layer === 'core' && layerOf(target) === 'core' && folder !== from && rf !== undefined && rt !== undefined && rt >= rf) {
          out.push(`${m.file}: imports ${target} ('${spec}'), but src/${from} sits ${rt === rf ? 'beside' : 'below'} src/${folder} in the core's order`);
        }
      } else if (rule?.packages.includes(packageOf(spec))) {
        out.push(`${m.file}: imports '${spec}', but ${layer} never imports ${packageOf(spec)}`);
      }
    }
    graph.set(m.file, edges);
  }
  for (const cycle of cyclesOf(graph)) out.push(`import cycle: ${[...cycle, cycle[0]].join(' → ')}`);
  return out;
}

/**
 * One cycle per strongly connected component with more than one module (or a
 * module importing itself), found with Tarjan's algorithm, each shown as a
 * path that starts at its alphabetically first module.
 */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return components.map((c) => pathThrough(graph, new Set(c)));
}

/** A shortest cycle through the first module of a component (breadth-first inside it). */
function pathThrough(graph: ReadonlyMap<string, readonly string[]>, members: ReadonlySet<string>): string[] {
  const start = [...members].sort()[0]!;
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(parent.get(path[0]!)!);
        return path;
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/** The module specifiers a source file imports, type-only and dynamic ones included. */
export function specifiersOf(file: SourceFile): string[] {
  const out: string[] = [];
  const visit = (node: Node): void => {
    if ((isImportDeclaration(node) || isExportDeclaration(node)) && node.moduleSpecifier && isStringLiteral(node.moduleSpecifier)) {
      out.push(node.moduleSpecifier.text);
    } else if (isImportEqualsDeclaration(node) && isExternalModuleReference(node.moduleReference)) {
      const e = node.moduleReference.expression;
      if (isStringLiteral(e)) out.push(e.text);
    } else if (isCallExpression(node) && node.expression.kind === SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && isStringLiteral(arg)) out.push(arg.text);
    } else if (isImportTypeNode(node) && isLiteralTypeNode(node.argument) && isStringLiteral(node.argument.literal)) {
      out.push(node.argument.literal.text);
    }
    node.forEachChild(visit);
  };
  file.forEachChild(visit);
  return out;
}

/**
 * The imports of every .ts/.tsx file under `<root>/src`, read by the TypeScript
 * compiler through the project's tsconfig.json (`<root>/tsconfig.json`).
 */
export function readProjectImports(root: string): ModuleImports[] {
  const tsconfig = join(root, 'tsconfig.json');
  if (!existsSync(tsconfig)) throw new Error(`no tsconfig.json in ${root}`);
  const api = new API({ cwd: root });
  try {
    const snapshot = api.updateSnapshot({ openProject: tsconfig });
    const project = snapshot.getProjects()[0];
    if (!project) throw new Error(`TypeScript opened no project for ${tsconfig}`);
    const src = join(root, 'src') + sep;
    const out: ModuleImports[] = [];
    for (const name of project.program.getSourceFileNames()) {
      const native = name.split('/').join(sep);
      if (!native.startsWith(src) || !/\.tsx?$/.test(name) || name.endsWith('.d.ts')) continue;
      const file = project.program.getSourceFile(name);
      if (!file) continue;
      out.push({ file: relative(root, native).split(sep).join('/'), specifiers: specifiersOf(file) });
    }
    return out.sort((a, b) => a.file.localeCompare(b.file));
  } finally {
    api.close();
  }
}

/** Every broken rule of the project at `root`. */
export const checkImports = (root: string): string[] => importViolations(readProjectImports(root));
