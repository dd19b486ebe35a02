/**
 * Every object in the real-world corpus (fixtures/realworld) is accepted
 * by real clusters: it must validateRules with zero errors.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../../fixtures';
import type { CelCompiler } from '../../cel/types';
import type { FieldError } from '../errors';
import { kindSpecOf, servingOf } from '../registry';
import { validateRules } from '../validate';

/**
 * The corpus has v1beta1/v1alpha1 policies from the Kubernetes docs, which clusters accept once the
 * version is enabled (--runtime-config): that apiVersion error is expected, everything else must pass.
 */
function enabledVersionError(obj: unknown, e: FieldError): boolean {
  const spec = kindSpecOf(obj);
  const version = String((obj as { apiVersion?: unknown }).apiVersion).split('/')[1] ?? '';
  return e.field === 'apiVersion' && !!spec && servingOf(spec, version, '1.36') === 'opt-in';
}

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const corpus = fixturePath('realworld');
const celWasm = process.env.CEL_WASM ? resolve(process.env.CEL_WASM) : resolve(repoRoot, 'public/cel/cel.wasm');

/** The CEL engine (src/cel, Node loader), when it and its built WebAssembly are present. */
let compilerPromise: Promise<CelCompiler | undefined> | undefined;
const loadCompiler = (): Promise<CelCompiler | undefined> => (compilerPromise ??= loadCompilerOnce());
async function loadCompilerOnce(): Promise<CelCompiler | undefined> {
  if (!existsSync(celWasm)) return undefined;
  const modulePath = '../../cel/index';
  const cel = (await import(/* @vite-ignore */ modulePath).catch(() => undefined)) as
    | { loadCel(): Promise<void>; createSyncCompiler(): CelCompiler }
    | undefined;
  if (!cel) return undefined;
  await cel.loadCel();
  return cel.createSyncCompiler();
}

/** Documents of a YAML stream, `kind: List` unwrapped. */
function objectsOf(text: string): unknown[] {
  return loadAll(text).flatMap((doc) => {
    const d = doc as { kind?: unknown; items?: unknown } | null;
    return d && d.kind === 'List' && Array.isArray(d.items) ? d.items : d ? [d] : [];
  });
}

/**
 * Files 68 and 69 are the Kubernetes docs' static admission manifests (names `*.static.k8s.io`, for
 * the manifest loader, not the API): from 1.37 the API refuses such names (a warning at 1.36).
 */
const staticManifestName = (file: string, e: { field: string; message: string }): boolean =>
  /^6[89]-/.test(file) && e.field === 'metadata.name' && e.message.includes('reserved for static manifest-based configurations');

describe('real-world corpus', () => {
  it('validates every object with zero errors', () => {
    const files = readdirSync(corpus)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort();
    expect(files.length).toBeGreaterThan(40);
    const problems: string[] = [];
    const warnings: string[] = [];
    let checked = 0;
    let staticNames = 0;
    for (const f of files) {
      for (const obj of objectsOf(readFileSync(join(corpus, f), 'utf8'))) {
        checked++;
        for (const e of validateRules(obj)) {
          if (enabledVersionError(obj, e)) continue;
          if (staticManifestName(f, e)) {
            staticNames++;
            continue;
          }
          const line = `${f}: ${(obj as { metadata?: { name?: string } }).metadata?.name}: ${e.field}: ${e.message}`;
          (e.severity === 'warning' ? warnings : problems).push(line);
        }
      }
    }
    console.info(`corpus: ${checked} objects in ${files.length} files, ${problems.length} errors, ${warnings.length} warnings`);
    // at 1.37 the reserved .static.k8s.io suffix is an error (files 68, 69), and nothing else warns
    expect(warnings).toEqual([]);
    expect(staticNames).toBe(7);
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('also compiles every CEL expression without an error (when the CEL engine is built)', { timeout: 180_000 }, async (ctx) => {
    const cel = await loadCompiler();
    if (!cel) return ctx.skip();
    const problems: string[] = [];
    for (const f of readdirSync(corpus).filter((x) => /\.ya?ml$/.test(x))) {
      for (const obj of objectsOf(readFileSync(join(corpus, f), 'utf8')))
        for (const e of validateRules(obj, { cel }))
          if (e.severity !== 'warning' && !enabledVersionError(obj, e) && !staticManifestName(f, e)) problems.push(`${f}: ${e.field}: ${e.message}`);
    }
    expect(problems).toEqual([]);
  });
});

describe('CEL sites with the real engine', () => {
  it('sends each expression to the engine with the apiserver environment (when the CEL engine is built)', { timeout: 180_000 }, async (ctx) => {
    const cel = await loadCompiler();
    if (!cel) return ctx.skip();
    const vap = (spec: object) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'p' },
      spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] }, ...spec },
    });
    const fields = (spec: object) => validateRules(vap(spec), { cel }).map((e) => `${e.type} ${e.field}`);
    // params only with paramKind
    expect(fields({ validations: [{ expression: 'params.x == 1' }] })).toEqual(['Invalid spec.validations[0].expression']);
    expect(fields({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: "params.data.x == '1'" }] })).toEqual([]);
    // a variable sees only the variables before it; validations see them all
    expect(
      fields({
        variables: [
          { name: 'a', expression: 'variables.b' },
          { name: 'b', expression: '1' },
        ],
        validations: [{ expression: 'variables.b == 1' }],
      }),
    ).toEqual(['Invalid spec.variables[0].expression']);
    // matchConditions do not see variables
    expect(
      fields({
        variables: [{ name: 'x', expression: 'true' }],
        matchConditions: [{ name: 'm', expression: 'variables.x' }],
        validations: [{ expression: 'true' }],
      }),
    ).toEqual(['Invalid spec.matchConditions[0].expression']);
    // result types: bool, string, string or null
    expect(fields({ validations: [{ expression: '6', messageExpression: '1' }], auditAnnotations: [{ key: 'k', valueExpression: 'null' }] })).toEqual([
      'Invalid spec.validations[0].expression',
      'Invalid spec.validations[0].messageExpression',
    ]);
  });
});
