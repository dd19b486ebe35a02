/**
 * Saved test data (v2) as plain JSON: per document its test input draft, CEL cases (per
 * expression path) and policy cases; the simulator's scenarios and its current draft.
 * `readSavedTests` normalises whatever is stored (or shared) into this shape, dropping only
 * what cannot be read.
 */
import type { AuthorizerRule } from '../cel/types';
import { isObject, str, strList } from '../base/json';
import { isKubernetesVersion } from '../base/releases';
import { emptyRequestDraft, isOperation } from './draft';
import type { CelExpectation } from './expect';
import {
  CASE_OUTCOMES,
  type AdmissionRequest,
  type CaseOutcome,
  type GroupVersionKind,
  type GroupVersionResource,
  type PolicyTestCase,
  type RequestDraft,
  type TestInput,
  type TestInputDraft,
  type UserInfo,
} from './model';
import {
  WEBHOOK_RESPONSES,
  defaultResponse,
  readConditionalAuthorization,
  type ConditionalAuthorization,
  type Scenario,
  type ScenarioCluster,
  type WebhookResponseDraft,
} from './scenario';

export interface CelCase {
  id: string;
  name: string;
  input: TestInputDraft;
  expect: CelExpectation;
}

export interface DocTests {
  /** Absent until the user edits it: the defaults follow the document's rules until then. */
  draft?: TestInputDraft;
  /** By expression path (`spec.validations[0].expression`). */
  celCases: Record<string, CelCase[]>;
  policyCases: PolicyTestCase[];
  /** Expression paths whose Test area is open. */
  open: string[];
}

export interface SimulatorDraft {
  input: TestInputDraft;
  webhooks: Record<string, WebhookResponseDraft>;
  /** The authorizer's conditional decision assumed (absent: unconditional); acts only with ConditionalAuthorization on. */
  authorization?: ConditionalAuthorization;
  /** A cluster's objects the request meets beside the workspace's, and its release (a request opened from an Impact report). */
  cluster?: ScenarioCluster;
}

export interface TestsData {
  docs: Record<string, DocTests>;
  scenarios: Scenario[];
  /** The simulator's current request and responses (absent: the first template). */
  simulator?: SimulatorDraft;
}

export interface SavedTestsV2 extends TestsData {
  version: 2;
}

export const emptyDocTests = (): DocTests => ({ celCases: {}, policyCases: [], open: [] });

let counter = 0;
export const newId = (prefix = 'c'): string => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;

const decisionOf = (v: unknown): AuthorizerRule['decision'] => (v === 'allow' || v === 'deny' ? v : 'noOpinion');

export function readAuthorizer(v: unknown): AuthorizerRule[] {
  return (Array.isArray(v) ? v : []).filter(isObject).map((a) => {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(a)) if (typeof x === 'string') out[k] = x;
    return { ...out, decision: decisionOf(a.decision) } as AuthorizerRule;
  });
}

export function readRequestDraft(v: unknown, defaults: RequestDraft = emptyRequestDraft()): RequestDraft {
  const r = isObject(v) ? v : {};
  const s = (k: keyof RequestDraft) => (typeof r[k] === 'string' ? (r[k] as string) : (defaults[k] as string));
  return {
    operation: isOperation(r.operation) ? r.operation : defaults.operation,
    group: s('group'),
    version: s('version'),
    resource: s('resource'),
    subResource: s('subResource'),
    kind: s('kind'),
    name: s('name'),
    namespace: s('namespace'),
    username: s('username'),
    uid: s('uid'),
    groups: Array.isArray(r.groups) ? strList(r.groups) : typeof r.groups === 'string' ? splitGroups(r.groups) : [...defaults.groups],
    ...(isObject(r.extra) ? { extra: readExtra(r.extra) } : {}),
    dryRun: typeof r.dryRun === 'boolean' ? r.dryRun : defaults.dryRun,
  };
}

const readExtra = (v: Record<string, unknown>): Record<string, string[]> => Object.fromEntries(Object.entries(v).map(([k, x]) => [k, strList(x)]));

/** `a, b c` → ['a', 'b', 'c'] (the old policy form's groups field). */
export const splitGroups = (s: string): string[] => s.split(/[\s,]+/).filter(Boolean);

