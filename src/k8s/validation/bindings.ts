/**
 * ValidatingAdmissionPolicyBinding and MutatingAdmissionPolicyBinding on create
 * (validation.go validateValidatingAdmissionPolicyBindingSpec, validateParamRef,
 * validateValidationActions, validateMutatingAdmissionPolicyBindingSpec).
 */
import { append, duplicate, forbidden, invalid, notSupported, required, type FieldError } from '../errors';
import type { FieldPath } from '../../base/path';
import { lazyPath } from './lazy-path';
import { validateMatchResources } from './match-resources';
import { validateObjectMeta } from './metadata';
import { isPathSegmentName, nameIsDNSSubdomain } from './names';
import { supportedMutatingOperations } from './policies';
import { validateOperationsIn } from './rules';
import { validateLabelSelector } from './selectors';
import { goList, goObject, goString, goStruct, isAbsent, type Obj } from './values';
import { invalidSlice } from './go-print';

export const validValidationActions = ['Audit', 'Deny', 'Warn'] as const;
/** Not sorted: validation.go lists them in this order. */
export const parameterNotFoundActions = ['Deny', 'Allow'] as const;

/** spec.policyName: required, a DNS-1123 subdomain (one error per message). The policy need not exist. */
export function validatePolicyName(policyName: unknown, path: FieldPath): FieldError[] {
  const name = goString(policyName);
  if (name === undefined) return [];
  if (name === '') return [required(path)];
  return nameIsDNSSubdomain(name, false).map((msg) => invalid(path, name, msg));
}

/** validateParamRef: name xor selector, parameterNotFoundAction required (not defaulted). namespace is not checked. */
export function validateParamRef(paramRef: unknown, path: FieldPath): FieldError[] {
  const pr = goObject(paramRef);
  if (!pr) return [];
  const errs: FieldError[] = [];
  const name = goString(pr.name) ?? '';
  const hasSelector = !isAbsent(pr.selector);
  if (name.length > 0) {
    for (const msg of isPathSegmentName(name)) errs.push(invalid(path.child('name'), name, msg));
    if (hasSelector) errs.push(forbidden(path.child('name'), 'name and selector are mutually exclusive'));
  }
  if (hasSelector) {
    append(errs, validateLabelSelector(pr.selector, path.child('selector')));
    if (name.length > 0) errs.push(forbidden(path.child('selector'), 'name and selector are mutually exclusive'));
  }
  if (name.length === 0 && !hasSelector && goString(pr.name) !== undefined) errs.push(required(path, 'one of name or selector must be specified'));
  const action = pr.parameterNotFoundAction;
  if (isAbsent(action) || action === '') errs.push(required(path.child('parameterNotFoundAction')));
  else if (typeof action === 'string' && !(parameterNotFoundActions as readonly string[]).includes(action))
    errs.push(notSupported(path.child('parameterNotFoundAction'), action, parameterNotFoundActions));
  return errs;
}

/** validateValidationActions: known, unique, not both Deny and Warn, at least one. */
export function validateValidationActions(actions: unknown, path: FieldPath): FieldError[] {
  const list = goList(actions);
  if (!list) return [];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((action, i) => {
    if (typeof action !== 'string') return;
    if (!(validValidationActions as readonly string[]).includes(action)) errs.push(notSupported(path.index(i), action, validValidationActions));
    if (seen.has(action)) errs.push(duplicate(path.index(i), action));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn'))
    errs.push(
      invalidSlice(
        path,
        'admissionregistration.ValidationAction',
        list,
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  // 1.37's words: declarative validation replaces the handwritten error (its detail goes); older: validation/releases.ts
  if (list.length === 0) errs.push(required(path));
  return errs;
}

/** policyName, paramRef, matchResources: shared by both binding kinds. */
function validateBindingCommon(spec: Obj, path: FieldPath): FieldError[] {
  const errs = validatePolicyName(spec.policyName, path.child('policyName'));
  append(errs, validateParamRef(spec.paramRef, path.child('paramRef')));
  const matchResources = goObject(spec.matchResources);
  if (matchResources) append(errs, validateMatchResources(matchResources, path.child('matchResources')));
  return errs;
}

/** ValidateValidatingAdmissionPolicyBinding */
export function validateValidatingAdmissionPolicyBinding(obj: Obj): FieldError[] {
  const errs = validateObjectMeta(obj.metadata, lazyPath('metadata'));
  const spec = goStruct(obj.spec);
  if (!spec) return errs;
  const path = lazyPath('spec');
  append(errs, validateBindingCommon(spec, path));
  append(errs, validateValidationActions(spec.validationActions, path.child('validationActions')));
  return errs;
}

/** ValidateMutatingAdmissionPolicyBinding: no validationActions; matchResources cannot name DELETE. */
export function validateMutatingAdmissionPolicyBinding(obj: Obj): FieldError[] {
  const errs = validateObjectMeta(obj.metadata, lazyPath('metadata'));
  const spec = goStruct(obj.spec);
  if (!spec) return errs;
  const path = lazyPath('spec');
  append(errs, validateBindingCommon(spec, path));
  const matchResources = goObject(spec.matchResources);
  if (matchResources)
    append(errs, validateOperationsIn(matchResources.resourceRules, supportedMutatingOperations, path.child('matchResources', 'resourceRules', 'operations')));
  return errs;
}
