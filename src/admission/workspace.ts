/**
 * The workspace as the admission plugins see it: webhook configurations sorted by name with their
 * webhooks defaulted, policies and their bindings by name, param candidates and Namespaces, the
 * static manifests first (mutating webhooks: as the release's `staticOrder` places them); every entry keeps its index in `objects`, so a step can point at its
 * document and field. Never changes the input. README.md ("The chain").
 */
import { withDefaults } from '../k8s/defaults';
import { DEFAULT_STATIC_ORDER, type StaticOrder } from '../k8s/static-manifests';
import { BINDING_KIND_OF } from '../k8s/resources';
import { isObject, list, nameOf, obj, str, type Obj } from '../base/json';
import type { DocumentRef, SimStepKind } from './types';

export interface WorkspaceWebhook {
  configKind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  configName: string;
  /** Document of the configuration. */
  document: DocumentRef;
  /** Position in the configuration's `webhooks`. */
  index: number;
  /** The defaulted webhook. */
  webhook: Obj;
  name: string;
  /** The apiserver's UID of the webhook (configuration/name/index of duplicates). */
  uid: string;
  /** Loaded from a static manifest (evaluated first, also for admission configuration resources). */
  static?: true;
}

export interface WorkspacePolicy {
  kind: 'MutatingAdmissionPolicy' | 'ValidatingAdmissionPolicy';
  name: string;
  document: DocumentRef;
  /** The policy as written (the runners default it). */
  policy: unknown;
  /** Defaulted spec. */
  spec: Obj;
  bindings: WorkspaceBinding[];
  /** Loaded from a static manifest (evaluated first, also for admission configuration resources). */
  static?: true;
}

export interface WorkspaceBinding {
  name: string;
  document: DocumentRef;
  binding: unknown;
  spec: Obj;
  static?: true;
}

/** The workspace as the admission chain reads it (store/workspace.ts Workspace is the app state). */
export interface AdmissionWorkspace {
  webhooks: { mutating: WorkspaceWebhook[]; validating: WorkspaceWebhook[] };
  policies: { mutating: WorkspacePolicy[]; validating: WorkspacePolicy[] };
  /** Bindings whose spec.policyName names no policy of the workspace (the apiserver ignores them). */
  orphanBindings: (WorkspaceBinding & { kind: 'MutatingAdmissionPolicyBinding' | 'ValidatingAdmissionPolicyBinding'; policyName: string })[];
  /** Every document (param candidates). */
  documents: readonly unknown[];
  namespaces: Map<string, { object: Obj; document: DocumentRef }>;
}

const ref = (kind: string, o: unknown, index: number): DocumentRef => ({ kind, name: nameOf(o), index });
const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
/** Static first, then by name. */
const staticThenName = <T extends { name: string; static?: true }>(a: T, b: T) => (a.static === b.static ? byName(a, b) : a.static ? -1 : 1);
/**
 * The mutating webhook configurations' order for a `staticOrder` (composite_webhook_source.go
 * mergeAccessors: each source sorted by name, then static ++ API, API ++ static, or both stably
 * sorted by name, static first among equal names).
 */
const MUTATING_ORDER: Record<StaticOrder, <T extends { name: string; static?: true }>(a: T, b: T) => number> = {
  StaticFirst: staticThenName,
  StaticLast: (a, b) => (a.static === b.static ? byName(a, b) : a.static ? 1 : -1),
  ByName: (a, b) => byName(a, b) || (a.static === b.static ? 0 : a.static ? -1 : 1),
};
const staticMark = (yes: boolean): { static?: true } => (yes ? { static: true } : {});

