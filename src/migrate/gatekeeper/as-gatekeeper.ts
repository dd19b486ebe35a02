/**
 * What Gatekeeper v3.23 itself generates from a template with CEL code and its constraints
 * (pkg/drivers/k8scel/transform: TemplateToPolicyDefinition, ConstraintToBinding, written as
 * admissionregistration.k8s.io/v1 by the template and constraint controllers). The default
 * match (all resources, CREATE and UPDATE) is the transform's own; with
 * `--sync-vap-enforcement-scope` Gatekeeper copies its webhook's rules instead, which depend on
 * the installation and are not known here. tools/gatekeeper-oracle runs the real code on the
 * same input and its test requires equal objects.
 */
import { nameOf, obj, type Obj } from '../../base/json';
import type { CelSource } from './read';
import { sha256Hex } from './sha256';
import { ANY_OBJECT, MATCH_EXCLUDED_NAMESPACES_GLOB, MATCH_KINDS, MATCH_NAME_GLOB, MATCH_NAMESPACES_GLOB, PARAMS } from './snippets';

/** Gatekeeper's four match conditions, in its order (AllMatchersV1Beta1). */
export const INTERNAL_MATCH_CONDITIONS: readonly { name: string; expression: string }[] = [
  { name: 'gatekeeper_internal_match_excluded_namespaces', expression: MATCH_EXCLUDED_NAMESPACES_GLOB },
  { name: 'gatekeeper_internal_match_namespaces', expression: MATCH_NAMESPACES_GLOB },
  { name: 'gatekeeper_internal_match_name', expression: MATCH_NAME_GLOB },
  { name: 'gatekeeper_internal_match_kinds', expression: MATCH_KINDS },
];

/** Gatekeeper's variables, before the template's own (AllVariablesV1Beta1). */
export const INTERNAL_VARIABLES: readonly { name: string; expression: string }[] = [
  { name: 'anyObject', expression: ANY_OBJECT },
  { name: 'params', expression: PARAMS },
];

/** The `--default-k8s-native-validation-failure-policy` default. */
export const DEFAULT_FAILURE_POLICY = 'Fail';

/** The v1 ValidatingAdmissionPolicy Gatekeeper writes for a template named `name` whose constraints are `kind`. */
export function templateToPolicy(name: string, kind: string, source: CelSource): Obj {
  const spec: Obj = {
    paramKind: { apiVersion: 'constraints.gatekeeper.sh/v1beta1', kind },
    matchConstraints: {
      resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['*'], scope: '*' }],
    },
  };
  // v1beta1ToV1 copies each validation's three fields; empty strings are omitted (omitempty)
  const validations = source.validations.map((v) => ({
    ...(v.expression ? { expression: v.expression } : {}),
    ...(v.message ? { message: v.message } : {}),
    ...(v.messageExpression ? { messageExpression: v.messageExpression } : {}),
  }));
  if (validations.length) spec.validations = validations;
  spec.failurePolicy = source.failurePolicy ?? DEFAULT_FAILURE_POLICY;
  spec.matchConditions = [
    ...source.matchConditions.map((m) => ({ name: m.name, expression: m.expression })),
    ...INTERNAL_MATCH_CONDITIONS.map((m) => ({ ...m })),
  ];
  spec.variables = [...INTERNAL_VARIABLES.map((v) => ({ ...v })), ...source.variables.map((v) => ({ name: v.name, expression: v.expression }))];
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: `gatekeeper-${name}` }, spec };
}

const DNS1123_SUBDOMAIN_MAX = 253;

/**
 * GetVAPBindingName: `gatekeeper-<lowercase kind>-<name>`; above 253 characters, cut, trailing `-`/`.`
 * trimmed and the first 8 hex digits of the full name's SHA-256 appended.
 */
export function bindingName(kind: string, constraintName: string): string {
  const name = `gatekeeper-${kind.toLowerCase()}-${constraintName}`;
  if (name.length <= DNS1123_SUBDOMAIN_MAX) return name;
  const hash = sha256Hex(name).slice(0, 8);
  return `${name.slice(0, DNS1123_SUBDOMAIN_MAX - hash.length - 1).replace(/[-.]+$/, '')}-${hash}`;
}

export type EnforcementActions = { actions: string[] } | { error: string };

/**
 * The actions the constraint controller hands ConstraintToBinding: `spec.enforcementAction`
 * (default deny); `scoped`: the actions of `scopedEnforcementActions` whose enforcement points
 * name `vap.k8s.io` or `*`.
 */
