/**
 * validateRules: create-time validation of admission configuration objects, error for error as
 * the target release's kube-apiserver reports them (served apiVersion, decoding, defaulting, the
 * kind's rules in the release's words, the registry strategy's additions). The order and what is
 * left to the decode check: README.md ("Validation").
 */
import type { FieldValidation } from './field-validation';
import type { CelCompiler } from '../cel/types';
import { withDefaults } from './defaults';
import { invalid, type FieldError } from './errors';
import { fieldPath } from '../base/path';
import { decoded } from './registry/decode';
import { claimsAdmissionKind, KINDS, kindSpecOf } from './registry/kinds';
import {
  validateMutatingAdmissionPolicy,
  validateMutatingAdmissionPolicyBinding,
  validateMutatingWebhookConfiguration,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  validateValidatingWebhookConfiguration,
} from './validation';
import { validateServedVersion, validateUnknownKind } from './validation/api-version';
import { asReleaseWords } from './validation/releases';
import { strategyChecks, withoutRepeatedErrors } from './validation/strategy';
import { isObject, type Obj } from './validation/values';
import { DEFAULT_KUBERNETES_VERSION, releaseOf, type KubernetesVersion } from '../base/releases';

export interface ValidateOptions {
  /** Compiles CEL expressions; without it only the non-CEL rules about expressions apply. */
  cel?: CelCompiler;
  /** The target release (served apiVersions, its validation's words, its CEL environment); absent = the newest (1.37). */
  kubernetesVersion?: KubernetesVersion;
  /** The write's field validation directive (unknown fields: error, warning or nothing); absent = Warn, the apiserver's own default. */
  fieldValidation?: FieldValidation;
}

/**
 * The compiler with the target release in every compile's options: one wrapper per
 * (compiler, release), so results memoised per compiler stay per release.
 */
const atRelease = new WeakMap<CelCompiler, Map<KubernetesVersion, CelCompiler>>();
export function compilerAt(compiler: CelCompiler | undefined, release: KubernetesVersion): CelCompiler | undefined {
  if (!compiler || release === DEFAULT_KUBERNETES_VERSION) return compiler;
  let byRelease = atRelease.get(compiler);
  if (!byRelease) atRelease.set(compiler, (byRelease = new Map()));
  let c = byRelease.get(release);
  if (!c) {
    c = { compile: (expression, context, options) => compiler.compile(expression, context, { ...options, kubernetesVersion: release }) };
    byRelease.set(release, c);
  }
  return c;
}

/** Validates a decoded object, defaulting it first. */
type KindValidator = (obj: Obj, compiler: CelCompiler | undefined) => FieldError[];

/**
 * The validator of each kind; which apiVersions are accepted comes from the field registry (one place).
 * Webhook configurations default each webhook as they validate it (validation/webhooks.ts), so that
 * a webhook validated before costs one lookup.
 */
const validators: Readonly<Record<string, KindValidator>> = {
  ValidatingWebhookConfiguration: validateValidatingWebhookConfiguration,
  MutatingWebhookConfiguration: validateMutatingWebhookConfiguration,
  ValidatingAdmissionPolicy: (o, cel) => validateValidatingAdmissionPolicy(withDefaults(o), cel),
  ValidatingAdmissionPolicyBinding: (o) => validateValidatingAdmissionPolicyBinding(withDefaults(o)),
  MutatingAdmissionPolicy: (o, cel) => validateMutatingAdmissionPolicy(withDefaults(o), cel),
  MutatingAdmissionPolicyBinding: (o) => validateMutatingAdmissionPolicyBinding(withDefaults(o)),
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
  const release = options?.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
  const { apiVersion } = object;
  // a kind of ours at a version of our group no release has (admissionregistration.k8s.io/v2): the apiVersion error
  const spec =
    kindSpecOf(object) ?? (typeof apiVersion === 'string' ? KINDS.find((k) => k.kind === object.kind && apiVersion.startsWith(`${k.group}/`)) : undefined);
  if (!spec || typeof object.apiVersion !== 'string') return claimsAdmissionKind(object) ? validateUnknownKind(object.apiVersion, object.kind) : [];
  const served = validateServedVersion(spec, object.apiVersion, release);
  const validator = served.known ? validatorFor(object.apiVersion, object.kind) : undefined;
  if (!validator) return served.errors;
  const row = releaseOf(release);
  const obj = decoded(object);
  const errs = asReleaseWords([...validator(obj, compilerAt(options?.cel, release)), ...strategyChecks(spec.kind, obj, row)], spec.kind, release);
  return [...served.errors, ...(row.validation.dedupeErrors ? withoutRepeatedErrors(errs) : errs)];
}
