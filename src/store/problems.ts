/**
 * Problems of a document, derived (never stored): the YAML parse error, the decode and
 * validation errors of the last good object (what the apiserver would say), and lint
 * findings (best practices, not errors). Computed once per document change and shared by
 * the sidebar, the form, the problems list and the YAML markers: validation is memoised per
 * object, lints per object and what their rules read of the workspace (src/check), and a document's DocProblems per document
 * object. A CEL answer re-validates only the objects that were waiting for one (lints never
 * read CEL, so they are kept).
 */
import { duplicateKeyFindings, fixesForError, type FieldError, type FieldValidation, type Fix, type Lint } from '../k8s';
import { caLints as caBundleFindings, checkManifestSet, createChecker, isChecked, type ManifestSetChecks } from '../check';
import type { KubernetesVersion } from '../base';
import type { CelCompiler } from '../cel/types';
import { caInspection } from './ca-bundles';
import { typeCheckProblems } from './typecheck';
import type { TypeCheckProblem } from '../check/typecheck';
import type { WorkspaceDoc } from './documents';
import { isStaticDoc, workspace } from './workspace';
import { isSourceDocument, sourceKindOf, templateOf } from '../migrate/documents';
import { sourceProblems } from '../migrate/source-problems';

/** The core's checks (src/check), memoised: what each lint reads of the workspace is declared by the lint. */
const checker = createChecker();

/** The workspace's target release (validation, CEL environment and lints follow it). */
const targetRelease = (): KubernetesVersion => workspace.getState().kubernetesVersion;

/** The workspace's objects, once per documents array (what cross-document lints see). */
const objectsOf = new WeakMap<readonly WorkspaceDoc[], unknown[]>();
function workspaceObjects(docs: readonly WorkspaceDoc[]): unknown[] {
  let objects = objectsOf.get(docs);
  if (!objects) objectsOf.set(docs, (objects = docs.map((d) => d.object)));
  return objects;
}

/** Use this CEL compiler from now on (all cached results are dropped). */
export function setCelCompiler(c: CelCompiler | undefined): void {
  checker.setCel(c);
}

/** Drop every memoised result. */
export function invalidateProblems(): void {
  checker.invalidate();
}

/** The CEL engine answered: re-validate only the objects that were waiting for an answer. */
export function celAnswered(): void {
  checker.celAnswered();
}

