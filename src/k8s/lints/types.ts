import type { Fix } from '../fixes/types';
import type { KubernetesVersion } from '../../base/releases';
import type { CriticalNamespace } from '../../base/platforms';

/** A best-practice finding: something the apiserver accepts that can still hurt. Never an error. */
export interface Lint {
  /** Stable id, e.g. W03 (see the *-rules.ts tables). */
  id: string;
  /** A short name: fail-closed-broad. */
  name: string;
  /** Field path in apiserver form, like FieldError.field. */
  field: string;
  message: string;
  severity: 'warning' | 'info';
  /** What to do about it. */
  hint?: string;
  /** Quick fixes that remove the finding (pure edits, src/k8s/fixes). */
  fixes?: readonly Fix[];
}

/** What a rule sees: the object (defaulted), and every object of the workspace for cross-document rules. */
export interface LintContext {
  object: Record<string, unknown>;
  workspace: readonly unknown[];
  /** The release the configuration targets (rules about newer CEL libraries); absent = no version rules. */
  kubernetesVersion?: KubernetesVersion;
  /** The target platform's critical namespaces (base/platforms.ts); absent or empty upstream. */
  criticalNamespaces?: readonly CriticalNamespace[];
}

export interface LintOptions {
  kubernetesVersion?: KubernetesVersion;
  criticalNamespaces?: readonly CriticalNamespace[];
}
