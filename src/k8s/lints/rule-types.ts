/** The shape of a lint rule's output and of a whole-object rule (policies, bindings, cross-document). */
import type { Fix } from '../fixes/types';
import type { LintContext } from './types';

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
}
