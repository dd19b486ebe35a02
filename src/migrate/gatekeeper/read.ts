/**
 * Reading Gatekeeper's documents: a ConstraintTemplate (`templates.gatekeeper.sh` v1, v1beta1,
 * v1alpha1) with its K8sNativeValidation (CEL) source and its Rego, and a constraint
 * (`constraints.gatekeeper.sh/v1beta1`). Fields Gatekeeper does not know are listed by path
 * (its decoders drop them silently: the user should hear that they are not converted).
 */
import { isObject, kindOf, list, nameOf, obj, type Obj } from '../../base/json';

export const TEMPLATE_GROUP = 'templates.gatekeeper.sh';
export const CONSTRAINT_GROUP = 'constraints.gatekeeper.sh';
/** The engine name of CEL code in a template (pkg/drivers/k8scel/schema `Name`). */
export const CEL_ENGINE = 'K8sNativeValidation';
/** Names no template variable or match condition may start with (schema `ReservedPrefix`). */
export const RESERVED_PREFIX = 'gatekeeper_internal_';

const groupOf = (o: unknown): string => {
  const v = obj(o).apiVersion;
  return typeof v === 'string' && v.includes('/') ? v.slice(0, v.indexOf('/')) : '';
};

export const isTemplate = (o: unknown): boolean => groupOf(o) === TEMPLATE_GROUP && kindOf(o) === 'ConstraintTemplate';
export const isConstraint = (o: unknown): boolean => groupOf(o) === CONSTRAINT_GROUP;

/** The K8sNativeValidation source (schema.Source), as Gatekeeper reads it. */
export interface CelSource {
  validations: { expression: string; message?: string; messageExpression?: string }[];
  failurePolicy?: string;
  matchConditions: { name: string; expression: string }[];
  variables: { name: string; expression: string }[];
  generateVAP?: boolean;
}

export interface TemplateInfo {
  object: Obj;
  name: string;
  /** spec.crd.spec.names.kind: the constraints' kind. */
  kind: string;
  /** The CEL source, absent when the template has none. */
  cel?: CelSource;
  /** The Rego of the template's target (`rego` and every `engine: Rego` code), joined. */
  rego?: string;
  /** What makes Gatekeeper refuse the template or its CEL (schema.Source.Validate and the like). */
  errors: string[];
  /** Fields Gatekeeper does not read, by path. */
  unknown: string[];
}

const unknownKeys = (o: unknown, known: readonly string[], path: string, out: string[]): void => {
  if (!isObject(o)) return;
  for (const k of Object.keys(o)) if (!known.includes(k)) out.push(path ? `${path}.${k}` : k);
};

const strOrUndef = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function readSource(source: unknown, path: string, errors: string[], unknown: string[]): CelSource | undefined {
  if (!isObject(source)) {
    errors.push(`${path} is not an object`);
    return undefined;
  }
  unknownKeys(source, ['validations', 'failurePolicy', 'matchCondition', 'variables', 'generateVAP'], path, unknown);
  const out: CelSource = { validations: [], matchConditions: [], variables: [] };
  list(source.validations).forEach((v, i) => {
    unknownKeys(v, ['expression', 'message', 'messageExpression'], `${path}.validations[${i}]`, unknown);
    const o = obj(v);
    out.validations.push({
      expression: strOrUndef(o.expression) ?? '',
      ...(strOrUndef(o.message) ? { message: o.message as string } : {}),
      ...(strOrUndef(o.messageExpression) ? { messageExpression: o.messageExpression as string } : {}),
    });
  });
  list(source.matchCondition).forEach((m, i) => {
    unknownKeys(m, ['name', 'expression'], `${path}.matchCondition[${i}]`, unknown);
    const name = strOrUndef(obj(m).name) ?? '';
    if (name.startsWith(RESERVED_PREFIX))
      errors.push(`${path}.matchCondition[${i}].name ${JSON.stringify(name)} starts with the reserved prefix ${RESERVED_PREFIX}`);
    out.matchConditions.push({ name, expression: strOrUndef(obj(m).expression) ?? '' });
  });
  list(source.variables).forEach((v, i) => {
    unknownKeys(v, ['name', 'expression'], `${path}.variables[${i}]`, unknown);
    const name = strOrUndef(obj(v).name) ?? '';
    if (name.startsWith(RESERVED_PREFIX))
      errors.push(`${path}.variables[${i}].name ${JSON.stringify(name)} starts with the reserved prefix ${RESERVED_PREFIX}`);
    if (name === 'params' || name === 'anyObject') errors.push(`${path}.variables[${i}].name ${JSON.stringify(name)} is reserved by Gatekeeper`);
    out.variables.push({ name, expression: strOrUndef(obj(v).expression) ?? '' });
  });
  if (source.failurePolicy !== undefined) {
    const fp = strOrUndef(source.failurePolicy);
    if (fp !== 'Fail' && fp !== 'Ignore') errors.push(`${path}.failurePolicy: unrecognized failure policy ${JSON.stringify(source.failurePolicy)}`);
    else out.failurePolicy = fp;
  }
  if (typeof source.generateVAP === 'boolean') out.generateVAP = source.generateVAP;
  // schema.Source reads it as a bool: another type makes Gatekeeper refuse the template's code
  else if (source.generateVAP !== undefined && source.generateVAP !== null)
    errors.push(`${path}.generateVAP: ${JSON.stringify(source.generateVAP)} is not a boolean`);
  return out;
}