export function readDraft(v: unknown): TestInputDraft {
  const d = isObject(v) ? v : {};
  return {
    request: readRequestDraft(d.request),
    object: str(d.object),
    oldObject: str(d.oldObject),
    params: str(d.params),
    namespaceObject: str(d.namespaceObject),
    authorizer: readAuthorizer(d.authorizer),
    ...(typeof d.options === 'string' && d.options ? { options: d.options } : {}),
  };
}

/** A stored scenario's cluster objects and release (absent when there are none to read). */
export function readScenarioCluster(v: unknown): ScenarioCluster | undefined {
  if (!isObject(v) || !Array.isArray(v.objects)) return undefined;
  return {
    source: str(v.source),
    objects: v.objects.filter(isObject),
    ...(typeof v.kubernetesVersion === 'string' && isKubernetesVersion(v.kubernetesVersion) ? { kubernetesVersion: v.kubernetesVersion } : {}),
  };
}

export function readCelExpectation(v: unknown): CelExpectation {
  const e = isObject(v) ? v : {};
  return e.error === true ? { error: true } : { error: false, value: typeof e.value === 'string' ? e.value : 'true' };
}

const gvr = (v: unknown): GroupVersionResource => {
  const o = isObject(v) ? v : {};
  return { group: str(o.group), version: str(o.version), resource: str(o.resource) };
};
const gvk = (v: unknown): GroupVersionKind => {
  const o = isObject(v) ? v : {};
  return { group: str(o.group), version: str(o.version), kind: str(o.kind) };
};

function readUserInfo(v: unknown): UserInfo {
  const u = isObject(v) ? v : {};
  const out: UserInfo = { username: str(u.username) };
  if (typeof u.uid === 'string' && u.uid) out.uid = u.uid;
  if (Array.isArray(u.groups)) out.groups = strList(u.groups);
  if (isObject(u.extra)) out.extra = readExtra(u.extra);
  return out;
}

/** A stored admission request (any shape saved so far, fields partly absent) in the one model. */
export function readAdmissionRequest(v: unknown): AdmissionRequest {
  const r = isObject(v) ? v : {};
  const out: AdmissionRequest = {
    operation: isOperation(r.operation) ? r.operation : 'CREATE',
    resource: gvr(r.resource),
    kind: gvk(r.kind),
  };
  if (typeof r.uid === 'string' && r.uid) out.uid = r.uid;
  if (typeof r.subResource === 'string' && r.subResource) out.subResource = r.subResource;
  if (isObject(r.requestResource)) out.requestResource = gvr(r.requestResource);
  if (isObject(r.requestKind)) out.requestKind = gvk(r.requestKind);
  if (typeof r.requestSubResource === 'string' && r.requestSubResource) out.requestSubResource = r.requestSubResource;
  if (typeof r.name === 'string' && r.name) out.name = r.name;
  if (typeof r.namespace === 'string' && r.namespace) out.namespace = r.namespace;
  if (r.object !== undefined && r.object !== null) out.object = r.object;
  if (r.oldObject !== undefined && r.oldObject !== null) out.oldObject = r.oldObject;
  if (isObject(r.userInfo)) out.userInfo = readUserInfo(r.userInfo);
  if (typeof r.dryRun === 'boolean') out.dryRun = r.dryRun;
  if (r.options !== undefined && r.options !== null) out.options = r.options;
  return out;
}

/** A stored test input (request, params, namespaceObject, authorizer rules) in the one model. */
export function readTestInput(v: unknown): TestInput {
  const t = isObject(v) ? v : {};
  const input: TestInput = { request: readAdmissionRequest(t.request) };
  if (t.params !== undefined && t.params !== null) input.params = t.params;
  if (t.namespaceObject !== undefined && t.namespaceObject !== null) input.namespaceObject = t.namespaceObject;
  // the shape before the one model kept authorizer answers as {rules: [...]}
  const rules = isObject(t.authorizer) ? t.authorizer.rules : t.authorizer;
  if (Array.isArray(rules)) input.authorizer = readAuthorizer(rules);
  return input;
}

/**
 * A stored policy case, or undefined when it has no request to run. Reads the one model's
 * shape (`{name, input, expect}`) and the shape saved before it (`{name, request, object,
 * oldObject, params, namespaceObject, authorizer: {rules}, expect}`: share links, workspace
 * files and the browser's storage of earlier versions).
 */
