/**
 * ValidatingAdmissionPolicy and MutatingAdmissionPolicy specs on create
 * (validation.go validateValidatingAdmissionPolicySpec, validateMutatingAdmissionPolicySpec).
 * Expects a defaulted object (failurePolicy, matchConstraints defaults).
 */
import type { CelCompiler, CelContext } from '../../cel/types';
import { append, duplicate, invalid, notSupported, required, type FieldError } from '../errors';
import type { FieldPath } from '../../base/path';
import { declaredVariables, declaresParams, variablesInScope } from '../cel-scope';
import { lazyPath } from './lazy-path';
import { validateCELExpression, type CelEnv, type Variable } from './cel';
import { validateMatchConditions } from './match-conditions';
import { validateMatchResources } from './match-resources';
import { effectiveName, validateObjectMeta } from './metadata';
import { isCELIdentifier, isQualifiedName } from './names';
import { validateParamKind } from './param-kind';
import { validateOperationsIn } from './rules';
import { byteLength, goList, goObject, goString, goStruct, isAbsent, type Obj, trimSpace } from './values';
import { supportedFailurePolicies, supportedReinvocationPolicies, validateEnum } from './webhooks';
import { goStruct as goStructValue, invalidPrinted } from './go-print';

export const maxAuditAnnotations = 20;
export const maxAuditAnnotationValueExpressionLength = 5 * 1024;
export const supportedValidationPolicyReasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'] as const;
export const supportedPatchTypes = ['ApplyConfiguration', 'JSONPatch'] as const;
/** supportedMutatingOperations: a mutating policy cannot match DELETE. */
export const supportedMutatingOperations = ['*', 'CONNECT', 'CREATE', 'UPDATE'] as const;

/** A policy's CEL environment: the compiler, whether params exist, and its variables (for the compile options). */
interface PolicyEnv extends CelEnv {
  variables: Variable[];
}

/** spec.failurePolicy: required (defaulted to Fail in v1), Fail or Ignore. */
export function validateFailurePolicy(value: unknown, path: FieldPath): FieldError[] {
  return isAbsent(value) ? [required(path)] : validateEnum(value, supportedFailurePolicies, path);
}

/** validateVariable: name is a CEL identifier, expression compiled with the variables declared before it. */
export function validateVariable(variable: unknown, env: CelEnv, before: readonly Variable[], path: FieldPath): FieldError[] {
  const v = goStruct(variable);
  if (!v) return [];
  const errs: FieldError[] = [];
  const name = goString(v.name);
  // Wording: the validation.go copies readable here (older than 1.36) say "name is not a valid CEL identifier";
  // the checklist, read at a newer (~1.35) commit, says "must be a valid CEL identifier". Type and path agree.
  // We follow the newer text.
  if (name !== undefined && trimSpace(name) === '') errs.push(required(path.child('name'), 'name is not specified'));
  else if (name !== undefined && !isCELIdentifier(name)) errs.push(invalid(path.child('name'), name, 'must be a valid CEL identifier'));
  const expression = goString(v.expression);
  if (expression !== undefined && trimSpace(expression) === '') errs.push(required(path.child('expression'), 'expression is not specified'));
  else if (expression !== undefined) {
    append(errs, validateCELExpression(env, 'vap-variable', expression, path.child('expression'), before));
  }
  return errs;
}

const newlines = /[\n\r]+/;

/** validateValidation */
export function validateValidation(validation: unknown, env: PolicyEnv, path: FieldPath): FieldError[] {
  const v = goStruct(validation);
  if (!v) return [];
  const errs: FieldError[] = [];
  const vars = env.variables.length > 0 ? env.variables : undefined;
  const expression = goString(v.expression);
  if (expression !== undefined) {
    if (trimSpace(expression) === '') errs.push(required(path.child('expression'), 'expression is not specified'));
    else append(errs, validateCELExpression(env, 'vap-validation', expression, path.child('expression'), vars));
  }
  const messageExpression = goString(v.messageExpression);
  if (messageExpression !== undefined) {
    if (messageExpression.length > 0 && trimSpace(messageExpression) === '')
      errs.push(invalid(path.child('messageExpression'), messageExpression, 'must be non-empty if specified'));
    else if (trimSpace(messageExpression) !== '')
      append(errs, validateCELExpression(env, 'vap-messageExpression', messageExpression, path.child('messageExpression'), vars));
  }
  // Wording as in the newer source the checklist read; older copies say "message must be non-empty if specified"
  // and "message must not contain line breaks" (same type and path).
  const message = goString(v.message);
  if (message !== undefined) {
    const trimmed = trimSpace(message);
    if (message.length > 0 && trimmed === '') errs.push(invalid(path.child('message'), message, 'must be non-empty if specified'));
    else if (newlines.test(trimmed)) errs.push(invalid(path.child('message'), message, 'must not contain line breaks'));
  }
  if (typeof v.reason === 'string' && !(supportedValidationPolicyReasons as readonly string[]).includes(v.reason))
    errs.push(notSupported(path.child('reason'), v.reason, supportedValidationPolicyReasons));
  return errs;
}

