/**
 * The workspace file: one versioned JSON payload for share links, "Download workspace file" and
 * the CLI's `--cases FILE`. Older versions are migrated, unknown fields ignored, a newer version
 * refused with a clear message. Its fields: README.md ("The workspace file").
 */
import type { PolicyTestCase } from '../policy/cases';
import { isObject, str, type Obj } from '../base/json';
import { emptyDocTests, newId, readCelExpectation, readDraft, readPolicyCase, readSavedTests, readScenario } from '../request';
import type { CelCase, DocTests, Scenario, SimulatorDraft, TestInputDraft, TestsData } from '../request';
import { isKubernetesVersion, isWorkspaceGate, KUBERNETES_VERSIONS, type KubernetesVersion, type WorkspaceGate } from '../base/releases';
import { DEFAULT_STATIC_ORDER, isStaticOrder, STATIC_ORDERS, type StaticOrder } from '../k8s/static-manifests';
import { isPlatformId, nearestKubernetesVersion, nearestPlatform, platformOf, PLATFORM_IDS, type PlatformId } from '../base/platforms';
import { CEL_CONTEXTS, type CelContext } from '../cel/types';
import { isListSlot, type ListSlot } from '../yaml';
import { DEFAULT_FIELD_VALIDATION, FIELD_VALIDATIONS, isFieldValidation, type FieldValidation } from '../k8s/field-validation';

export const WORKSPACE_FORMAT = 'admission-workbench/workspace';
export const WORKSPACE_VERSION = 2;

export interface WorkspaceFileDocument {
  name?: string;
  text: string;
  /** The file it was opened from, by its path in the folder opened (a source test names its files by such paths). */
  file?: string;
  /** What stood before it in its file (since version 2). */
  separator?: string;
  /** A static admission manifest. */
  static?: true;
  /** An item of a `kind: List` and where it sat in it (src/yaml/list-items.ts): export writes the List back around its items. */
  listItem?: ListSlot;
}

export interface CelCaseGroup {
  document: number;
  path: string;
  cases: CelCase[];
}

export interface PolicyCaseGroup {
  /** The policy: an index into `documents`, or … */
  document?: number;
  /** … its metadata.name (the CLI looks it up among the checked files too). */
  policy?: string;
  cases: PolicyTestCase[];
}

export interface DraftEntry {
  document: number;
  draft: TestInputDraft;
}

/** The CEL scratchpad: a bare expression in one of the admission contexts, with its own test input (version 2). */
export interface ScratchpadFile {
  context: CelContext;
  expression: string;
  /** Whether `params` is declared (as a policy with spec.paramKind does). */
  params: boolean;
  draft: TestInputDraft;
}

export interface WorkspaceFile {
  format: typeof WORKSPACE_FORMAT;
  version: typeof WORKSPACE_VERSION;
  kubernetesVersion?: KubernetesVersion;
  /** A target platform (base/platforms.ts); kubernetesVersion is then its Kubernetes release. */
  platform?: PlatformId;
  /** Every document is a static admission manifest. */
  staticManifests?: true;
  /** The writes' field validation directive (absent: Strict, as kubectl sends; files from before the setting read so). */
  fieldValidation?: FieldValidation;
  /** Where static mutating webhooks run among the API ones (absent: StaticFirst; honoured from the release whose row has chain.webhookStaticOrder). */
  staticOrder?: StaticOrder;
  /** Feature gates turned on beyond the release's defaults (base/releases.ts WORKSPACE_GATES). */
  featureGates?: WorkspaceGate[];
  documents: WorkspaceFileDocument[];
  drafts?: DraftEntry[];
  celCases?: CelCaseGroup[];
  policyCases?: PolicyCaseGroup[];
  scenarios?: Scenario[];
  simulator?: SimulatorDraft;
  scratchpad?: ScratchpadFile;
}

export type ReadResult = { ok: true; workspace: WorkspaceFile; warnings: string[] } | { ok: false; error: string };

/**
 * Migrations: `MIGRATIONS[n]` turns a version-n payload into version n+1. Version 1 is the
 * first published one; add an entry here when the format changes, never edit old entries.
 */
export type Migration = (payload: Obj) => Obj;
export const MIGRATIONS: Readonly<Record<number, Migration>> = {
  // 2 adds optional fields only (documents[].separator, documents[].file, scratchpad): a version-1 payload is a valid version 2.
  1: (payload) => payload,
};