/** Reads a ConstraintTemplate as Gatekeeper's template and CEL schema code do. */
export function readTemplate(object: Obj): TemplateInfo {
  const errors: string[] = [];
  const unknown: string[] = [];
  const spec = obj(object.spec);
  unknownKeys(object, ['apiVersion', 'kind', 'metadata', 'spec', 'status'], '', unknown);
  unknownKeys(spec, ['crd', 'targets'], 'spec', unknown);
  const names = obj(obj(obj(spec.crd).spec).names);
  const kind = typeof names.kind === 'string' ? names.kind : '';
  if (!kind) errors.push('spec.crd.spec.names.kind is missing: the template defines no constraint kind');
  const name = nameOf(object);
  if (kind && name !== kind.toLowerCase()) errors.push(`metadata.name ${JSON.stringify(name)} must be the lowercase of the kind ${JSON.stringify(kind)}`);
  const targets = list(spec.targets);
  if (targets.length !== 1) errors.push(`spec.targets has ${targets.length} entries: Gatekeeper allows exactly one`);
  let cel: CelSource | undefined;
  const rego: string[] = [];
  targets.forEach((t, ti) => {
    const target = obj(t);
    unknownKeys(target, ['target', 'rego', 'libs', 'code', 'operations'], `spec.targets[${ti}]`, unknown);
    if (typeof target.rego === 'string' && target.rego.trim()) rego.push(target.rego);
    list(target.code).forEach((c, ci) => {
      const code = obj(c);
      const path = `spec.targets[${ti}].code[${ci}]`;
      unknownKeys(code, ['engine', 'source'], path, unknown);
      if (code.engine === CEL_ENGINE && ti === 0 && !cel) cel = readSource(code.source, `${path}.source`, errors, unknown);
      else if (code.engine === 'Rego') {
        const r = obj(code.source).rego;
        if (typeof r === 'string') rego.push(r);
      }
    });
  });
  return { object, name, kind, ...(cel ? { cel } : {}), ...(rego.length ? { rego: rego.join('\n---\n') } : {}), errors, unknown };
}

const MATCH_FIELDS = ['kinds', 'scope', 'namespaces', 'excludedNamespaces', 'labelSelector', 'namespaceSelector', 'name', 'source'];

/** Fields of a constraint that Gatekeeper does not read, by path. */
export function constraintUnknownFields(constraint: Obj): string[] {
  const out: string[] = [];
  unknownKeys(constraint, ['apiVersion', 'kind', 'metadata', 'spec', 'status'], '', out);
  const spec = obj(constraint.spec);
  unknownKeys(spec, ['match', 'parameters', 'enforcementAction', 'scopedEnforcementActions'], 'spec', out);
  unknownKeys(spec.match, MATCH_FIELDS, 'spec.match', out);
  return out;
}

/** A path list for a reason: `a, b and c`. */
export const listed = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

/** The template of a constraint among `objects` (by kind), for callers that show them together. */
export const templateOf = (constraint: Obj, objects: readonly Obj[]): Obj | undefined =>
  objects.find((o) => isTemplate(o) && readTemplate(o).kind === kindOf(constraint));
