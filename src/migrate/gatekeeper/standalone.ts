/**
 * Gatekeeper templates as native policies that need no Gatekeeper in the cluster: one
 * ValidatingAdmissionPolicy and binding per constraint. The constraint's parameters are inlined as
 * the variable `params` (a CEL literal) rather than a params object: the constraint CRDs go away
 * with Gatekeeper, a ConfigMap holds only strings (the parameters are nested lists and numbers,
 * and CEL cannot parse JSON), and a CRD of our own would have to be installed and kept in step.
 * The template's expressions read `variables.params` as before. The constraint's match becomes
 * Gatekeeper's own match conditions with its values written in, `scope` the rule's scope, and
 * its selectors the binding's.
 */
import { deepEqual, isObject, nameOf, obj, type Obj } from '../../base/json';
import { pruned } from '../structure';
import { INTERNAL_VARIABLES } from './as-gatekeeper';
import type { CelSource } from './read';
import { MATCH_EXCLUDED_NAMESPACES_GLOB, MATCH_KINDS, MATCH_NAME_GLOB, MATCH_NAMESPACES_GLOB } from './snippets';

/** A JSON value as a CEL literal (integers stay int, as the apiserver decodes them). */
export function celLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  // an integer past 2^53 (the YAML reader's bigint): CEL's int64, written as it is
  if (typeof v === 'bigint') return String(v);
  if (typeof v === 'number') {
    if (Number.isInteger(v)) return String(v);
    const s = String(v);
    return /[.eE]/.test(s) ? s : `${s}.0`;
  }
  // the apiserver's CEL wants list and map literals of one type, and a map literal's value type is
  // every field's: map values are dyn (objects have fields of several types), list items when several
  if (Array.isArray(v)) return `[${v.map((x) => (v.length > 1 ? `dyn(${celLiteral(x)})` : celLiteral(x))).join(', ')}]`;
  if (isObject(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: dyn(${celLiteral(x)})`)
      .join(', ')}}`;
  return 'null';
}

const SNIPPETS: [field: string, name: string, snippet: string][] = [
  ['excludedNamespaces', 'gatekeeper_match_excluded_namespaces', MATCH_EXCLUDED_NAMESPACES_GLOB],
  ['namespaces', 'gatekeeper_match_namespaces', MATCH_NAMESPACES_GLOB],
  ['name', 'gatekeeper_match_name', MATCH_NAME_GLOB],
  ['kinds', 'gatekeeper_match_kinds', MATCH_KINDS],
];

/**
 * The namespace Gatekeeper's matcher reads for a request's object: a Namespace's own name
 * (match.ts gatekeeperMismatch, as its webhook matches), else the object's namespace, '' for
 * other cluster-scoped objects. The snippets of its generated policies read a Namespace as any
 * cluster-scoped object (always matched); the standalone policy decides as the webhook does.
 */
const NAMESPACE_OF =
  '(request.kind.group == "" && request.kind.kind == "Namespace" ? obj.metadata.name : has(obj.metadata.namespace) ? obj.metadata.namespace : "")';

/** Gatekeeper's condition for one match field, its value written in (the `has(params…)` guards dropped: the field is there). */
function matchCondition(field: string, snippet: string, value: unknown): string {
  const guard = `!has(params.spec.match.${field}) ? true : (`;
  const start = snippet.indexOf(guard);
  let inner = snippet.slice(start + guard.length);
  // the three guards' closing parentheses end the snippet
  for (let i = 0; i < 3; i++) inner = inner.slice(0, inner.lastIndexOf(')'));
  if (field === 'namespaces' || field === 'excludedNamespaces')
    inner = inner
      .replace('!has(obj.metadata.namespace) || obj.metadata.namespace == "" ? true : (', `${NAMESPACE_OF} == "" ? true : (`)
      .split('string(obj.metadata.namespace)')
      .join(`string(${NAMESPACE_OF})`);
  return inner.split(`params.spec.match.${field}`).join(celLiteral(value)).trim();
}

/** Whether a template expression reads the binding's `params` itself (there is none standalone). */
const readsParams = (e: string) => /(^|[^.\w])params\b/.test(e);

export function templateExpressions(source: CelSource): string[] {
  return [
    ...source.validations.flatMap((v) => [v.expression, v.messageExpression ?? '']),
    ...source.matchConditions.map((m) => m.expression),
    ...source.variables.map((v) => v.expression),
  ].filter(Boolean);
}

export type Standalone = { objects: Obj[]; notes: string[] } | { unsupported: string };

/** The policy and binding for one constraint of a template, or why there are none; `suffix` ends their name (a later copy in the input). */
export function standaloneFor(templateName: string, source: CelSource, constraint: Obj, validationActions: string[], template?: Obj, suffix = ''): Standalone {
  const uses = templateExpressions(source).filter(readsParams);
  if (uses.length)
    return {
      unsupported: `the template's CEL reads \`params\` directly (${JSON.stringify(uses[0])}); standalone there is no params object (the parameters are inlined as variables.params)`,
    };
  const name = `${templateName}-${nameOf(constraint)}${suffix}`;
  const spec = obj(constraint.spec);
  const match = obj(spec.match);
  const notes: string[] = [];
  const scope = match.scope === 'Namespaced' || match.scope === 'Cluster' ? match.scope : '*';
  const matchConditions = [...source.matchConditions.map((m) => ({ name: m.name, expression: m.expression }))];
  for (const [field, condName, snippet] of SNIPPETS)
    if (field in match && match[field] !== null) matchConditions.push({ name: condName, expression: matchCondition(field, snippet, match[field]) });
  if (match.source !== undefined && match.source !== 'All')
    notes.push(`spec.match.source ${JSON.stringify(match.source)} (Gatekeeper's expanded resources) has no native counterpart`);
  // the parameters as the cluster stores the constraint: pruned to the template's schema (Gatekeeper's
  // CreateSchema: none without one), as the apiserver prunes a custom resource
  const schema = obj(obj(obj(obj(obj(template).spec).crd).spec).validation).openAPIV3Schema;
  const params = spec.parameters === undefined ? undefined : isObject(schema) ? pruned(spec.parameters, schema) : undefined;
  if (spec.parameters !== undefined && !isObject(schema))
    notes.push(
      "spec.parameters not inlined: the template declares no parameter schema, so the constraint's CRD has none and the apiserver prunes them (Gatekeeper refuses the constraint as written)",
    );
  else if (!deepEqual(params, spec.parameters)) notes.push("parameters the template's schema does not declare are left out, as the apiserver prunes them");
  const variables = [
    INTERNAL_VARIABLES[0]!,
    { name: 'params', expression: params === undefined ? 'null' : celLiteral(params) },
    ...source.variables.map((v) => ({ name: v.name, expression: v.expression })),
  ];
  const policy: Obj = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['*'], scope }] },
      ...(matchConditions.length ? { matchConditions } : {}),
      variables,
      validations: source.validations.map((v) => ({ ...v })),
      failurePolicy: source.failurePolicy ?? 'Fail',
    },
  };
  const matchResources: Obj = {};
  if (isObject(match.labelSelector)) matchResources.objectSelector = match.labelSelector;
  if (isObject(match.namespaceSelector)) {
    matchResources.namespaceSelector = match.namespaceSelector;
    // Gatekeeper's matcher tries the old object too (pkg/target/matcher.go matchAny): a Namespace's old labels
    notes.push(
      "an update of a Namespace that spec.match.namespaceSelector selected by its old labels only: Gatekeeper's match takes it, the binding's namespaceSelector reads its new labels",
    );
  }
  const binding: Obj = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName: name, ...(Object.keys(matchResources).length ? { matchResources } : {}), validationActions },
  };
  return { objects: [policy, binding], notes };
}

/** What differs from Gatekeeper, for every standalone rule. */
export const STANDALONE_DIFFERENCE =
  "standalone: the apiserver alone decides, so Gatekeeper's Config excluded namespaces, its exempt namespaces, its webhook's own rules and failure policy, its audit of existing objects and any Rego no longer apply (the constraint itself decides as Gatekeeper's CEL driver does: held by a differential test on the gatekeeper-library templates)";