const isIndex = (v: unknown, length: number): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) < length;

function readDocuments(v: unknown): WorkspaceFileDocument[] | string {
  if (!Array.isArray(v)) return '"documents" must be a list of {name?, text}';
  const out: WorkspaceFileDocument[] = [];
  for (const [i, d] of v.entries()) {
    if (!isObject(d)) return `documents[${i}] must be an object with a "text" string`;
    if (typeof d.text !== 'string') return `documents[${i}].text must be a string`;
    out.push({
      ...(typeof d.name === 'string' && d.name ? { name: d.name } : {}),
      text: d.text,
      ...(typeof d.file === 'string' && d.file ? { file: d.file } : {}),
      ...(typeof d.separator === 'string' && d.separator ? { separator: d.separator } : {}),
      ...(d.static === true ? { static: true as const } : {}),
      ...(isListSlot(d.listItem) ? { listItem: d.listItem } : {}),
    });
  }
  return out;
}

/** Reads the optional list `key`, keeping the entries `read` accepts; a warning for each one dropped. */
function readList<T>(payload: Obj, key: string, warnings: string[], read: (v: unknown, i: number) => T | string): T[] | undefined {
  const v = payload[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) {
    warnings.push(`"${key}" is not a list: ignored`);
    return undefined;
  }
  const out: T[] = [];
  v.forEach((entry, i) => {
    const r = read(entry, i);
    if (typeof r === 'string') warnings.push(`${key}[${i}]: ${r}: ignored`);
    else out.push(r);
  });
  return out;
}

function readCelCase(v: unknown, i: number): CelCase | undefined {
  if (!isObject(v)) return undefined;
  return { id: str(v.id) || newId(), name: str(v.name) || `case ${i + 1}`, input: readDraft(v.input), expect: readCelExpectation(v.expect) };
}

const defined = <T>(x: T | undefined): x is T => x !== undefined;

