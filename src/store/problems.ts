/**
 * Problems of a document, derived (never stored): the YAML parse error, the decode and
 * validation errors of the last good object (what the apiserver would say), and lint
 * findings (best practices, not errors). Computed once per document change and shared by
 * the sidebar, the form, the problems list and the YAML markers: validation is memoised per
 * object, lints per object and workspace key, and a document's DocProblems per document
 * object. A CEL answer re-validates only the objects that were waiting for one (lints never
 * read CEL, so they are kept).
 */
import { caBundleLints, fixesForError, kindSpecOf, lint, validate, type FieldError, type Fix, type Lint } from '../k8s';
import type { KubernetesVersion } from '../base';
import type { CelCompiler } from '../cel/types';
import { caInspection } from './ca-bundles';
import type { WorkspaceDoc } from './documents';
import { workspace } from './workspace';

let compiler: CelCompiler | undefined;
let cache = new WeakMap<object, { release: KubernetesVersion; problems: FieldError[] }>();
let lintCache = new WeakMap<object, { key: string; lints: Lint[] }>();
/** Objects whose validation met a CEL expression the engine had not answered yet. */
const waitingForCel = new Set<object>();
/** Set while one object is validated: a CEL compile came back unknown. */
let unanswered = false;
/** The compiler validation sees: the workspace's, noting unknown answers. */
const trackingCompiler: CelCompiler = {
  compile(expression, context, options) {
    const r = compiler?.compile(expression, context, options);
    if (r === undefined) unanswered = true;
    return r;
  },
};

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

/** Drop every memoised result. */
export function invalidateProblems(): void {
  cache = new WeakMap();
  lintCache = new WeakMap();
  waitingForCel.clear();
}

/** The CEL engine answered: re-validate only the objects that were waiting for an answer. */
export function celAnswered(): void {
  for (const o of waitingForCel) cache.delete(o);
  waitingForCel.clear();
}

/** Validation problems of an object (no parse errors) at the target release (default: the workspace's). */
export function objectProblems(object: unknown, release: KubernetesVersion = targetRelease()): FieldError[] {
  if (typeof object !== 'object' || object === null) return [];
  const hit = cache.get(object);
  if (hit && hit.release === release) return hit.problems;
  unanswered = false;
  const problems = kindSpecOf(object) ? validate(object, { cel: compiler ? trackingCompiler : undefined, kubernetesVersion: release }) : [];
  if (unanswered) waitingForCel.add(object);
  else waitingForCel.delete(object);
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

/** The last DocProblems of each document object, with what it was made from. */
const docCache = new WeakMap<WorkspaceDoc, { fields: FieldError[]; lints: Lint[]; caLints: string; problems: DocProblems }>();

/** Whether the problems of this version of a document were worked out before (docProblems is then a few lookups). */
export const checkedBefore = (doc: WorkspaceDoc): boolean => docCache.has(doc);

/** The problems of a document; `docs` (the workspace) enables the policy ↔ binding lints. */
export function docProblems(doc: WorkspaceDoc, docs: readonly WorkspaceDoc[] = [], release: KubernetesVersion = targetRelease()): DocProblems {
  const fields = objectProblems(doc.object, release);
  const objectLintList = objectLints(doc.object, docs, release);
  // caBundle findings come from inspections done in the background (src/store/ca-bundles.ts).
  const caLintList = caBundleLints(doc.object, caInspection);
  const caLints = caLintList.length ? JSON.stringify(caLintList) : '';
  const hit = docCache.get(doc);
  if (hit && hit.fields === fields && hit.lints === objectLintList && hit.caLints === caLints) return hit.problems;
  const lints = caLintList.length ? [...objectLintList, ...caLintList] : objectLintList;
  const warnings = fields.filter((p) => p.severity === 'warning').length;
  const yaml: Problem[] = (doc.error ? [] : (doc.yamlWarnings ?? [])).map((w) => ({ field: w.path ?? '', message: w.message, level: 'warning', label: 'YAML' }));
  const items = [...fields.map((e) => fromError(e, doc.object)), ...yaml, ...lints.map(fromLint)].sort((a, b) => LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level]);
  const problems: DocProblems = { parse: doc.error, fields, lints, items, errors: fields.length - warnings + (doc.error ? 1 : 0), warnings: warnings + yaml.length };
  docCache.set(doc, { fields, lints: objectLintList, caLints, problems });
  return problems;
}
