/**
 * CEL test inputs and named test cases, per workspace document (its own zustand store and
 * its own localStorage key, autosaved like persist.ts does for the documents).
 *
 * - Inputs are per document and shared by all of that document's expressions: the YAML texts
 *   of object / oldObject / params / namespaceObject (kept as typed, never lost), a small
 *   request form and the authorizer rules.
 * - Cases are per expression path (`spec.validations[0].expression`): a name, a snapshot of
 *   the inputs and the expected result (a value as YAML, or an error).
 *
 * The helpers turn drafts into engine inputs (`toCelInputs`, memoised per draft object so the
 * engine marshals each inputs object once) and derive sensible defaults from a document's rules.
 */
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { AuthorizerRule, CelInputs } from '../cel/types';
import { parseDocuments, serializeDocuments } from '../yaml';
import { isClusterScoped, kindForResource, minimalObject } from '../k8s/resources';
import { autosave, readJSON } from './autosave';

export const CEL_TESTS_STORAGE_KEY = 'admission-workbench/cel-tests/v1';

export interface RequestDraft {
  operation: string;
  group: string;
  version: string;
  kind: string;
  resource: string;
  subResource: string;
  name: string;
  namespace: string;
  username: string;
  groups: string[];
  dryRun: boolean;
}

export interface InputsDraft {
  /** YAML texts, exactly as typed ('' = absent). */
  object: string;
  oldObject: string;
  params: string;
  namespaceObject: string;
  request: RequestDraft;
  authorizer: AuthorizerRule[];
}

export type Expectation = { error: true } | { error: false; value: string };

export interface TestCase {
  id: string;
  name: string;
  inputs: InputsDraft;
  expect: Expectation;
}

export interface DocCelTests {
  /** Absent until the user edits them: the defaults follow the document's rules until then. */
  inputs?: InputsDraft;
  /** By expression path. */
  cases: Record<string, TestCase[]>;
  /** Expression paths whose Test area is open. */
  open: string[];
}

export interface CelTestsState {
  docs: Record<string, DocCelTests>;
}

export interface CelTestsActions {
  setInputs(docId: string, inputs: InputsDraft): void;
  resetInputs(docId: string): void;
  addCase(docId: string, path: string, c: TestCase): void;
  updateCase(docId: string, path: string, id: string, patch: Partial<Omit<TestCase, 'id'>>): void;
  removeCase(docId: string, path: string, id: string): void;
  setOpen(docId: string, path: string, open: boolean): void;
  /** Forget documents that no longer exist. */
  prune(docIds: ReadonlySet<string>): void;
}

export type CelTests = CelTestsState & CelTestsActions;

const emptyDoc = (): DocCelTests => ({ cases: {}, open: [] });

export function createCelTests(initial: CelTestsState = { docs: {} }) {
  return createStore<CelTests>()((set) => {
    const mapDoc = (docId: string, f: (d: DocCelTests) => DocCelTests) =>
      set((s) => ({ docs: { ...s.docs, [docId]: f(s.docs[docId] ?? emptyDoc()) } }));
    const mapCases = (docId: string, path: string, f: (cs: TestCase[]) => TestCase[]) =>
      mapDoc(docId, (d) => ({ ...d, cases: { ...d.cases, [path]: f(d.cases[path] ?? []) } }));
    return {
      ...initial,
      setInputs: (docId, inputs) => mapDoc(docId, (d) => ({ ...d, inputs })),
      resetInputs: (docId) => mapDoc(docId, (d) => ({ ...d, inputs: undefined })),
      addCase: (docId, path, c) => mapCases(docId, path, (cs) => [...cs, c]),
      updateCase: (docId, path, id, patch) => mapCases(docId, path, (cs) => cs.map((c) => (c.id === id ? { ...c, ...patch } : c))),
      removeCase: (docId, path, id) => mapCases(docId, path, (cs) => cs.filter((c) => c.id !== id)),
      setOpen: (docId, path, open) =>
        mapDoc(docId, (d) => ({ ...d, open: open ? (d.open.includes(path) ? d.open : [...d.open, path]) : d.open.filter((p) => p !== path) })),
      prune: (ids) =>
        set((s) => {
          const gone = Object.keys(s.docs).filter((id) => !ids.has(id));
          if (!gone.length) return s;
          const docs = { ...s.docs };
          for (const id of gone) delete docs[id];
          return { docs };
        }),
    };
  });
}

export type CelTestsStore = ReturnType<typeof createCelTests>;

/** The app's one store of CEL tests. */
export const celTests: CelTestsStore = createCelTests();