/** Validates and normalises a parsed workspace payload (any JSON value). Never throws. */
export function readWorkspaceFile(value: unknown, migrations: Readonly<Record<number, Migration>> = MIGRATIONS): ReadResult {
  if (!isObject(value)) return { ok: false, error: 'not an Admission Workbench workspace: expected a JSON object' };
  if (value.format !== WORKSPACE_FORMAT) {
    return {
      ok: false,
      error: `not an Admission Workbench workspace: "format" is ${value.format === undefined ? 'missing' : JSON.stringify(value.format)}, expected "${WORKSPACE_FORMAT}"`,
    };
  }
  let payload: Obj = value;
  if (!Number.isInteger(payload.version) || (payload.version as number) < 0)
    return { ok: false, error: `"version" must be a whole number (this app writes ${WORKSPACE_VERSION})` };
  if ((payload.version as number) > WORKSPACE_VERSION) {
    return {
      ok: false,
      error: `the workspace was written by a newer Admission Workbench (format version ${String(payload.version)}; this one reads up to ${WORKSPACE_VERSION}): update the app`,
    };
  }
  while ((payload.version as number) < WORKSPACE_VERSION) {
    const from = payload.version as number;
    const migrate = migrations[from];
    if (!migrate) return { ok: false, error: `format version ${from} is not supported (this app reads ${WORKSPACE_VERSION})` };
    payload = { ...migrate(payload), version: from + 1 };
  }
  const documents = readDocuments(payload.documents);
  if (typeof documents === 'string') return { ok: false, error: documents };
  const warnings: string[] = [];
  const ws: WorkspaceFile = { format: WORKSPACE_FORMAT, version: WORKSPACE_VERSION, documents };
  readTarget(payload, ws, warnings);
  if (payload.staticManifests === true) ws.staticManifests = true;
  if (payload.fieldValidation !== undefined && payload.fieldValidation !== DEFAULT_FIELD_VALIDATION) {
    if (isFieldValidation(payload.fieldValidation)) ws.fieldValidation = payload.fieldValidation;
    else warnings.push(`fieldValidation ${JSON.stringify(payload.fieldValidation)} is not one of ${FIELD_VALIDATIONS.join(', ')}: Strict is used`);
  }
  if (payload.staticOrder !== undefined && payload.staticOrder !== DEFAULT_STATIC_ORDER) {
    if (isStaticOrder(payload.staticOrder)) ws.staticOrder = payload.staticOrder;
    else warnings.push(`staticOrder ${JSON.stringify(payload.staticOrder)} is not one of ${STATIC_ORDERS.join(', ')}: StaticFirst is used`);
  }
  if (payload.featureGates !== undefined) {
    const gates = Array.isArray(payload.featureGates) ? payload.featureGates : [payload.featureGates];
    const known = gates.filter(isWorkspaceGate);
    if (known.length) ws.featureGates = [...new Set(known)];
    for (const g of gates) if (!isWorkspaceGate(g)) warnings.push(`featureGates: ${JSON.stringify(g)} is not a gate this Workbench can turn on: ignored`);
  }
  const n = documents.length;
  const drafts = readList(payload, 'drafts', warnings, (v) =>
    isObject(v) && isIndex(v.document, n) ? { document: v.document, draft: readDraft(v.draft) } : 'needs a "document" index into documents',
  );
  const celCases = readList(payload, 'celCases', warnings, (v) => {
    if (!isObject(v) || !isIndex(v.document, n)) return 'needs a "document" index into documents';
    if (typeof v.path !== 'string' || !v.path) return 'needs the expression\'s "path"';
    return { document: v.document, path: v.path, cases: (Array.isArray(v.cases) ? v.cases : []).map(readCelCase).filter(defined) };
  });
  const policyCases = readList(payload, 'policyCases', warnings, (v): PolicyCaseGroup | string => {
    if (!isObject(v)) return 'must be an object';
    const byIndex = isIndex(v.document, n);
    if (!byIndex && (typeof v.policy !== 'string' || !v.policy)) return 'needs a "document" index into documents or a "policy" name';
    const cases = (Array.isArray(v.cases) ? v.cases : []).map(readPolicyCase).filter(defined);
    return { ...(byIndex ? { document: v.document as number } : {}), ...(typeof v.policy === 'string' && v.policy ? { policy: v.policy } : {}), cases };
  });
  const scenarios = readList(payload, 'scenarios', warnings, (v, i) => readScenario(v, i) ?? 'must be an object');
  if (drafts?.length) ws.drafts = drafts;
  if (celCases?.length) ws.celCases = celCases;
  if (policyCases?.length) ws.policyCases = policyCases;
  if (scenarios?.length) ws.scenarios = scenarios;
  const simulator = isObject(payload.simulator) ? readSavedTests({ version: 2, simulator: payload.simulator })?.simulator : undefined;
  if (simulator) ws.simulator = simulator;
  if (payload.scratchpad !== undefined) {
    const sp = payload.scratchpad;
    if (isObject(sp) && typeof sp.expression === 'string' && CEL_CONTEXTS.includes(sp.context as CelContext)) {
      ws.scratchpad = { context: sp.context as CelContext, expression: sp.expression, params: sp.params === true, draft: readDraft(sp.draft) };
    } else warnings.push(`"scratchpad" needs an "expression" and a "context" (one of ${CEL_CONTEXTS.join(', ')}): ignored`);
  }
  return { ok: true, workspace: ws, warnings };
}

/**
 * The target release and platform: one this Workbench lacks (a newer or older file) opens at the
 * nearest it has, and says so; a platform decides the Kubernetes release.
 */
function readTarget(payload: Obj, ws: WorkspaceFile, warnings: string[]): void {
  const v = payload.kubernetesVersion;
  if (isKubernetesVersion(v)) ws.kubernetesVersion = v;
  else if (v !== undefined) {
    const near = nearestKubernetesVersion(v);
    if (near) ws.kubernetesVersion = near;
    warnings.push(
      `kubernetesVersion ${JSON.stringify(v)} is not one of ${KUBERNETES_VERSIONS.join(', ')}: ${near ? `opened at the nearest, ${near}` : 'ignored'}`,
    );
  }
  const p = payload.platform;
  if (p === undefined) return;
  const platform = isPlatformId(p) ? p : nearestPlatform(p);
  if (platform !== p)
    warnings.push(`platform ${JSON.stringify(p)} is not one of ${PLATFORM_IDS.join(', ')}: ${platform ? `opened at the nearest, ${platform}` : 'ignored'}`);
  if (!platform) return;
  ws.platform = platform;
  ws.kubernetesVersion = platformOf(platform)!.kubernetesVersion;
}

