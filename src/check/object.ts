/**
 * The checks of one object, from scratch: what the apiserver would say (decode check,
 * validation at the target release with CEL compiled by the engine, the request size
 * limits) and our findings (lints at the same release, caBundle findings from inspections
 * done beforehand). The store and the CLI both come here, the store through the memoised
 * checker (checker.ts), which must give the same answers (checker.test.ts).
 */
import type { KubernetesVersion } from '../base/releases';
import { DEFAULT_KUBERNETES_VERSION } from '../base/releases';
import { targetRelease, type PlatformId } from '../base/platforms';
import type { CelCompiler } from '../cel/types';
import type { CaBundleInspection } from '../k8s/ca-bundle';
import type { FieldError } from '../k8s/errors';
import { DEFAULT_FIELD_VALIDATION, type FieldValidation } from '../k8s/field-validation';
import { caBundleLints, lint, type Lint } from '../k8s/lints';
import { claimsAdmissionKind, kindSpecOf } from '../k8s/registry';
import { validate } from '../k8s/validate-all';
import { sizeProblems } from './size';

export interface CheckOptions {
  /** The one target release of every release-dependent check (validation, CEL environment, lints, cases). */
  kubernetesVersion?: KubernetesVersion;
  /** The target platform (its critical namespaces reach the lints); kubernetesVersion is its release. */
  platform?: PlatformId;
  /** Compiles CEL fields; absent: no CEL errors. */
  cel?: CelCompiler;
  /**
   * caBundle inspections (async: X.509 parsing) looked up by bundle text; an unknown bundle
   * has no findings yet. The CLI inspects every bundle first (inspectBundles); the store
   * inspects in the background and checks again when one arrives.
   */
  caInspection?: (caBundle: string) => CaBundleInspection | undefined;
  /** The time certificates are judged at (default: now). */
  now?: Date;
  /** The write's field validation directive (unknown fields: error, warning or nothing); absent = Strict, as kubectl sends. */
  fieldValidation?: FieldValidation;
}

export interface ObjectChecks {
  /** What the apiserver would answer: errors, and warnings (severity 'warning'). */
  fields: FieldError[];
  /** Our findings (never errors): lints and caBundle findings. */
  lints: Lint[];
}

export const releaseOf = (options: CheckOptions): KubernetesVersion => options.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
export const fieldValidationOf = (options: CheckOptions): FieldValidation => options.fieldValidation ?? DEFAULT_FIELD_VALIDATION;

/** Whether the Workbench checks objects of this kind (other kinds are kept but not checked); one that claims our API group but names no kind of it is checked, and refused. */
export const isChecked = (object: unknown): boolean => kindSpecOf(object) !== undefined || claimsAdmissionKind(object);

/** Apiserver answers for an object: validation (checked kinds) and the size limits (every kind). */
export function fieldProblems(object: unknown, options: CheckOptions): FieldError[] {
  const size = sizeProblems(object);
  if (!isChecked(object)) return size;
  const fields = validate(object, { cel: options.cel, kubernetesVersion: releaseOf(options), fieldValidation: fieldValidationOf(options) });
  return size.length ? [...size, ...fields] : fields;
}

/** Lints of a checked object that read no inspection (the memoisable part). */
export const objectLints = (object: unknown, workspace: readonly unknown[], options: CheckOptions): Lint[] =>
  kindSpecOf(object)
    ? lint(object, workspace, {
        kubernetesVersion: releaseOf(options),
        criticalNamespaces: targetRelease(releaseOf(options), options.platform).criticalNamespaces,
      })
    : [];

/** caBundle findings from the inspections at hand. */
export const caLints = (object: unknown, options: CheckOptions): Lint[] =>
  options.caInspection && kindSpecOf(object) ? caBundleLints(object, options.caInspection, options.now) : [];

/** Every check of one object in its workspace, from scratch. */
export function checkObject(object: unknown, workspace: readonly unknown[], options: CheckOptions = {}): ObjectChecks {
  const ca = caLints(object, options);
  const lints = objectLints(object, workspace, options);
  return { fields: fieldProblems(object, options), lints: ca.length ? [...lints, ...ca] : lints };
}
