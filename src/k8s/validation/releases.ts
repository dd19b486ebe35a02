/**
 * What older releases' validation says differently from the newest's, as data: each entry
 * rewrites the error the rules produce (the newest release's words) into the older release's
 * words or path. Found by diffing pkg/apis/admissionregistration/validation/validation.go and
 * k8s.io/apimachinery's validation between the releases the app knows (one entry per change;
 * docs/versions.md lists them with the release that changed them). Differences that are not
 * wording (served apiVersions, the CEL environment and its cost rules) live in
 * registry/served.ts and the CEL engine.
 */
import type { ErrorType, FieldError } from '../errors';
import { minorOf, type KubernetesVersion } from '../../base/releases';
import { olderPrinting } from './go-print';

interface ReleaseDifference {
  /** The last release that says it the old way. */
  until: KubernetesVersion;
  /** Only for these kinds (all when absent). */
  kinds?: readonly string[];
  /** The 1.36 error: its path, type and (part of its) message. */
  field: RegExp;
  type?: ErrorType;
  message?: string;
  /** The older release's error. */
  rewrite: (e: FieldError) => FieldError;
  source: string;
}

const withMessage =
  (message: string) =>
  (e: FieldError): FieldError => ({ ...e, message });

/** Go's JSON escapes of <, >, & and U+2028/9 (goJSON), back to the characters %#v / %q print. */
const unescapeHTML = (s: string): string => s.replace(/\\u(003c|003e|0026|2028|2029)/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

export const RELEASE_DIFFERENCES: readonly ReleaseDifference[] = [
  // first: it finds the error object itself (go-print.ts remembers its older printing)
  {
    until: '1.33',
    field: /./,
    rewrite: (e) => {
      const old = olderPrinting(e);
      return old ? withMessage(old)(e) : e;
    },
    source: 'k8s.io/apimachinery field/errors.go ErrorBody: bad values that are not strings, numbers or booleans in %#v until v0.33, json.Marshal from v0.34',
  },
  {
    until: '1.33',
    field: /./,
    type: 'NotSupported',
    rewrite: (e) => withMessage(unescapeHTML(e.message))(e),
    source: 'the same change: values of named string types (OperationType, …) in %#v (no HTML escaping) until v0.33',
  },
  {
    until: '1.36',
    kinds: ['ValidatingAdmissionPolicyBinding'],
    field: /^spec\.validationActions$/,
    type: 'Required',
    rewrite: (e) => (e.message === 'Required value' ? withMessage('Required value: at least one validation action is required')(e) : e),
    source:
      'validation.go validateValidationActions marks its Required error covered by declarative validation (1.36 marked the whole list, a no-op); from 1.37 create runs declarative validation, whose +k8s:required error ("Required value", no detail) replaces it',
  },
  {
    until: '1.31',
    field: /./,
    message: 'must evaluate to ',
    rewrite: (e) => withMessage(e.message.replace(/(must evaluate to .*?) but got .*$/s, '$1'))(e),
    source:
      'k8s.io/apiserver pkg/admission/plugin/cel/compile.go: a result of the wrong type "must evaluate to T" until v0.31, "must evaluate to T but got U" from v0.32',
  },
  {
    until: '1.36',
    field: /^metadata\.ownerReferences\[\d+\](\.(apiVersion|kind|name|uid))?$/,
    rewrite: (e) => {
      const field = e.field.replace(/^metadata\.ownerReferences\[\d+\]/, 'metadata.ownerReferences');
      if (e.type === 'Required')
        return {
          ...e,
          field,
          type: 'Invalid',
          message: field.endsWith('.apiVersion') ? 'Invalid value: "": version must not be empty' : 'Invalid value: "": must not be empty',
        };
      return { ...e, field, message: e.message.replace(/must be <group>\/<version> or <version>$/, 'version must not be empty') };
    },
    source:
      'k8s.io/apimachinery pkg/api/validation/objectmeta.go validateOwnerReference until v0.36: paths without the index, Invalid "must not be empty" (apiVersion: "version must not be empty") where v0.37 says Required "must not be empty" (apiVersion: Invalid "must be <group>/<version> or <version>")',
  },
  {
    until: '1.34',
    field: /./,
    message: 'must be no more than',
    rewrite: (e) => withMessage(e.message.replace(/must be no more than (\d+) bytes/g, 'must be no more than $1 characters'))(e),
    source:
      'k8s.io/apimachinery: label keys and values in validation.IsQualifiedName/IsValidLabelValue ("characters") until v0.34, content.IsLabelKey/IsLabelValue ("bytes") from v0.35',
  },
  {
    until: '1.34',
    field: /./,
    message: 'a valid label key ',
    rewrite: (e) => withMessage(e.message.replace('a valid label key ', 'a qualified name '))(e),
    source: 'k8s.io/apimachinery validation.IsQualifiedName: "a qualified name must consist of …" until v0.34',
  },
  {
    until: '1.33',
    field: /\.clientConfig\.service\.(name|namespace)$/,
    type: 'Required',
    rewrite: (e) => (e.message === 'Required value' ? withMessage(`Required value: service ${e.field.slice(e.field.lastIndexOf('.') + 1)} is required`)(e) : e),
    source: 'k8s.io/apiserver pkg/util/webhook/validation.go ValidateWebhookService: "service name/namespace is required" until v0.33',
  },
  {
    until: '1.31',
    kinds: ['ValidatingAdmissionPolicyBinding'],
    field: /^spec\.matchResources(?=$|[.[])/,
    rewrite: (e) => ({ ...e, field: e.field.replace(/^spec\.matchResources/, 'spec.matchResouces') }),
    source: 'validation.go validateValidatingAdmissionPolicyBindingSpec: fldPath.Child("matchResouces") until v1.31, fixed in v1.32',
  },
  {
    until: '1.33',
    field: /\.variables\[\d+\]\.name$/,
    message: 'must be a valid CEL identifier',
    rewrite: (e) => withMessage(e.message.replace(/must be a valid CEL identifier$/, 'name is not a valid CEL identifier'))(e),
    source: 'validation.go validateVariable: "name is not a valid CEL identifier" until v1.33',
  },
  {
    until: '1.33',
    field: /\.validations\[\d+\]\.message$/,
    message: 'must be non-empty if specified',
    rewrite: (e) => withMessage(e.message.replace(/must be non-empty if specified$/, 'message must be non-empty if specified'))(e),
    source: 'validation.go validateValidation: "message must be non-empty if specified" until v1.33',
  },
  {
    until: '1.33',
    field: /\.validations\[\d+\]\.message$/,
    message: 'must not contain line breaks',
    rewrite: (e) => withMessage(e.message.replace(/must not contain line breaks$/, 'message must not contain line breaks'))(e),
    source: 'validation.go validateValidation: "message must not contain line breaks" until v1.33',
  },
  {
    until: '1.33',
    field: /^metadata\.ownerReferences(\[\d+\])?\.(kind|name|uid)$/,
    message: 'must not be empty',
    rewrite: (e) => withMessage(e.message.replace(/must not be empty$/, `${e.field.slice(e.field.lastIndexOf('.') + 1)} must not be empty`))(e),
    source: 'k8s.io/apimachinery pkg/api/validation/objectmeta.go validateOwnerReference: "kind/name/uid must not be empty" until v0.33',
  },
  {
    until: '1.31',
    field: /./,
    message: 'Too long: may not be more than',
    rewrite: (e) => withMessage(e.message.replace(/^Too long: may not be more than (\d+) bytes?$/, 'Too long: must have at most $1 bytes'))(e),
    source: 'k8s.io/apimachinery pkg/util/validation/field/errors.go TooLong: "must have at most %d bytes" until v0.31',
  },
];

/** The 1.36 errors of an object of `kind` as `release` words them. */
export function asReleaseWords(errors: FieldError[], kind: string, release: KubernetesVersion): FieldError[] {
  const minor = minorOf(release);
  const applicable = RELEASE_DIFFERENCES.filter((d) => minor <= minorOf(d.until) && (!d.kinds || d.kinds.includes(kind)));
  if (applicable.length === 0) return errors;
  return errors.map((e) =>
    applicable.reduce(
      (acc, d) => (d.field.test(acc.field) && (!d.type || acc.type === d.type) && (!d.message || acc.message.includes(d.message)) ? d.rewrite(acc) : acc),
      e,
    ),
  );
}