/** Parses a workspace file's text (JSON) and reads it. */
export function parseWorkspaceFile(text: string): ReadResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `not JSON: ${(e as Error).message}` };
  }
  return readWorkspaceFile(value);
}

// ---------------------------------------------------------------------------
// The app's state ↔ the file

/** One workspace document as the app holds it. */
export interface AppDocument {
  id: string;
  text: string;
  name?: string;
  file?: string;
  separator?: string;
  static?: boolean;
  listItem?: ListSlot;
}

/** The app's documents and test data (the store's TestsData, by document id) as a workspace file. */
/** The workspace-wide settings a file carries (each written only when not its default). */
export interface WorkspaceSettings {
  kubernetesVersion?: KubernetesVersion;
  staticManifests?: boolean;
  platform?: PlatformId;
  fieldValidation?: FieldValidation;
  staticOrder?: StaticOrder;
  featureGates?: readonly WorkspaceGate[];
}

export function toWorkspaceFile(documents: readonly AppDocument[], tests?: TestsData, settings: WorkspaceSettings = {}): WorkspaceFile {
  const {
    kubernetesVersion,
    staticManifests = false,
    platform,
    fieldValidation = DEFAULT_FIELD_VALIDATION,
    staticOrder = DEFAULT_STATIC_ORDER,
    featureGates = [],
  } = settings;
  const ws: WorkspaceFile = {
    format: WORKSPACE_FORMAT,
    version: WORKSPACE_VERSION,
    ...(kubernetesVersion ? { kubernetesVersion } : {}),
    ...(platform ? { platform } : {}),
    ...(staticManifests ? { staticManifests: true as const } : {}),
    ...(fieldValidation !== DEFAULT_FIELD_VALIDATION ? { fieldValidation } : {}),
    ...(staticOrder !== DEFAULT_STATIC_ORDER ? { staticOrder } : {}),
    ...(featureGates.length ? { featureGates: [...featureGates] } : {}),
    documents: documents.map((d) => ({
      ...(d.name ? { name: d.name } : {}),
      text: d.text,
      ...(d.file ? { file: d.file } : {}),
      ...(d.separator ? { separator: d.separator } : {}),
      ...(d.static ? { static: true as const } : {}),
      ...(d.listItem ? { listItem: d.listItem } : {}),
    })),
  };
  if (!tests) return ws;
  const drafts: DraftEntry[] = [];
  const celCases: CelCaseGroup[] = [];
  const policyCases: PolicyCaseGroup[] = [];
  documents.forEach((d, document) => {
    const t = tests.docs[d.id];
    if (!t) return;
    if (t.draft) drafts.push({ document, draft: t.draft });
    for (const [path, cases] of Object.entries(t.celCases)) if (cases.length) celCases.push({ document, path, cases });
    if (t.policyCases.length) policyCases.push({ document, cases: t.policyCases });
  });
  if (drafts.length) ws.drafts = drafts;
  if (celCases.length) ws.celCases = celCases;
  if (policyCases.length) ws.policyCases = policyCases;
  if (tests.scenarios.length) ws.scenarios = tests.scenarios;
  if (tests.simulator) ws.simulator = tests.simulator;
  return ws;
}

/**
 * The file's test data for the store, given the ids the app gave its documents (same order).
 * Policy cases that name a policy are attached to the first document of that name.
 */
export function testsDataOf(ws: WorkspaceFile, docIds: readonly string[], names: readonly string[] = []): TestsData {
  const docs: Record<string, DocTests> = {};
  const at = (i: number): DocTests | undefined => {
    const id = docIds[i];
    if (id === undefined) return undefined;
    return (docs[id] ??= emptyDocTests());
  };
  for (const d of ws.drafts ?? []) {
    const t = at(d.document);
    if (t) t.draft = d.draft;
  }
  for (const g of ws.celCases ?? []) {
    const t = at(g.document);
    if (t) t.celCases[g.path] = [...(t.celCases[g.path] ?? []), ...g.cases];
  }
  for (const g of ws.policyCases ?? []) {
    const i = g.document ?? (g.policy !== undefined ? names.indexOf(g.policy) : -1);
    const t = i >= 0 ? at(i) : undefined;
    if (t) t.policyCases = [...t.policyCases, ...g.cases];
  }
  return { docs, scenarios: ws.scenarios ?? [], ...(ws.simulator ? { simulator: ws.simulator } : {}) };
}