/** validateAuditAnnotation: `<metadata.name>/<key>` is a qualified name; valueExpression required, ≤ 5 KiB, compiled. */
export function validateAuditAnnotation(annotation: Obj, policyName: string, env: PolicyEnv, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const key = goString(annotation.key);
  if (key !== undefined) {
    if (policyName.length !== 0) {
      const qualified = `${policyName}/${key}`;
      for (const msg of isQualifiedName(qualified)) errs.push(invalid(path.child('key'), qualified, msg));
    } else errs.push(invalid(path.child('key'), key, 'requires metadata.name be non-empty'));
  }
  const valueExpression = goString(annotation.valueExpression);
  if (valueExpression !== undefined) {
    const trimmed = trimSpace(valueExpression);
    const p = path.child('valueExpression');
    if (trimmed === '') errs.push(required(p, 'valueExpression is not specified'));
    else if (byteLength(trimmed) > maxAuditAnnotationValueExpressionLength)
      errs.push(required(p, `must not exceed ${maxAuditAnnotationValueExpressionLength} bytes in length`));
    else append(errs, validateCELExpression(env, 'vap-auditAnnotation', trimmed, p, env.variables.length > 0 ? env.variables : undefined, valueExpression));
  }
  return errs;
}

/** spec.paramKind (when present) and the environment it implies. */
function policyEnv(spec: Obj, compiler: CelCompiler | undefined): PolicyEnv {
  return { compiler, hasParams: declaresParams(spec), variables: declaredVariables(spec.variables), spec };
}

/** failurePolicy, paramKind, matchConstraints, matchConditions, variables: shared by both policy kinds. */
function validatePolicyCommon(spec: Obj, env: PolicyEnv, matchConditionContext: CelContext, path: FieldPath): FieldError[] {
  const errs = validateFailurePolicy(spec.failurePolicy, path.child('failurePolicy'));
  const paramKind = goObject(spec.paramKind);
  if (paramKind) append(errs, validateParamKind(paramKind, path.child('paramKind')));
  const matchConstraints = goObject(spec.matchConstraints);
  if (isAbsent(spec.matchConstraints)) errs.push(required(path.child('matchConstraints')));
  else if (matchConstraints) {
    append(errs, validateMatchResources(matchConstraints, path.child('matchConstraints')));
    // at least one resourceRule must be defined to provide type information
    if (goList(matchConstraints.resourceRules)?.length === 0) errs.push(required(path.child('matchConstraints', 'resourceRules')));
  }
  append(
    errs,
    validateMatchConditions(
      spec.matchConditions,
      { compiler: env.compiler, hasParams: env.hasParams, spec },
      matchConditionContext,
      path.child('matchConditions'),
    ),
  );
  goList(spec.variables)?.forEach((v, i) => {
    append(errs, validateVariable(v, env, variablesInScope(spec, 'vap-variable', i), path.child('variables').index(i)));
  });
  return errs;
}

/** validateValidatingAdmissionPolicySpec */
export function validateValidatingAdmissionPolicySpec(spec: Obj, policyName: string, compiler: CelCompiler | undefined, path: FieldPath): FieldError[] {
  const env = policyEnv(spec, compiler);
  const errs = validatePolicyCommon(spec, env, 'vap-matchCondition', path);
  const validations = goList(spec.validations);
  const auditAnnotations = goList(spec.auditAnnotations);
  if (!validations || !auditAnnotations) return errs; // a type error in one of them: the decoder reports it
  if (validations.length === 0 && auditAnnotations.length === 0) {
    const detail = 'validations or auditAnnotations must contain at least one item';
    errs.push(required(path.child('validations'), detail), required(path.child('auditAnnotations'), detail));
    return errs;
  }
  validations.forEach((v, i) => append(errs, validateValidation(v, env, path.child('validations').index(i))));
  if (auditAnnotations.length > maxAuditAnnotations)
    errs.push(
      invalidPrinted(
        path.child('auditAnnotations'),
        auditAnnotations,
        `[]admissionregistration.AuditAnnotation{${auditAnnotations
          .map((a) =>
            goStructValue('admissionregistration.AuditAnnotation', [
              ['Key', goObject(a)?.key],
              ['ValueExpression', goObject(a)?.valueExpression],
            ]),
          )
          .join(', ')}}`,
        `must not have more than ${maxAuditAnnotations} auditAnnotations`,
        // json.Marshal of the internal type: Go field names (it has no json tags)
        auditAnnotations.map((a) => ({ Key: goObject(a)?.key ?? '', ValueExpression: goObject(a)?.valueExpression ?? '' })),
      ),
    );
  const keys = new Set<string>();
  auditAnnotations.forEach((a, i) => {
    const annotation = goStruct(a);
    if (!annotation) return;
    const p = path.child('auditAnnotations').index(i);
    append(errs, validateAuditAnnotation(annotation, policyName, env, p));
    const key = goString(annotation.key);
    if (key === undefined) return;
    if (keys.has(key)) errs.push(duplicate(p.child('key'), key));
    keys.add(key);
  });
  return errs;
}

