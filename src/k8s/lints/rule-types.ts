/** The shape of a lint rule's output and of a whole-object rule (policies, bindings, cross-document). */
import type { Fix } from '../fixes/types';
import type { LintContext } from './types';
import type { Obj } from './helpers';

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
