/**
 * typeCheckPolicy: the warnings kube-controller-manager writes into a ValidatingAdmissionPolicy's
 * `status.typeChecking` (each expression typed by the OpenAPI schema of the kinds it matches), in
 * the apiserver's words, through the engine's copy of its type checker (wasm/typecheck.go). What
 * is typed and from where: the repository's README.md ("Type checking as the apiserver does it").
 */
import { typeCheck, type CelExpressionWarning, type CelTypeCheckCRD, type CelTypeCheckOptions, type CelTypeCheckResult } from '../cel';
import { isObject, list, obj, str } from '../base/json';
import { DEFAULT_KUBERNETES_VERSION, minorOf, type KubernetesVersion } from '../base/releases';
import { BUILTIN_RESOURCES, servedIn } from '../k8s/resources';
import { customResources } from './discovery';

export interface TypeCheckOptions {
  kubernetesVersion?: KubernetesVersion;
  /** The workspace's objects: its CustomResourceDefinitions type custom resources. */
  workspace?: readonly unknown[];
}

/** The schemas (openAPIV3Schema) of the served versions of the workspace's CustomResourceDefinitions. */
export function crdSchemas(objects: readonly unknown[]): CelTypeCheckCRD[] {
  const out: CelTypeCheckCRD[] = [];
  for (const o of objects) {
    if (!isObject(o) || o.kind !== 'CustomResourceDefinition') continue;
    const spec = obj(o.spec);
    const kind = str(obj(spec.names).kind);
    const group = str(spec.group);
    for (const v of list(spec.versions)) {
      const schema = obj(obj(v).schema).openAPIV3Schema;
      if (obj(v).served === false || !str(obj(v).name) || !isObject(schema)) continue;
      out.push({ group, version: str(obj(v).name), kind, schema });
    }
  }
  return out;
}

/** The REST mapping the type checker resolves matchConstraints' resources with: what the release serves, and the workspace's custom resources. */
export function typeCheckMappings(version: KubernetesVersion, workspace: readonly unknown[]): CelTypeCheckOptions['mappings'] {
  const minor = minorOf(version);
  return [...BUILTIN_RESOURCES.filter((r) => servedIn(r, minor)), ...customResources(workspace)].map((r) => ({
    group: r.group,
    version: r.version,
    resource: r.resource,
    kind: r.kind,
  }));
}

/** A kind the type checker types `object` with. */
export interface CheckedKind {
  group: string;
  version: string;
  kind: string;
}

const maxTypesToCheck = 10;
/** A rule's list, or nothing when one entry has a wildcard (extractGroups, extractVersions). */
const exact = (xs: unknown): string[] => {
  const out = list(xs).map(str);
  return out.some((x) => x.includes('*')) ? [] : out;
};
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The kinds the apiserver types a policy's `object` with: its matchConstraints' resourceRules
 * without wildcards (resources with a wildcard or a subresource skipped), each group × version ×
 * resource resolved by the REST mapping, at most ten, sorted by group, version and kind
 * (typesToCheck in wasm/upstream_typechecking_2.go, the apiserver's typechecking.go). Empty when nothing
 * resolves (the expressions stay `dyn`).
 */
export function typesToCheck(policy: unknown, version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION, workspace: readonly unknown[] = []): CheckedKind[] {
  const rules = list(obj(obj(obj(policy).spec).matchConstraints).resourceRules);
  if (!rules.length) return [];
  const mappings = typeCheckMappings(version, workspace);
  const found = new Map<string, CheckedKind>();
  let count = 0;
  for (const rule of rules) {
    const groups = exact(obj(rule).apiGroups).sort(cmp);
    const versions = exact(obj(rule).apiVersions).sort(cmp);
    const resources = list(obj(rule).resources)
      .map(str)
      .filter((r) => !/[*/]/.test(r))
      .sort(cmp);
    for (const group of groups)
      for (const v of versions)
        for (const resource of resources)
          for (const m of mappings) {
            if (m.group !== group || m.version !== v || m.resource !== resource || !m.kind) continue;
            found.set(`${m.group}/${m.version}/${m.kind}`, { group: m.group, version: m.version, kind: m.kind });
            if (++count === maxTypesToCheck) return sortKinds([...found.values()]);
          }
  }
  return sortKinds([...found.values()]);
}

const sortKinds = (ks: CheckedKind[]): CheckedKind[] => ks.sort((a, b) => cmp(a.group, b.group) || cmp(a.version, b.version) || cmp(a.kind, b.kind));

/** Every result, engine failures included (the schemas could not be loaded, the engine is unavailable). */
export function typeCheckPolicyResult(policy: unknown, options: TypeCheckOptions = {}): Promise<CelTypeCheckResult> {
  const version = options.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
  const workspace = options.workspace ?? [];
  return typeCheck(policy, { kubernetesVersion: version, mappings: typeCheckMappings(version, workspace), crds: crdSchemas(workspace) });
}

/**
 * The policy's `status.typeChecking.expressionWarnings` as kube-controller-manager would write
 * them (empty when the engine cannot check: see typeCheckPolicyResult for why).
 */
export async function typeCheckPolicy(policy: unknown, options: TypeCheckOptions = {}): Promise<CelExpressionWarning[]> {
  return (await typeCheckPolicyResult(policy, options)).warnings;
}