/** Validation problems of an object (no parse errors) at the target release (default: the workspace's). */
export function objectProblems(object: unknown, release: KubernetesVersion = targetRelease()): FieldError[] {
  return checker.fields(object, release, workspace.getState().fieldValidation);
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
  /** A static manifest: whether its set loads, and the headline when it does not (the apiserver does not start with it). */
  manifest?: { loads: boolean; headline?: string };
  /** Whether the Workbench checks this kind (other kinds are kept, not checked: no validation, no findings); true while nothing parsed yet. */
  checked: boolean;
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

/** A lint's line, the same object for the same lint (lints of unchanged webhooks are kept: src/k8s/lints). */
const lintProblems = new WeakMap<Lint, Problem>();
function fromLint(l: Lint): Problem {
  let p = lintProblems.get(l);
  if (!p)
    lintProblems.set(
      l,
      (p = { field: l.field, message: l.message, hint: l.hint, level: l.severity, label: l.id, lint: l.name, ...(l.fixes?.length ? { fixes: l.fixes } : {}) }),
    );
  return p;
}

/** Errors first, then warnings, then findings; in their order within a level (what a stable sort by level gives, in one pass). */
function byLevel(...lists: (readonly Problem[])[]): Problem[] {
  const buckets: [Problem[], Problem[], Problem[]] = [[], [], []];
  for (const list of lists) for (const p of list) buckets[LEVEL_ORDER[p.level]].push(p);
  return buckets[0].concat(buckets[1], buckets[2]);
}

/** The last DocProblems of each document object, with what it was made from. */
const docCache = new WeakMap<
  WorkspaceDoc,
  { fields: FieldError[]; lints: Lint[]; caLints: string; typeChecks: readonly TypeCheckProblem[]; mode: FieldValidation; problems: DocProblems }
>();
const fromTypeCheck = (t: TypeCheckProblem): Problem => ({ field: t.field, message: t.message, hint: t.hint, level: 'warning', label: t.type });

/** Whether the problems of this version of a document were worked out before (docProblems is then a few lookups). */
export const checkedBefore = (doc: WorkspaceDoc): boolean => docCache.has(doc);

/** The static manifest set of a workspace, once per documents array, release and workspace flag (undefined: no document is static). */
const manifestSets = new WeakMap<
  readonly WorkspaceDoc[],
  { flag: boolean; release: KubernetesVersion; used: (readonly FieldError[] | undefined)[]; checks: ManifestSetChecks }
>();
export function manifestSetOf(
  docs: readonly WorkspaceDoc[],
  release: KubernetesVersion = targetRelease(),
  flag: boolean = workspace.getState().staticManifests,
): ManifestSetChecks | undefined {
  const state = { staticManifests: flag };
  if (!flag && !docs.some((d) => d.static)) return undefined;
  const used = docs.map((d) => (isStaticDoc(d, state) ? checker.fields(d.object, release, workspace.getState().fieldValidation) : undefined));
  const hit = manifestSets.get(docs);
  if (hit && hit.flag === flag && hit.release === release && hit.used.every((u, i) => u === used[i])) return hit.checks;
  const checks = checkManifestSet(
    docs.map((d) => d.object),
    (i) => isStaticDoc(docs[i]!, state),
    release,
    (i) => used[i] ?? [],
    (i) => !docs[i]!.error,
  );
  manifestSets.set(docs, { flag, release, used, checks });
  return checks;
}

/**
 * The structural problems of a Gatekeeper or Kyverno document (src/migrate), the same array while
 * the object (and, for a constraint, its template) is unchanged.
 */
const sourceCache = new WeakMap<object, { template: unknown; fields: FieldError[] }>();
function sourceFields(object: object, objects: readonly unknown[]): FieldError[] {
  const template = sourceKindOf(object)?.kind === 'Constraint' ? templateOf(object, objects) : undefined;
  const hit = sourceCache.get(object);
  if (hit && hit.template === template) return hit.fields;
  const fields = sourceProblems(object, objects);
  sourceCache.set(object, { template, fields });
  return fields;
}

/** The problems of a document; `docs` (the workspace) enables the policy ↔ binding lints and the static manifest set's checks. */
export function docProblems(doc: WorkspaceDoc, docs: readonly WorkspaceDoc[] = [], release: KubernetesVersion = targetRelease()): DocProblems {
  const set = isStaticDoc(doc) ? manifestSetOf(docs.includes(doc) ? docs : [doc], release) : undefined;
  const index = set ? (docs.includes(doc) ? docs.indexOf(doc) : 0) : -1;
  const source = typeof doc.object === 'object' && doc.object !== null && isSourceDocument(doc.object) ? doc.object : undefined;
  const fields =
    set?.fields.get(index) ??
    (source ? sourceFields(source, workspaceObjects(docs)) : checker.fields(doc.object, release, workspace.getState().fieldValidation));
  // the workspace's platform applies at its own release (a caller asking for another release gets upstream's lints)
  const state = workspace.getState();
  const platform = release === state.kubernetesVersion ? state.platform : undefined;
  const objectLintList = checker.lints(doc.object, workspaceObjects(docs), release, platform);
  // caBundle findings come from inspections done in the background (src/store/ca-bundles.ts).
  const caLintList = caBundleFindings(doc.object, { caInspection });
  const caLints = caLintList.length ? JSON.stringify(caLintList) : '';
  // status.typeChecking of a ValidatingAdmissionPolicy, worked out in the background once the document is open (src/store/typecheck.ts).
  const typeChecks = typeCheckProblems(doc.id, doc.object, workspaceObjects(docs), release, workspace.getState().selectedId === doc.id);
  // (a static manifest's loader decodes strictly whatever the setting: a key given twice stays an error there, as before)
  const mode: FieldValidation = set ? 'Strict' : workspace.getState().fieldValidation;
  const hit = docCache.get(doc);
  if (hit && hit.fields === fields && hit.lints === objectLintList && hit.caLints === caLints && hit.typeChecks === typeChecks && hit.mode === mode)
    return hit.problems;
  const lints = caLintList.length ? [...objectLintList, ...caLintList] : objectLintList;
  const warnings = fields.filter((p) => p.severity === 'warning').length;
  const yaml: Problem[] = (doc.error ? [] : (doc.yamlWarnings ?? [])).map((w) => ({
    field: w.path ?? '',
    message: w.message,
    level: 'warning',
    label: 'YAML',
  }));
  // Keys given twice: the object holds the last value; the mode says whether the apiserver refuses, warns or keeps quiet.
  const duplicates: Problem[] = duplicateKeyFindings(doc.object, doc.error ? [] : (doc.duplicateKeys ?? []), mode).map((f) => ({
    field: f.duplicate.path,
    message: f.message,
    hint: f.hint,
    level: f.severity,
    label: 'YAML',
  }));
  const duplicateErrors = duplicates.filter((p) => p.level === 'error').length;
  const items = byLevel(
    fields.map((e) => fromError(e, doc.object)),
    duplicates,
    yaml,
    typeChecks.map(fromTypeCheck),
    lints.map(fromLint),
  );
  const problems: DocProblems = {
    parse: doc.error,
    fields,
    lints,
    items,
    checked: doc.object === undefined || source !== undefined || isChecked(doc.object),
    errors: fields.length - warnings + (doc.error ? 1 : 0) + duplicateErrors,
    warnings: warnings + yaml.length + typeChecks.length + duplicates.length - duplicateErrors,
  };
  if (set?.members.includes(index)) problems.manifest = { loads: set.loads, ...(set.headline ? { headline: set.headline } : {}) };
  docCache.set(doc, { fields, lints: objectLintList, caLints, typeChecks, mode, problems });
  return problems;
}

/** Identical findings of many elements, shown as one line that expands ("W19 × 10,000"). */
export interface ProblemGroup {
  /** The field with list indices as `[*]`: `webhooks[*].timeoutSeconds`. */
  field: string;
  label: string;
  level: Problem['level'];
  items: Problem[];
}

/** Lines of the problems list: single problems, and groups of at least GROUP_MIN of one kind. */
export type ProblemLine = { problem: Problem } | { group: ProblemGroup };

export const GROUP_MIN = 3;

/** Problems of the same level, label (rule or error type) and field up to list indices, at more than one field, form a group, at the place of its first member. */
export function groupProblems(items: readonly Problem[], min = GROUP_MIN): ProblemLine[] {
  const groups = new Map<string, { group: ProblemGroup; at: number[] }>();
  items.forEach((p, i) => {
    const { key, field } = groupKey(p);
    const g = groups.get(key);
    if (g) g.group.items.push(p), g.at.push(i);
    else groups.set(key, { group: { field, label: p.label, level: p.level, items: [p] }, at: [i] });
  });
  // keep the list's order (errors first): each line where its first problem was
  const lines: { line: ProblemLine; at: number }[] = [];
  for (const { group, at } of groups.values()) {
    // a group is of many elements: problems all at one field (three errors of one url) stay lines of their own
    const elements = group.items.some((p) => p.field !== group.items[0]!.field);
    if (group.items.length >= min && elements) lines.push({ line: { group }, at: at[0]! });
    else group.items.forEach((problem, k) => lines.push({ line: { problem }, at: at[k]! }));
  }
  return lines.sort((a, b) => a.at - b.at).map((l) => l.line);
}

/** What groups a problem (level, label, field with list indices as `[*]`), worked out once per problem object. */
const groupKeys = new WeakMap<Problem, { key: string; field: string }>();
function groupKey(p: Problem): { key: string; field: string } {
  let k = groupKeys.get(p);
  if (!k) {
    const field = p.field.replace(/\[\d+\]/g, '[*]');
    groupKeys.set(p, (k = { key: `${p.level}\n${p.label}\n${field}`, field }));
  }
  return k;
}