export function readPolicyCase(v: unknown, i: number): PolicyTestCase | undefined {
  if (!isObject(v)) return undefined;
  let input: TestInput;
  if (isObject(v.input) && isObject(v.input.request)) input = readTestInput(v.input);
  else if (isObject(v.request)) input = readTestInput({ ...v, request: { ...v.request, object: v.object, oldObject: v.oldObject } });
  else return undefined;
  const e = isObject(v.expect) ? v.expect : {};
  const c: PolicyTestCase = {
    name: str(v.name) || `case ${i + 1}`,
    input,
    expect: { outcome: CASE_OUTCOMES.includes(e.outcome as CaseOutcome) ? (e.outcome as CaseOutcome) : 'admit' },
  };
  if (typeof e.message === 'string') c.expect.message = e.message;
  if (e.object !== undefined) c.expect.object = e.object;
  if (e.orSkip === true && c.expect.outcome === 'admit') c.expect.orSkip = true;
  return c;
}

function readResponses(v: unknown): Record<string, WebhookResponseDraft> {
  const out: Record<string, WebhookResponseDraft> = {};
  if (!isObject(v)) return out;
  for (const [name, r] of Object.entries(v)) {
    if (!isObject(r)) continue;
    const d = defaultResponse();
    out[name] = {
      response: WEBHOOK_RESPONSES.includes(r.response as WebhookResponseDraft['response']) ? (r.response as WebhookResponseDraft['response']) : d.response,
      patch: typeof r.patch === 'string' ? r.patch : d.patch,
      warnings: typeof r.warnings === 'string' ? r.warnings : d.warnings,
    };
  }
  return out;
}

export function readScenario(v: unknown, i: number): Scenario | undefined {
  if (!isObject(v)) return undefined;
  const e = isObject(v.expect) ? v.expect : {};
  const cluster = readScenarioCluster(v.cluster);
  return {
    id: str(v.id) || newId('s'),
    name: str(v.name) || `scenario ${i + 1}`,
    input: readDraft(v.input),
    webhooks: readResponses(v.webhooks),
    ...authorizationOf(v.authorization),
    ...(cluster ? { cluster } : {}),
    expect: { allowed: e.allowed !== false, ...(typeof e.deniedBy === 'string' && e.deniedBy ? { deniedBy: e.deniedBy } : {}) },
  };
}

/** A stored simulator draft (the request, the assumed webhook responses, the cluster's objects). */
export function readSimulatorDraft(v: Record<string, unknown>): SimulatorDraft {
  const cluster = readScenarioCluster(v.cluster);
  return { input: readDraft(v.input), webhooks: readResponses(v.webhooks), ...authorizationOf(v.authorization), ...(cluster ? { cluster } : {}) };
}

const authorizationOf = (v: unknown): { authorization?: ConditionalAuthorization } => {
  const a = readConditionalAuthorization(v);
  return a ? { authorization: a } : {};
};

function readDocTests(v: unknown): DocTests {
  const d = isObject(v) ? v : {};
  const celCases: Record<string, CelCase[]> = {};
  if (isObject(d.celCases)) {
    for (const [path, cs] of Object.entries(d.celCases)) {
      celCases[path] = (Array.isArray(cs) ? cs : []).filter(isObject).map((c, i) => ({
        id: str(c.id) || newId(),
        name: str(c.name) || `case ${i + 1}`,
        input: readDraft(c.input),
        expect: readCelExpectation(c.expect),
      }));
    }
  }
  return {
    ...(isObject(d.draft) ? { draft: readDraft(d.draft) } : {}),
    celCases,
    policyCases: (Array.isArray(d.policyCases) ? d.policyCases : []).map(readPolicyCase).filter((c): c is PolicyTestCase => !!c),
    open: strList(d.open),
  };
}

/** Saved (or shared) test data in the v2 shape, or undefined when it is not v2 data. */
export function readSavedTests(v: unknown): TestsData | undefined {
  if (!isObject(v) || v.version !== 2) return undefined;
  const docs: Record<string, DocTests> = {};
  if (isObject(v.docs)) for (const [id, d] of Object.entries(v.docs)) docs[id] = readDocTests(d);
  const scenarios = (Array.isArray(v.scenarios) ? v.scenarios : []).map(readScenario).filter((s): s is Scenario => !!s);
  const sim = isObject(v.simulator) ? readSimulatorDraft(v.simulator) : undefined;
  return { docs, scenarios, ...(sim ? { simulator: sim } : {}) };
}

export function toSaved(data: TestsData): SavedTestsV2 {
  return { version: 2, docs: data.docs, scenarios: data.scenarios, ...(data.simulator ? { simulator: data.simulator } : {}) };
}