export function collectWorkspace(
  objects: readonly unknown[],
  extraNamespaces: readonly unknown[] = [],
  isStatic: (index: number) => boolean = () => false,
  staticOrder: StaticOrder = DEFAULT_STATIC_ORDER,
): AdmissionWorkspace {
  const configs: { kind: WorkspaceWebhook['configKind']; name: string; o: Obj; index: number; static?: true }[] = [];
  const policies: WorkspacePolicy[] = [];
  const bindings: { kind: string; b: WorkspaceBinding; policyName: string }[] = [];
  const namespaces: AdmissionWorkspace['namespaces'] = new Map();
  objects.forEach((o, index) => {
    if (!isObject(o)) return;
    const kind = str(o.kind);
    if (kind === 'MutatingWebhookConfiguration' || kind === 'ValidatingWebhookConfiguration') {
      configs.push({ kind, name: nameOf(o), o, index, ...staticMark(isStatic(index)) });
    } else if (kind === 'MutatingAdmissionPolicy' || kind === 'ValidatingAdmissionPolicy') {
      policies.push({
        kind,
        name: nameOf(o),
        document: ref(kind, o, index),
        policy: o,
        spec: obj(obj(withDefaults(o)).spec),
        bindings: [],
        ...staticMark(isStatic(index)),
      });
    } else if (kind === 'MutatingAdmissionPolicyBinding' || kind === 'ValidatingAdmissionPolicyBinding') {
      const spec = obj(obj(withDefaults(o)).spec);
      bindings.push({
        kind,
        b: { name: nameOf(o), document: ref(kind, o, index), binding: o, spec, ...staticMark(isStatic(index)) },
        policyName: str(spec.policyName),
      });
    } else if (kind === 'Namespace' && nameOf(o)) {
      namespaces.set(nameOf(o), { object: o, document: ref(kind, o, index) });
    }
  });
  extraNamespaces.forEach((o) => {
    if (isObject(o) && nameOf(o)) namespaces.set(nameOf(o), { object: o, document: ref('Namespace', o, -1) });
  });
  // validating webhooks run in parallel: their plugin takes only StaticFirst
  // (the kinds apart: they go to two lists below)
  configs.sort((a, b) =>
    a.kind !== b.kind ? (a.kind < b.kind ? -1 : 1) : a.kind === 'MutatingWebhookConfiguration' ? MUTATING_ORDER[staticOrder](a, b) : staticThenName(a, b),
  );

  const webhooks: AdmissionWorkspace['webhooks'] = { mutating: [], validating: [] };
  for (const c of configs) {
    const defaulted = obj(withDefaults(c.o));
    const seen = new Map<string, number>();
    list(defaulted.webhooks).forEach((w, index) => {
      const name = str(obj(w).name);
      const n = seen.get(name) ?? 0;
      seen.set(name, n + 1);
      const entry: WorkspaceWebhook = {
        configKind: c.kind,
        configName: c.name,
        document: ref(c.kind, c.o, c.index),
        index,
        webhook: obj(w),
        name,
        // manifest/loader.go BuildValidatingAccessors: static webhooks' UIDs start with manifest/
        uid: `${c.static ? 'manifest/' : ''}${c.name}/${name}/${n}`,
        ...staticMark(c.static === true),
      };
      (c.kind === 'MutatingWebhookConfiguration' ? webhooks.mutating : webhooks.validating).push(entry);
    });
  }

  const orphanBindings: AdmissionWorkspace['orphanBindings'] = [];
  for (const { kind, b, policyName } of bindings) {
    const p = policies.find((x) => BINDING_KIND_OF[x.kind] === kind && x.name === policyName && x.static === b.static);
    if (p) p.bindings.push(b);
    else orphanBindings.push({ ...b, kind: kind as 'MutatingAdmissionPolicyBinding', policyName });
  }
  for (const p of policies) p.bindings.sort(byName);
  policies.sort(staticThenName);
  return {
    webhooks,
    policies: {
      mutating: policies.filter((p) => p.kind === 'MutatingAdmissionPolicy'),
      validating: policies.filter((p) => p.kind === 'ValidatingAdmissionPolicy'),
    },
    orphanBindings,
    documents: objects,
    namespaces,
  };
}

/** The step kind of a policy binding kind. */
export const policyKindOf = (bindingKind: string): SimStepKind =>
  bindingKind === 'MutatingAdmissionPolicyBinding' ? 'MutatingAdmissionPolicy' : 'ValidatingAdmissionPolicy';
