/**
 * Lints: best-practice findings beside validation (what the apiserver accepts but can
 * lock a cluster out, leak enforcement, or waste latency). Rules are a table (rules.ts).
 */
import { withDefaults } from '../defaults';
import { kindOf, isObj } from './helpers';
import { RULES } from './rules';
import type { Lint } from './types';

export type { Lint, LintContext } from './types';
export { RULES as LINT_RULES } from './rules';

/** Findings for one object; `workspace` holds all objects (for policy ↔ binding rules). */
export function lint(object: unknown, workspace: readonly unknown[] = []): Lint[] {
  if (!isObj(object)) return [];
  const kind = kindOf(object);
  const defaulted = withDefaults(object);
  const out: Lint[] = [];
  for (const rule of RULES) {
    if (!rule.kinds.includes(kind)) continue;
    for (const f of rule.check({ object: defaulted, workspace })) out.push({ id: rule.id, name: rule.name, severity: rule.severity, ...f });
  }
  return out;
}
