/**
 * vitest.config.ts runs most test files without isolation: a worker keeps its modules, globals and
 * environment from one file to the next. What keeps that safe is ISOLATE_WHEN, which sends the files
 * that leave state behind to the isolated project. These tests fail when the rule stops seeing
 * such a file: a module that writes global state for whoever calls it, a new vi API, a helper
 * called another way than the rule knows.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISOLATE_WHEN, isolatedFiles } from '../vitest.config';

const root = join(__dirname, '..');
const DIRS = ['src', 'scripts', 'tools'];
const files = DIRS.flatMap((d) =>
  (readdirSync(join(root, d), { recursive: true }) as string[])
    .map((f) => `${d}/${f.split('\\').join('/')}`)
    .filter((f) => /\.(ts|mts|mjs)$/.test(f) && !f.endsWith('.d.mts') && !f.includes('node_modules/') && !f.includes('/testdata/')),
);
const text = (f: string) => readFileSync(join(root, f), 'utf8');
const isTest = (f: string) => f.endsWith('.test.ts');
const isolated = new Set(isolatedFiles(root));
const shared = files.filter((f) => isTest(f) && !isolated.has(f));

/**
 * Writes to the process's or the realm's global state, however they are spelled: wider than
 * ISOLATE_WHEN (Reflect, defineProperty, any vi.stub*, process listeners), so that a new spelling
 * fails here instead of slipping past the rule.
 */
const GLOBAL_WRITE =
  /process\.env(\.\w+|\[[^\]]+\])\s*([-+*|&?]{0,2}=(?![=>]))|delete process\.env|(Object\.(assign|defineProperty)|Reflect\.(set|defineProperty|deleteProperty))\((process\.env|globalThis|process)\b|process\.chdir\(|process\.(on|once|umask)\(|globalThis(\.\w+|\[[^\]]+\])\s*([-+*|&?]{0,2}=(?![=>]))|\bvi\.stub/;

/**
 * The modules (not test files) that write global state, and why the files that use them are
 * still seen by ISOLATE_WHEN or cannot leak: a new one here needs the same thought.
 */
const WRITERS: Record<string, string> = {
  'src/cli/bin.ts':
    "the built CLI's entry: `impact`, started again with a larger young generation, passes signals on to that child; tests spawn it, none imports it",
  'src/cel/test-helpers.ts': "useEngine(engine) sets CEL_ENGINE when given an engine: its callers match useEngine('native')",
  'src/cel/start.ts': "the page's engine worker, started in the browser only (globalThis carries it to the app's bundle)",
  'src/cel/engine.ts': "forgets the page's engine worker when it fails: the browser's globalThis, Node never starts one",
  'tools/kyverno-oracle/oracle.ts':
    "kills the oracle's process when the worker exits: one process per module instance, which a shared worker keeps for the files after",
  'scripts/bench-go-floor.mjs': 'a benchmark run by npm run bench, imported by no test',
  'scripts/bench-large.mjs': 'a benchmark run by npm run bench, imported by no test',
};

describe('the test files that run without isolation (vitest.config.ts ISOLATE_WHEN)', () => {
  it('every module that writes global state for its caller is known, with why its callers cannot leak it', () => {
    const writers = files.filter((f) => !isTest(f) && GLOBAL_WRITE.test(text(f)));
    expect(writers.sort()).toEqual(Object.keys(WRITERS).sort());
  });

  it('no shared test file writes global state the rule does not see', () => {
    expect(shared.filter((f) => GLOBAL_WRITE.test(text(f)))).toEqual([]);
  });

  it('shared test files use vi only for what ends with the file (fn, waitFor, waitUntil, setConfig)', () => {
    const uses = shared.flatMap((f) => [...text(f).matchAll(/\bvi\.(\w+)/g)].map((m) => `${f}: vi.${m[1]}`));
    expect(uses.filter((u) => !/vi\.(fn|waitFor|waitUntil|setConfig)$/.test(u))).toEqual([]);
  });

  it("a test file that picks an engine with useEngine runs isolated, however the engine's name is written", () => {
    expect(shared.filter((f) => /useEngine\(\s*[^)\s]/.test(text(f)))).toEqual([]);
  });

  it('the rule sees each way of leaving state behind, and not reads or comparisons', () => {
    const leaves = [
      "vi.mock('../yaml')",
      "vi.stubGlobal('Worker', W)",
      "vi.stubEnv('A', 'b')",
      "vi.spyOn(console, 'log')",
      'vi.useFakeTimers()',
      "process.env.CEL_ENGINE = 'wasm'",
      "process.env['CEL_ENGINE'] = 'wasm'",
      "process.env.CEL_ENGINE ??= 'wasm'",
      'delete process.env.CEL_ENGINE',
      'Object.assign(process.env, { A: "b" })',
      "process.chdir('/')",
      'globalThis.fetch = f',
      "useEngine('native')",
    ];
    const harmless = ["process.env.CEL_ENGINE === 'wasm'", 'const e = process.env.CEL_ENGINE', 'vi.fn()', 'useEngine()', 'globalThis.fetch !== f'];
    expect(leaves.filter((s) => !ISOLATE_WHEN.test(s))).toEqual([]);
    expect(harmless.filter((s) => ISOLATE_WHEN.test(s))).toEqual([]);
    // and the files that do it today are among the isolated
    for (const f of ['src/store/documents.test.ts', 'src/cel/api.test.ts', 'src/cel/native-sessions.test.ts', 'src/impact/engine-default.test.ts'])
      expect(isolated.has(f), f).toBe(true);
  });
});
