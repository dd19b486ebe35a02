/**
 * Problems of a document, derived (never stored): the YAML parse error, the decode and
 * validation errors of the last good object (what the apiserver would say), and lint
 * findings (best practices, not errors). Memoised per object, so a keystroke re-validates
 * only the document that changed.
 */
import { caBundleLints, fixesForError, kindSpecOf, lint, validate, type FieldError, type Fix, type KubernetesVersion, type Lint } from '../k8s';
import type { CelCompiler } from '../cel/types';
import { caInspection } from './ca-bundles';
import type { WorkspaceDoc } from './documents';
import { workspace } from './workspace';

let compiler: CelCompiler | undefined;
let cache = new WeakMap<object, { release: KubernetesVersion; problems: FieldError[] }>();
let lintCache = new WeakMap<object, { key: string; lints: Lint[] }>();

/** The workspace's target release (validation, CEL environment and lints follow it). */
const targetRelease = (): KubernetesVersion => workspace.getState().kubernetesVersion;

/**
 * What cross-document lints read of the workspace (policy and binding names, policyName,
 * paramKind/paramRef presence), as a string: lints are recomputed when it changes, not on
 * every edit of an unrelated document.
 */
const workspaceKeys = new WeakMap<readonly WorkspaceDoc[], string>();
function workspaceKey(docs: readonly WorkspaceDoc[]): string {
  let key = workspaceKeys.get(docs);
  if (key === undefined) {
    key = JSON.stringify(
      docs
        .map((d) => d.object as { kind?: unknown; metadata?: { name?: unknown }; spec?: { policyName?: unknown; paramKind?: unknown; paramRef?: unknown } } | undefined)
        .filter((o) => typeof o?.kind === 'string' && /AdmissionPolicy/.test(o.kind))
        .map((o) => [o!.kind, o!.metadata?.name, o!.spec?.policyName, !!o!.spec?.paramKind, !!o!.spec?.paramRef]),
    );
    workspaceKeys.set(docs, key);
  }
  return key;
}

/** Use this CEL compiler from now on (all cached results are dropped). */
export function setCelCompiler(c: CelCompiler | undefined): void {
  compiler = c;
  invalidateProblems();
}

/** Drop memoised results (the CEL compiler learned something new). */
export function invalidateProblems(): void {
  cache = new WeakMap();
  lintCache = new WeakMap();
}

/** Validation problems of an object (no parse errors) at the target release (default: the workspace's). */
export function objectProblems(object: unknown, release: KubernetesVersion = targetRelease()): FieldError[] {
  if (typeof object !== 'object' || object === null) return [];
  const hit = cache.get(object);
  if (hit && hit.release === release) return hit.problems;
  const problems = kindSpecOf(object) ? validate(object, { cel: compiler, kubernetesVersion: release }) : [];
  cache.set(object, { release, problems });
  return problems;
}

function objectLints(object: unknown, docs: readonly WorkspaceDoc[], release: KubernetesVersion): Lint[] {
  if (typeof object !== 'object' || object === null || !kindSpecOf(object)) return [];
  const key = `${release}|${workspaceKey(docs)}`;
  const hit = lintCache.get(object);
  if (hit && hit.key === key) return hit.lints;
  const lints = lint(
    object,
    docs.map((d) => d.object),
    { kubernetesVersion: release },
  );
  lintCache.set(object, { key, lints });
  return lints;
}

/** One line of the problems list, at a field: from the apiserver's rules, the decoder, or a lint. */
export interface Problem {
  field: string;
  message: string;
  hint?: string;
  level: 'error' | 'warning' | 'info';
  /** Invalid, Required, …, Warning, or the lint id (W03). */
  label: string;
  lint?: string;
  /** Quick fixes (src/k8s/fixes): for lints, and for errors where the remedy is unambiguous. */
  fixes?: readonly Fix[];
}

export interface DocProblems {
  /** The text does not parse (the form shows the last good version). */
  parse?: { message: string; line: number; column: number; endLine?: number; endColumn?: number };
  /** What the apiserver would say (decode + validation). */
  fields: FieldError[];
  lints: Lint[];
  /** Everything at a field, errors first: for the problems list, the form and the YAML markers. */
  items: Problem[];
  errors: number;
  warnings: number;
}

const LEVEL_ORDER = { error: 0, warning: 1, info: 2 };

const fromError = (e: FieldError, object: unknown): Problem => {
  const fixes = fixesForError(e, object);
  return {
    field: e.field,
    message: e.message,
    hint: e.hint,
    level: e.severity === 'warning' ? 'warning' : 'error',
    label: e.severity === 'warning' ? 'Warning' : e.type,
    ...(fixes.length ? { fixes } : {}),
  };
};

const fromLint = (l: Lint): Problem => ({ field: l.field, message: l.message, hint: l.hint, level: l.severity, label: l.id, lint: l.name, ...(l.fixes?.length ? { fixes: l.fixes } : {}) });

/** The problems of a document; `docs` (the workspace) enables the policy ↔ binding lints. */
export function docProblems(doc: WorkspaceDoc, docs: readonly WorkspaceDoc[] = [], release: KubernetesVersion = targetRelease()): DocProblems {
  const fields = objectProblems(doc.object, release);
  // caBundle findings come from inspections done in the background (src/store/ca-bundles.ts).
  const lints = [...objectLints(doc.object, docs, release), ...caBundleLints(doc.object, caInspection)];
  const warnings = fields.filter((p) => p.severity === 'warning').length;
  const yaml: Problem[] = (doc.error ? [] : (doc.yamlWarnings ?? [])).map((w) => ({ field: w.path ?? '', message: w.message, level: 'warning', label: 'YAML' }));
  const items = [...fields.map((e) => fromError(e, doc.object)), ...yaml, ...lints.map(fromLint)].sort((a, b) => LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level]);
  return { parse: doc.error, fields, lints, items, errors: fields.length - warnings + (doc.error ? 1 : 0), warnings: warnings + yaml.length };
}