export function enforcementActions(constraint: Obj): EnforcementActions {
  const spec = obj(constraint.spec);
  const raw = spec.enforcementAction;
  if (raw !== undefined && typeof raw !== 'string') return { error: 'spec.enforcementAction is not a string' };
  const action = raw || 'deny';
  if (action === 'scoped') {
    const scoped = spec.scopedEnforcementActions;
    if (!Array.isArray(scoped)) return { error: 'spec.enforcementAction is scoped but spec.scopedEnforcementActions is missing' };
    const out: string[] = [];
    for (const s of scoped) {
      const points = obj(s).enforcementPoints;
      if (Array.isArray(points) && points.some((p) => obj(p).name === 'vap.k8s.io' || obj(p).name === '*')) out.push(String(obj(s).action ?? ''));
    }
    return { actions: out };
  }
  if (action === 'deny' || action === 'warn' || action === 'dryrun') return { actions: [action] };
  // GetEnforcementAction calls any other value "unrecognized", which ConstraintToBinding rejects
  return {
    error: `unrecognized enforcement action unrecognized, must be \`warn\`, \`deny\` or \`dryrun\` (spec.enforcementAction is ${JSON.stringify(action)})`,
  };
}

/** Gatekeeper's enforcement actions as a binding's validationActions (ConstraintToBinding). */
export const VALIDATION_ACTION: Record<string, string> = { deny: 'Deny', warn: 'Warn', dryrun: 'Audit' };

/** The v1 ValidatingAdmissionPolicyBinding Gatekeeper writes for a constraint, or why it writes none. */
export function constraintToBinding(constraint: Obj): { binding: Obj } | { error: string } | { none: string } {
  const ea = enforcementActions(constraint);
  if ('error' in ea) return ea;
  if (ea.actions.length === 0) return { none: 'no scoped enforcement action names the vap.k8s.io enforcement point: Gatekeeper generates no binding' };
  const validationActions: string[] = [];
  for (const a of ea.actions) {
    const v = VALIDATION_ACTION[a];
    if (!v) return { error: `unrecognized enforcement action ${a}, must be \`warn\`, \`deny\` or \`dryrun\`` };
    validationActions.push(v);
  }
  // the binding Gatekeeper would write, refused by the apiserver (ValidatingAdmissionPolicyBinding validation)
  if (new Set(validationActions).size < validationActions.length)
    return {
      error: `its enforcement actions give the binding validationActions ${JSON.stringify(validationActions)}, which the apiserver refuses: duplicates`,
    };
  if (validationActions.includes('Deny') && validationActions.includes('Warn'))
    return {
      error: `its enforcement actions give the binding validationActions ${JSON.stringify(validationActions)}, which the apiserver refuses: Deny and Warn together`,
    };
  const kind = String(constraint.kind ?? '');
  const name = nameOf(constraint);
  const match = obj(obj(constraint.spec).match);
  const matchResources: Obj = {};
  for (const [from, to] of [
    ['labelSelector', 'objectSelector'],
    ['namespaceSelector', 'namespaceSelector'],
  ] as const) {
    if (!(from in match)) continue;
    const sel = match[from];
    // NestedMap fails on a value that is not a map (null included)
    if (typeof sel !== 'object' || sel === null || Array.isArray(sel)) return { error: `spec.match.${from} is not an object` };
    const s = sel as Obj;
    const out: Obj = {};
    if (s.matchLabels !== undefined && s.matchLabels !== null && Object.keys(obj(s.matchLabels)).length) out.matchLabels = s.matchLabels;
    // the typed LabelSelector drops empty lists and fields it does not have
    if (Array.isArray(s.matchExpressions) && s.matchExpressions.length)
      out.matchExpressions = s.matchExpressions.map((e) => {
        const r = obj(e);
        const values = Array.isArray(r.values) && r.values.length ? { values: r.values } : {};
        return { ...(r.key ? { key: r.key } : {}), ...(r.operator ? { operator: r.operator } : {}), ...values };
      });
    matchResources[to] = out;
  }
  return {
    binding: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: bindingName(kind, name) },
      spec: {
        policyName: `gatekeeper-${kind.toLowerCase()}`,
        paramRef: { name, parameterNotFoundAction: 'Allow' },
        matchResources,
        validationActions,
      },
    },
  };
}