export function useCelTests<T>(selector: (s: CelTests) => T): T {
  return useStore(celTests, selector);
}

// ---------------------------------------------------------------------------
// Persistence (same pattern as persist.ts)

interface Saved {
  version: 1;
  docs: Record<string, DocCelTests>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The saved tests, or undefined (none, or unreadable). */
export function loadCelTests(storage: Pick<Storage, 'getItem'>): CelTestsState | undefined {
  const saved = readJSON(storage, CEL_TESTS_STORAGE_KEY) as Saved | undefined;
  if (!saved) return undefined;
  try {
    if (saved.version !== 1 || !isRecord(saved.docs)) return undefined;
    const docs: Record<string, DocCelTests> = {};
    for (const [id, d] of Object.entries(saved.docs as Record<string, unknown>)) {
      if (!isRecord(d)) continue;
      docs[id] = {
        inputs: isRecord(d.inputs) ? normalizeDraft(d.inputs) : undefined,
        cases: isRecord(d.cases)
          ? Object.fromEntries(
              Object.entries(d.cases).map(([p, cs]) => [p, (Array.isArray(cs) ? cs : []).filter(isRecord).map((c) => normalizeCase(c))]),
            )
          : {},
        open: Array.isArray(d.open) ? d.open.filter((p): p is string => typeof p === 'string') : [],
      };
    }
    return { docs };
  } catch {
    return undefined;
  }
}

export function serializeCelTests(s: CelTestsState): string {
  const saved: Saved = { version: 1, docs: s.docs };
  return JSON.stringify(saved);
}

/** Save after every change (debounced). Returns a function that stops autosaving and flushes. */
export function startCelTestsAutosave(store: CelTestsStore, storage: Pick<Storage, 'setItem'>, delayMs = 250, onError?: (e: Error) => void): () => void {
  return autosave(store, (s) => storage.setItem(CEL_TESTS_STORAGE_KEY, serializeCelTests(s)), (s, prev) => s.docs !== prev.docs, { delayMs, onError });
}

let persisting = false;
/**
 * Restore the saved tests and autosave from now on (browser; idempotent). Called by the
 * CEL UI on first use; `knownDocIds` drops tests of documents that no longer exist.
 */
export function initCelTestsPersistence(knownDocIds: ReadonlySet<string>, onError?: (e: Error) => void): void {
  if (persisting || typeof localStorage === 'undefined') return;
  persisting = true;
  const saved = loadCelTests(localStorage);
  if (saved) {
    celTests.setState({ docs: { ...saved.docs, ...celTests.getState().docs } });
    celTests.getState().prune(knownDocIds);
  }
  const stop = startCelTestsAutosave(celTests, localStorage, 250, onError);
  if (typeof window !== 'undefined') window.addEventListener('pagehide', stop);
}

// ---------------------------------------------------------------------------
// Drafts

const str = (v: unknown, d = ''): string => (typeof v === 'string' ? v : d);

export function emptyRequest(): RequestDraft {
  return {
    operation: 'CREATE',
    group: '',
    version: 'v1',
    kind: 'Pod',
    resource: 'pods',
    subResource: '',
    name: 'example',
    namespace: 'default',
    username: 'alice@example.com',
    groups: ['system:authenticated'],
    dryRun: false,
  };
}

function normalizeDraft(d: Record<string, unknown>): InputsDraft {
  const r = isRecord(d.request) ? d.request : {};
  const e = emptyRequest();
  return {
    object: str(d.object),
    oldObject: str(d.oldObject),
    params: str(d.params),
    namespaceObject: str(d.namespaceObject),
    request: {
      operation: str(r.operation, e.operation),
      group: str(r.group, e.group),
      version: str(r.version, e.version),
      kind: str(r.kind, e.kind),
      resource: str(r.resource, e.resource),
      subResource: str(r.subResource),
      name: str(r.name),
      namespace: str(r.namespace),
      username: str(r.username),
      groups: Array.isArray(r.groups) ? r.groups.filter((g): g is string => typeof g === 'string') : [],
      dryRun: r.dryRun === true,
    },
    authorizer: Array.isArray(d.authorizer)
      ? d.authorizer.filter(isRecord).map((a) => ({ ...(a as unknown as AuthorizerRule), decision: decisionOf(a.decision) }))
      : [],
  };
}

const decisionOf = (v: unknown): AuthorizerRule['decision'] => (v === 'allow' || v === 'deny' ? v : 'noOpinion');

function normalizeCase(c: Record<string, unknown>): TestCase {
  const e = isRecord(c.expect) ? c.expect : {};
  return {
    id: str(c.id) || newCaseId(),
    name: str(c.name, 'case'),
    inputs: normalizeDraft(isRecord(c.inputs) ? c.inputs : {}),
    expect: e.error === true ? { error: true } : { error: false, value: str(e.value, 'true') },
  };
}

let caseCounter = 0;
export const newCaseId = (): string => `c${Date.now().toString(36)}${(caseCounter++).toString(36)}`;

// ---------------------------------------------------------------------------
// Defaults from the document's rules

// kindForResource and minimalObject live in src/k8s/resources.ts (shared with the policy test run).

interface Rule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function firstRule(object: unknown): Rule | undefined {
  if (!isRecord(object)) return undefined;
  const candidates: unknown[] = [];
  if (Array.isArray(object.webhooks)) for (const w of object.webhooks) if (isRecord(w) && Array.isArray(w.rules)) candidates.push(...w.rules);
  const spec = isRecord(object.spec) ? object.spec : undefined;
  const mc = spec && isRecord(spec.matchConstraints) ? spec.matchConstraints : undefined;
  if (mc && Array.isArray(mc.resourceRules)) candidates.push(...mc.resourceRules);
  for (const r of candidates) {
    if (!isRecord(r)) continue;
    const resources = strings(r.resources).filter((x) => x !== '*' && !x.startsWith('*/'));
    if (!resources.length) continue;
    return { operations: strings(r.operations), apiGroups: strings(r.apiGroups), apiVersions: strings(r.apiVersions), resources };
  }
  return undefined;
}

/** Params the expressions read (`params.data.maxReplicas`) get a value, so the defaults evaluate. */
function paramsFor(object: Record<string, unknown>, text: string): string {
  const spec = isRecord(object.spec) ? object.spec : {};
  const pk = isRecord(spec.paramKind) ? spec.paramKind : undefined;
  if (!pk) return '';
  const kind = str(pk.kind, 'ConfigMap');
  const p: Record<string, unknown> = { apiVersion: str(pk.apiVersion, 'v1'), kind, metadata: { name: 'params', namespace: 'default' } };
  const keys = [...new Set([...text.matchAll(/params\.data\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]))];
  if (kind === 'ConfigMap') p.data = Object.fromEntries((keys.length ? keys : ['key']).map((k) => [k, '5']));
  else p.spec = {};
  return serializeDocuments([p]);
}

const defaultsCache = new Map<string, InputsDraft>();

/**
 * Inputs that make sense for a document: a request for the first matched resource (its first
 * operation, CREATE when allowed) with a minimal object of that kind, a namespace, and params
 * when the policy has a paramKind. Stable (same object) while the rules stay the same.
 */
export function defaultInputs(object: unknown): InputsDraft {
  const rule = firstRule(object);
  const o = isRecord(object) ? object : {};
  const spec = isRecord(o.spec) ? o.spec : {};
  const exprText = JSON.stringify(spec.validations ?? '') + JSON.stringify(spec.variables ?? '') + JSON.stringify(spec.mutations ?? '') + JSON.stringify(spec.matchConditions ?? '') + JSON.stringify(spec.auditAnnotations ?? '');
  const key = JSON.stringify([rule, spec.paramKind, exprText.match(/params\.data\.\w+/g)]);
  const hit = defaultsCache.get(key);
  if (hit) return hit;
  const req = emptyRequest();
  if (rule) {
    const resourceFull = rule.resources[0];
    const [resource, sub] = resourceFull.split('/');
    const ops = rule.operations.filter((x) => x !== '*');
    req.operation = ops.length === 0 || ops.includes('CREATE') ? 'CREATE' : ops[0];
    req.group = rule.apiGroups.find((g) => g !== '*') ?? '';
    req.version = rule.apiVersions.find((v) => v !== '*') ?? 'v1';
    req.resource = resource;
    req.subResource = sub ?? '';
    req.kind = kindForResource(resource);
  }
  if (isClusterScoped(req.kind)) req.namespace = '';
  const obj = minimalObject(req.group, req.version, req.kind, req.namespace);
  const draft: InputsDraft = {
    object: req.operation === 'DELETE' ? '' : serializeDocuments([obj]),
    oldObject: req.operation === 'UPDATE' || req.operation === 'DELETE' ? serializeDocuments([obj]) : '',
    params: paramsFor(o, exprText),
    namespaceObject: serializeDocuments([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', labels: { 'kubernetes.io/metadata.name': 'default' } } },
    ]),
    request: req,
    authorizer: [],
  };
  if (defaultsCache.size > 100) defaultsCache.clear();
  defaultsCache.set(key, draft);
  return draft;
}

// ---------------------------------------------------------------------------
// Drafts → engine inputs

export interface InputError {
  field: 'object' | 'oldObject' | 'params' | 'namespaceObject';
  message: string;
  line: number;
  column: number;
}

export interface ConvertedInputs {
  inputs: CelInputs;
  errors: InputError[];
}

const parsedCache = new Map<string, { value: unknown; error?: Omit<InputError, 'field'> }>();

/** One YAML input: '' is absent (null); a parse error keeps the value absent and reports where. */
function parseInput(text: string): { value: unknown; error?: Omit<InputError, 'field'> } {
  const hit = parsedCache.get(text);
  if (hit) return hit;
  let r: { value: unknown; error?: Omit<InputError, 'field'> };
  if (!text.trim()) r = { value: null };
  else {
    const { documents, errors } = parseDocuments(text);
    if (errors.length) r = { value: null, error: { message: errors[0].message, line: errors[0].line, column: errors[0].column } };
    else if (documents.length > 1) r = { value: documents[0].object, error: { message: `${documents.length} documents: only the first is used`, line: 1, column: 1 } };
    else r = { value: documents[0]?.object ?? null };
  }
  if (parsedCache.size > 200) parsedCache.clear();
  parsedCache.set(text, r);
  return r;
}

export function requestValue(r: RequestDraft): Record<string, unknown> {
  const req: Record<string, unknown> = {
    kind: { group: r.group, version: r.version, kind: r.kind },
    resource: { group: r.group, version: r.version, resource: r.resource },
    operation: r.operation,
    userInfo: { username: r.username, ...(r.groups.length ? { groups: r.groups } : {}) },
    dryRun: r.dryRun,
  };
  if (r.subResource) req.subResource = r.subResource;
  if (r.name) req.name = r.name;
  if (r.namespace) req.namespace = r.namespace;
  return req;
}

function authorizerRules(rules: readonly AuthorizerRule[]): AuthorizerRule[] {
  return rules.map((r) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(r)) if (v !== '' && v !== undefined) out[k] = v;
    return out as unknown as AuthorizerRule;
  });
}