/** validateMutation: patchType selects which of jsonPatch / applyConfiguration must (and must not) be set. */
export function validateMutation(mutation: unknown, env: PolicyEnv, path: FieldPath): FieldError[] {
  const m = goStruct(mutation);
  if (!m) return [];
  const patchType = goString(m.patchType);
  if (patchType === undefined) return [];
  if (patchType === '') return [required(path.child('patchType'))];
  const vars = env.variables.length > 0 ? env.variables : undefined;
  const patches = {
    JSONPatch: { field: 'jsonPatch', other: 'applyConfiguration', context: 'map-jsonPatch' },
    ApplyConfiguration: { field: 'applyConfiguration', other: 'jsonPatch', context: 'map-applyConfiguration' },
  } as const;
  if (patchType !== 'JSONPatch' && patchType !== 'ApplyConfiguration') return [notSupported(path.child('patchType'), patchType, supportedPatchTypes)];
  const { field, other, context } = patches[patchType];
  const errs: FieldError[] = [];
  if (isAbsent(m[field])) errs.push(required(path.child(field), `must be specified when patchType is ${patchType}`));
  else if (goObject(m[field])) {
    const expression = goString(goObject(m[field])?.expression);
    const p = path.child(field, 'expression');
    if (expression !== undefined) {
      const trimmed = trimSpace(expression);
      if (trimmed === '') errs.push(required(p));
      else append(errs, validateCELExpression(env, context, trimmed, p, vars));
    }
  }
  if (!isAbsent(m[other])) errs.push(invalid(path.child(other), `{${other}}`, `must not be specified when patchType is ${patchType}`));
  return errs;
}

/** validateMutatingAdmissionPolicySpec */
export function validateMutatingAdmissionPolicySpec(spec: Obj, compiler: CelCompiler | undefined, path: FieldPath): FieldError[] {
  const env = policyEnv(spec, compiler);
  const errs = validatePolicyCommon(spec, env, 'map-matchCondition', path);
  const matchConstraints = goObject(spec.matchConstraints);
  if (matchConstraints)
    append(
      errs,
      validateOperationsIn(matchConstraints.resourceRules, supportedMutatingOperations, path.child('matchConstraints', 'resourceRules', 'operations')),
    );
  const mutations = goList(spec.mutations);
  if (mutations?.length === 0) errs.push(required(path.child('mutations'), 'mutations must contain at least one item'));
  mutations?.forEach((m, i) => append(errs, validateMutation(m, env, path.child('mutations').index(i))));
  const reinvocationPolicy = goString(spec.reinvocationPolicy);
  if (reinvocationPolicy === '') errs.push(required(path.child('reinvocationPolicy')));
  else append(errs, validateEnum(reinvocationPolicy, supportedReinvocationPolicies, path.child('reinvocationPolicy')));
  return errs;
}

/** ValidateValidatingAdmissionPolicy */
export function validateValidatingAdmissionPolicy(obj: Obj, compiler?: CelCompiler): FieldError[] {
  const errs = validateObjectMeta(obj.metadata, lazyPath('metadata'));
  const spec = goStruct(obj.spec);
  if (spec) append(errs, validateValidatingAdmissionPolicySpec(spec, effectiveName(obj.metadata), compiler, lazyPath('spec')));
  return errs;
}

/** ValidateMutatingAdmissionPolicy */
export function validateMutatingAdmissionPolicy(obj: Obj, compiler?: CelCompiler): FieldError[] {
  const errs = validateObjectMeta(obj.metadata, lazyPath('metadata'));
  const spec = goStruct(obj.spec);
  if (spec) append(errs, validateMutatingAdmissionPolicySpec(spec, compiler, lazyPath('spec')));
  return errs;
}
