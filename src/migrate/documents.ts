/**
 * Gatekeeper's and Kyverno's policy documents as the workspace opens them: which kinds they
 * are (crd-kinds.json: their projects' CRDs, written by scripts/migrate-schemas.mjs beside the
 * schemas), and a summary of their rules for the form. The checks of their structure against
 * those schemas are in source-problems.ts (with the other checks, out of the first load).
 */
// read.ts alone: the workspace opens these documents on the first load, the converters come with the Migration view
import { templateOf as gatekeeperTemplateOf } from './gatekeeper/read';
import { isObject, obj, objList, str, type Obj } from '../base/json';
import CRD_KINDS from './crd-kinds.json';

export type SourceProject = 'Gatekeeper' | 'Kyverno';

/** A kind of another project's policy the workspace opens. */
export interface SourceKind {
  project: SourceProject;
  /** `templates.gatekeeper.sh/v1`; for constraints `constraints.gatekeeper.sh/v1beta1`. */
  apiVersion: string;
  /** The kind; `Constraint` stands for every constraint kind (a template defines each). */
  kind: string;
  scope: 'Cluster' | 'Namespaced';
  /** Where the structural schema comes from (module, file, version). */
  source: string;
}

/** A kind and version of a project's CRD (crd-kinds.json); its schema is the line of crd-schemas.json with the same group, version and kind. */
export interface KindData {
  source: string;
  group: string;
  version: string;
  kind: string;
  scope: string;
}

const DATA: readonly KindData[] = CRD_KINDS;
const dataOf = (group: string, kind: string): KindData => DATA.find((d) => d.group === group && d.kind === kind)!;
const constraintTemplate = dataOf('templates.gatekeeper.sh', 'ConstraintTemplate');
export const gatekeeperMatch = dataOf('match.gatekeeper.sh', 'DummyCRD');
const clusterPolicy = dataOf('kyverno.io', 'ClusterPolicy');

const kindOfData = (project: SourceProject, d: KindData): SourceKind => ({
  project,
  apiVersion: `${d.group}/${d.version}`,
  kind: d.kind,
  scope: d.scope === 'Namespaced' ? 'Namespaced' : 'Cluster',
  source: d.source,
});

/** The constraint group's versions Gatekeeper serves (v1beta1 is the one its docs write). */
export const CONSTRAINT_VERSIONS = ['constraints.gatekeeper.sh/v1beta1', 'constraints.gatekeeper.sh/v1', 'constraints.gatekeeper.sh/v1alpha1'];

export const CONSTRAINT: SourceKind = {
  project: 'Gatekeeper',
  apiVersion: CONSTRAINT_VERSIONS[0]!,
  kind: 'Constraint',
  scope: 'Cluster',
  source: `open-policy-agent/frameworks constraint pkg/client/crds/schema.go (CreateSchema), match from ${gatekeeperMatch.source}`,
};

/** Policy (namespaced) has ClusterPolicy's schema: the generator checks that they agree. */
const KINDS: readonly (readonly [SourceKind, KindData])[] = [
  [kindOfData('Gatekeeper', constraintTemplate), constraintTemplate],
  ...DATA.filter((d) => d.group.endsWith('kyverno.io')).map((d) => [kindOfData('Kyverno', d), d] as const),
  [{ ...kindOfData('Kyverno', clusterPolicy), kind: 'Policy', scope: 'Namespaced' }, clusterPolicy],
];

/** Every kind the workspace opens as another project's policy (for help texts and the docs). */
export const SOURCE_KINDS: readonly SourceKind[] = [...KINDS.map(([k]) => k), CONSTRAINT];

/** A document's kind and its CRD's line (none for a constraint: its schema comes from its template). */
export const entryOf = (object: unknown): readonly [SourceKind, KindData | undefined] | undefined => {
  if (!isObject(object) || typeof object.apiVersion !== 'string' || typeof object.kind !== 'string' || !object.kind) return undefined;
  if (CONSTRAINT_VERSIONS.includes(object.apiVersion)) return [CONSTRAINT, undefined];
  return KINDS.find(([k]) => k.apiVersion === object.apiVersion && k.kind === object.kind);
};

/** The kind of a Gatekeeper or Kyverno policy document, or undefined for anything else. */
export const sourceKindOf = (object: unknown): SourceKind | undefined => entryOf(object)?.[0];

/** Whether the workspace opens `object` as another project's policy (a template, a constraint, a Kyverno policy). */
export const isSourceDocument = (object: unknown): boolean => entryOf(object) !== undefined;

/** The workspace's ConstraintTemplate that defines a constraint's kind, if any. */
export const templateOf = (constraint: unknown, workspace: readonly unknown[]): Obj | undefined =>
  gatekeeperTemplateOf(obj(constraint), workspace.filter(isObject));

/** One rule of a source document, as the form lists it. */
export interface RuleSummary {
  /** The rule's name (Kyverno), the template's name (Gatekeeper), or the field of an unnamed rule (`spec.validations[0]`). */
  name: string;
  /** What it is: `validate.cel`, `validate.pattern`, `Rego`, `K8sNativeValidation`, `CEL validation`, … */
  type: string;
  /** The expression or message, shortened, when there is one. */
  detail?: string;
}

const short = (s: string): string => (s.length > 120 ? `${s.slice(0, 117)}…` : s);

/** The rules of a source document, for a read-only summary in its form. */
export function rulesOf(object: unknown): RuleSummary[] {
  const kind = sourceKindOf(object);
  if (!kind) return [];
  const spec = obj(obj(object).spec);
  const name = str(obj(obj(object).metadata).name);
  switch (kind.kind) {
    case 'ConstraintTemplate':
      return objList(spec.targets).flatMap((t, i) => [
        ...(str(t.rego) ? [{ name, type: 'Rego', detail: `targets[${i}] ${str(t.target)}` }] : []),
        ...objList(t.code).map((c) => ({ name, type: str(c.engine) || 'code', detail: `targets[${i}] ${str(t.target)}` })),
      ]);
    case 'Constraint':
      return [{ name: str(obj(object).kind).toLowerCase(), type: 'constraint', detail: `enforcementAction: ${str(spec.enforcementAction) || 'deny'}` }];
    case 'ValidatingPolicy':
    case 'NamespacedValidatingPolicy':
      return objList(spec.validations).map((v, i) => ({ name: `spec.validations[${i}]`, type: 'CEL validation', detail: short(str(v.expression)) }));
    case 'MutatingPolicy':
    case 'NamespacedMutatingPolicy':
      return objList(spec.mutations).map((m, i) => ({ name: `spec.mutations[${i}]`, type: str(m.patchType) || 'mutation' }));
    default:
      return objList(spec.rules).map((r, i) => {
        const cel = objList(obj(obj(r.validate).cel).expressions);
        return { name: str(r.name) || `spec.rules[${i}]`, type: ruleType(r), ...(cel.length ? { detail: `${cel.length} expression(s)` } : {}) };
      });
  }
}

/** What a legacy Kyverno rule does (its first action), as Kyverno's docs name it. */
function ruleType(rule: Obj): string {
  const validate = obj(rule.validate);
  if (isObject(rule.validate)) {
    const how = ['cel', 'pattern', 'anyPattern', 'deny', 'podSecurity', 'foreach', 'manifests', 'assert'].find((k) => validate[k] !== undefined);
    return how ? `validate.${how}` : 'validate';
  }
  return ['mutate', 'generate', 'verifyImages'].find((k) => rule[k] !== undefined) ?? 'rule';
}
