/**
 * Gatekeeper's and Kyverno's policy documents as the workspace opens them: which kinds they
 * are, the checks of their own structure (their projects' CRD schemas, crd-schemas.json, written
 * by scripts/migrate-schemas.mjs from the CRDs in the projects' Go modules), and a summary of
 * their rules for the form.
 */
import { templateOf as gatekeeperTemplateOf } from './gatekeeper';
import { isObject, obj, objList, str, type Obj } from '../base/json';
import { fieldPath } from '../base/path';
import { invalid, required, type FieldError } from '../k8s/errors';
import { checkStructure, type Schema } from './structure';
import CRD_SCHEMAS from './crd-schemas.json';

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

interface SchemaData {
  source: string;
  group: string;
  version: string;
  kind: string;
  scope: string;
  schema: Schema;
}

const DATA: readonly SchemaData[] = CRD_SCHEMAS;
const dataOf = (group: string, kind: string): SchemaData => DATA.find((d) => d.group === group && d.kind === kind)!;
const constraintTemplate = dataOf('templates.gatekeeper.sh', 'ConstraintTemplate');
const gatekeeperMatch = dataOf('match.gatekeeper.sh', 'DummyCRD');
const clusterPolicy = dataOf('kyverno.io', 'ClusterPolicy');

const kindOfData = (project: SourceProject, d: SchemaData): SourceKind => ({
  project,
  apiVersion: `${d.group}/${d.version}`,
  kind: d.kind,
  scope: d.scope === 'Namespaced' ? 'Namespaced' : 'Cluster',
  source: d.source,
});

/** The constraint group's versions Gatekeeper serves (v1beta1 is the one its docs write). */
export const CONSTRAINT_VERSIONS = ['constraints.gatekeeper.sh/v1beta1', 'constraints.gatekeeper.sh/v1', 'constraints.gatekeeper.sh/v1alpha1'];

const CONSTRAINT: SourceKind = {
  project: 'Gatekeeper',
  apiVersion: CONSTRAINT_VERSIONS[0]!,
  kind: 'Constraint',
  scope: 'Cluster',
  source: `open-policy-agent/frameworks constraint pkg/client/crds/schema.go (CreateSchema), match from ${gatekeeperMatch.source}`,
};

/** Policy (namespaced) has ClusterPolicy's schema: the generator checks that they agree. */
const KINDS: readonly (readonly [SourceKind, SchemaData])[] = [
  [kindOfData('Gatekeeper', constraintTemplate), constraintTemplate],
  ...DATA.filter((d) => d.group.endsWith('kyverno.io')).map((d) => [kindOfData('Kyverno', d), d] as const),
  [{ ...kindOfData('Kyverno', clusterPolicy), kind: 'Policy', scope: 'Namespaced' }, clusterPolicy],
];

/** Every kind the workspace opens as another project's policy (for help texts and the docs). */
export const SOURCE_KINDS: readonly SourceKind[] = [...KINDS.map(([k]) => k), CONSTRAINT];

const entryOf = (object: unknown): readonly [SourceKind, SchemaData | undefined] | undefined => {
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

/** A template's constraint kind: spec.crd.spec.names.kind. */
const templateKind = (template: unknown): string => str(obj(obj(obj(obj(obj(template).spec).crd).spec).names).kind);

/** The structural schema of a constraint (frameworks' CreateSchema): its parameters follow its template's schema, when there is one. */
function constraintSchema(template: Obj | undefined): Schema {
  const params = obj(obj(obj(obj(obj(template).spec).crd).spec).validation).openAPIV3Schema;
  const match = obj(obj(gatekeeperMatch.schema).properties).embeddedMatch;
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        properties: {
          match,
          enforcementAction: { type: 'string' },
          scopedEnforcementActions: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                action: { type: 'string' },
                enforcementPoints: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
              },
            },
          },
          parameters: isObject(params) ? params : { 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
      status: { 'x-kubernetes-preserve-unknown-fields': true },
    },
  };
}

/**
 * The problems of a Gatekeeper or Kyverno document's own structure: its CRD's schema (unknown
 * fields, wrong types, missing required fields), a constraint whose kind no template of the
 * workspace defines, a template whose name is not its kind in lowercase (Gatekeeper refuses it).
 * [] for any other object.
 */
export function sourceProblems(object: unknown, workspace: readonly unknown[]): FieldError[] {
  const entry = entryOf(object);
  if (!entry || !isObject(object)) return [];
  const [kind, data] = entry;
  const out: FieldError[] = [];
  if (!str(obj(object.metadata).name)) out.push(required(fieldPath('metadata', 'name')));
  if (kind === CONSTRAINT) {
    const constraintKind = str(object.kind);
    const template = templateOf(object, workspace);
    if (!template)
      out.push({
        ...invalid(fieldPath('kind'), object.kind, `no ConstraintTemplate in the workspace defines the kind ${constraintKind}`),
        hint: `Gatekeeper makes a constraint's kind from its template (spec.crd.spec.names.kind): without the template ${constraintKind.toLowerCase()} the cluster has no such kind and the constraint cannot be converted. Open the template beside it.`,
      });
    checkStructure(object, constraintSchema(template), fieldPath(), out);
    return out;
  }
  checkStructure(object, data!.schema, fieldPath(), out);
  if (kind.kind === 'ConstraintTemplate') {
    const crdKind = templateKind(object);
    const name = str(obj(object.metadata).name);
    if (!crdKind) out.push(required(fieldPath('spec', 'crd', 'spec', 'names', 'kind'), 'Gatekeeper refuses a template that names no constraint kind'));
    else if (name && name !== crdKind.toLowerCase())
      out.push(
        invalid(
          fieldPath('metadata', 'name'),
          name,
          `must be the lowercase of spec.crd.spec.names.kind (${JSON.stringify(crdKind.toLowerCase())}): Gatekeeper refuses the template otherwise`,
        ),
      );
  }
  return out;
}

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
