/** The shape of a lint rule's output, of a whole-object rule (policies, bindings, cross-document) and of a per-webhook rule. */
import type { FieldPath } from '../../base/path';
import type { Fix } from '../fixes/types';
import type { LintContext } from './types';
import type { Obj } from '../../base/json';

export interface Finding {
  field: string;
  message: string;
  hint?: string;
  /** Quick fixes that remove this finding (see src/k8s/fixes). */
  fixes?: readonly Fix[];
}

export interface LintRule {
  id: string;
  name: string;
  severity: 'warning' | 'info';
  kinds: readonly string[];
  check(ctx: LintContext): Finding[];
  /**
   * What the rule reads of each other workspace object (a projection: JSON data, or undefined
   * for an object it ignores). A rule that reads the workspace must declare it: incremental
   * checkers (src/check) key a finding on these projections, so an edit elsewhere that changes
   * none of them keeps it, and one that changes any re-runs the rule. Absent: reads only its object.
   */
  reads?(other: Obj): unknown;
}

/** Rules about one webhook of a configuration. */
export interface WebhookLintRule {
  id: string;
  name: string;
  severity: 'warning' | 'info';
  kinds: readonly string[];
  webhook(w: Obj, p: FieldPath, ctx: WebhookContext): Finding[];
}

/** What a webhook rule may know of the configuration around the webhook. */
export interface WebhookContext {
  /** A CA injector (cert-manager, OpenShift) fills caBundle. */
  caInjected: boolean;
}