const converted = new WeakMap<InputsDraft, ConvertedInputs>();

/** The engine inputs of a draft: one immutable object per draft object (the engine marshals it once). */
export function toCelInputs(draft: InputsDraft): ConvertedInputs {
  const hit = converted.get(draft);
  if (hit) return hit;
  const errors: InputError[] = [];
  const take = (field: InputError['field']) => {
    const r = parseInput(draft[field]);
    if (r.error) errors.push({ field, ...r.error });
    return r.value;
  };
  const inputs: CelInputs = {
    object: take('object'),
    oldObject: take('oldObject'),
    params: take('params'),
    namespaceObject: take('namespaceObject'),
    request: requestValue(draft.request),
    authorizer: { rules: authorizerRules(draft.authorizer) },
  };
  const r = { inputs, errors };
  converted.set(draft, r);
  return r;
}

// ---------------------------------------------------------------------------
// Expectations

/** Deep equality of JSON-like values (object key order ignored; 1 and 1.0 equal). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'bigint' || typeof b === 'bigint') return String(a) === String(b);
  if ((typeof a === 'number' && typeof b === 'string') || (typeof a === 'string' && typeof b === 'number')) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
  }
  return false;
}

/** The expected value of a case (YAML text); an unparsable text is reported. */
export function expectedValue(text: string): { value: unknown } | { error: string } {
  if (!text.trim()) return { value: null };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    // not JSON: YAML (parseDocuments reads mappings, so the value is wrapped in one)
  }
  const wrapped = `value:\n${text.replace(/^/gm, '  ')}\n`;
  const { documents, errors } = parseDocuments(wrapped);
  if (errors.length) return { error: errors[0].message };
  return { value: (documents[0]?.object as { value?: unknown } | undefined)?.value ?? null };
}

export type Outcome = { ok: true; value: unknown } | { ok: false };

/** Whether a result meets a case's expectation. */
export function passes(expect: Expectation, outcome: Outcome): boolean {
  if (expect.error) return !outcome.ok;
  if (!outcome.ok) return false;
  // Ints beyond ±2^53 come back as decimal strings: compare their text.
  if (typeof outcome.value === 'string' && /^-?\d+$/.test(expect.value.trim())) return outcome.value === expect.value.trim();
  const e = expectedValue(expect.value);
  if ('error' in e) return false;
  return sameValue(e.value, outcome.value);
}

/** A value as the expectation text a new case starts with. */
export function expectationText(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null';
  } catch {
    return String(value);
  }
}
