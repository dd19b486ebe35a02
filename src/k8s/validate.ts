/**
 * Create-time validation of admission configuration objects, error for error as
 * a Kubernetes 1.36 kube-apiserver reports them: dispatch by apiVersion/kind,
 * v1 defaulting first, then the kind's validation; all errors collected.
 *
 * Names ending in `.static.k8s.io` get a warning (severity 'warning'), as with
 * the ManifestBasedAdmissionControlConfig gate off. Unknown kinds give no errors. A `v1 List` is validated item by item with paths
 * prefixed `items[i].`. Values of the wrong JSON type are skipped (the decode
 * check reports those); caBundle base64 is checked here.
 */
import type { CelCompiler } from '../cel/types';
import { withDefaults } from './defaults';
import { invalid, type FieldError } from './errors';
import { fieldPath } from './path';
import { kindSpecOf } from './registry/kinds';
import {
  validateMutatingAdmissionPolicy,
  validateMutatingAdmissionPolicyBinding,
  validateMutatingWebhookConfiguration,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  validateValidatingWebhookConfiguration,
} from './validation';
import { warningsForStaticSuffix } from './validation/metadata';
import { isObject, type Obj } from './validation/values';

export interface ValidateOptions {
  /** Compiles CEL expressions; without it only the non-CEL rules about expressions apply. */
  cel?: CelCompiler;
}

type KindValidator = (obj: Obj, compiler: CelCompiler | undefined) => FieldError[];

/** The validator of each kind; which apiVersions are accepted comes from the field registry (one place). */
const validators: Readonly<Record<string, KindValidator>> = {
  ValidatingWebhookConfiguration: validateValidatingWebhookConfiguration,
  MutatingWebhookConfiguration: validateMutatingWebhookConfiguration,
  ValidatingAdmissionPolicy: validateValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding: (o) => validateValidatingAdmissionPolicyBinding(o),
  MutatingAdmissionPolicy: validateMutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding: (o) => validateMutatingAdmissionPolicyBinding(o),
};

/** The validator for an apiVersion/kind pair, if it is one of ours. */
export function validatorFor(apiVersion: unknown, kind: unknown): KindValidator | undefined {
  const spec = kindSpecOf({ apiVersion, kind });
  return spec && Object.hasOwn(validators, spec.kind) ? validators[spec.kind] : undefined;
}

/** Prefix a field path with `items[i]` (the root becomes `items[i]`). */
const prefixed = (prefix: string, e: FieldError): FieldError => ({
  ...e,
  field: e.field === '' ? prefix : e.field.startsWith('[') ? prefix + e.field : `${prefix}.${e.field}`,
});

/** The kind's validation rules after v1 defaulting (no decode check: see validate in validate-all.ts). */
export function validateRules(object: unknown, options?: ValidateOptions): FieldError[] {
  if (!isObject(object)) return [invalid(fieldPath(), object, 'must be an object')];
  if (object.apiVersion === 'v1' && object.kind === 'List' && Array.isArray(object.items)) {
    return object.items.flatMap((item: unknown, i: number) => {
      if (!isObject(item)) return [];
      const prefix = String(fieldPath('items').index(i));
      return validateRules(item, options).map((e) => prefixed(prefix, e));
    });
  }
  const validator = validatorFor(object.apiVersion, object.kind);
  if (!validator) return [];
  return [...validator(withDefaults(object), options?.cel), ...warningsForStaticSuffix(object.metadata, fieldPath('metadata', 'name'))];
}
