/**
 * Test inputs for policy runs, per policy document: the request, object, oldObject,
 * namespace, params and authorizer answers, as the user typed them (YAML texts are kept
 * verbatim). Saved in the browser like the workspace, under its own key.
 */
import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { PolicyTestCase } from '../policy';
import { isClusterScoped, kindForResource, minimalObject } from '../k8s/resources';
import { serializeDocuments } from '../yaml';
import { autosave, readJSON } from './autosave';

export interface RequestForm {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  group: string;
  version: string;
  resource: string;
  subResource: string;
  kind: string;
  namespace: string;
  name: string;
  username: string;
  groups: string;
  dryRun: boolean;
}

export interface PolicyTestInputs {
  request: RequestForm;
  objectText: string;
  oldObjectText: string;
  /** The request's Namespace (labels for namespaceSelector, `namespaceObject` in CEL). */
  namespaceText: string;
  /** Params typed in; empty: use the workspace's documents of the policy's paramKind. */
  paramsText: string;
  /** Authorizer answers as YAML: `rules: [{verb, resource, decision}]`. */
  authorizerText: string;
}

interface State {
  byDoc: Record<string, PolicyTestInputs>;
  /** Saved test cases per policy document. */
  cases: Record<string, PolicyTestCase[]>;
}

const KEY = 'admission-workbench/policy-tests/v1';

const firstOf = (v: unknown, fallback: string): string => {
  const s = Array.isArray(v) ? v.find((x) => typeof x === 'string' && x !== '*' && !x.includes('*')) : undefined;
  return typeof s === 'string' ? s : fallback;
};

/** Inputs pre-filled from the policy's first resource rule: a CREATE of the first matched resource. */
export function defaultInputs(policy: unknown): PolicyTestInputs {
  const rule = ((policy as { spec?: { matchConstraints?: { resourceRules?: Record<string, unknown>[] } } })?.spec?.matchConstraints?.resourceRules ?? [])[0] ?? {};
  const ops = Array.isArray(rule.operations) ? rule.operations : [];
  const operation = (ops.find((o) => o !== '*') ?? 'CREATE') as RequestForm['operation'];
  const resourceEntry = firstOf(rule.resources, 'pods');
  const [resource, subResource = ''] = resourceEntry.split('/');
  const group = firstOf(rule.apiGroups, Array.isArray(rule.apiGroups) && rule.apiGroups.includes('') ? '' : resource === 'deployments' ? 'apps' : '');
  const version = firstOf(rule.apiVersions, 'v1');
  const kind = kindForResource(resource);
  const namespace = isClusterScoped(kind) ? '' : 'default';
  return {
    request: { operation, group, version, resource, subResource, kind, namespace, name: 'example', username: 'jane@example.com', groups: 'system:authenticated', dryRun: false },
    objectText: serializeDocuments([minimalObject(group, version, kind, namespace)]),
    oldObjectText: '',
    namespaceText: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: default\n  labels:\n    kubernetes.io/metadata.name: default\n',
    paramsText: '',
    authorizerText: 'rules: []\n',
  };
}

function load(): State {
  const s = typeof localStorage !== 'undefined' ? (readJSON(localStorage, KEY) as Partial<State> | undefined) : undefined;
  return s && typeof s.byDoc === 'object' && s.byDoc ? { byDoc: s.byDoc, cases: s.cases ?? {} } : { byDoc: {}, cases: {} };
}

export const policyTests = createStore<State>()(() => load());

if (typeof localStorage !== 'undefined') {
  const stop = autosave(policyTests, (s) => localStorage.setItem(KEY, JSON.stringify(s)), (s, prev) => s !== prev);
  if (typeof window !== 'undefined') window.addEventListener('pagehide', stop);
}

export function inputsFor(docId: string, policy: unknown): PolicyTestInputs {
  return policyTests.getState().byDoc[docId] ?? defaultInputs(policy);
}

export function setInputs(docId: string, policy: unknown, patch: Partial<PolicyTestInputs>): void {
  const current = inputsFor(docId, policy);
  policyTests.setState((s) => ({ ...s, byDoc: { ...s.byDoc, [docId]: { ...current, ...patch } } }));
}

export function resetInputs(docId: string): void {
  policyTests.setState((s) => {
    const { [docId]: _dropped, ...rest } = s.byDoc;
    return { ...s, byDoc: rest };
  });
}

export function usePolicyInputs(docId: string): PolicyTestInputs | undefined {
  return useStore(policyTests, (s) => s.byDoc[docId]);
}

const NO_CASES: readonly PolicyTestCase[] = [];

export function usePolicyCases(docId: string): readonly PolicyTestCase[] {
  return useStore(policyTests, (s) => s.cases[docId] ?? NO_CASES);
}

/** Add a case (a case with the same name is replaced). */
export function saveCase(docId: string, c: PolicyTestCase): void {
  policyTests.setState((s) => {
    const list = (s.cases[docId] ?? []).filter((x) => x.name !== c.name);
    return { ...s, cases: { ...s.cases, [docId]: [...list, c] } };
  });
}

export function deleteCase(docId: string, name: string): void {
  policyTests.setState((s) => ({ ...s, cases: { ...s.cases, [docId]: (s.cases[docId] ?? []).filter((x) => x.name !== name) } }));
}
