/**
 * Lints: best-practice findings beside validation (what the apiserver accepts but can
 * lock a cluster out, leak enforcement, or waste latency). Rules are a table (rules.ts).
 */
import { withDefaults } from '../defaults';
import { fieldPath } from '../path';
import { kindOf, isObj, type Obj } from './helpers';
import { caInjected, RULES, WEBHOOK_RULES } from './rules';
import type { Lint } from './types';

export type { Lint, LintContext } from './types';
export { RULES as LINT_RULES, WEBHOOK_RULES as WEBHOOK_LINT_RULES } from './rules';

/** Findings per (defaulted) webhook object: defaulting returns the same object for an unchanged webhook. */
const webhookMemo = new WeakMap<Obj, { index: number; kind: string; injected: boolean; lints: Lint[] }>();

function webhookLints(w: Obj, index: number, kind: string, injected: boolean): Lint[] {
  const hit = webhookMemo.get(w);
  if (hit && hit.index === index && hit.kind === kind && hit.injected === injected) return hit.lints;
  const p = fieldPath('webhooks').index(index);
  const lints: Lint[] = [];
  for (const rule of WEBHOOK_RULES) {
    if (!rule.kinds.includes(kind)) continue;
    for (const f of rule.webhook(w, p, { caInjected: injected })) lints.push({ id: rule.id, name: rule.name, severity: rule.severity, ...f });
  }
  webhookMemo.set(w, { index, kind, injected, lints });
  return lints;
}

/** Findings for one object; `workspace` holds all objects (for policy ↔ binding rules). */
export function lint(object: unknown, workspace: readonly unknown[] = []): Lint[] {
  if (!isObj(object)) return [];
  const kind = kindOf(object);
  const defaulted = withDefaults(object);
  const out: Lint[] = [];
  const injected = caInjected(defaulted);
  if (Array.isArray(defaulted.webhooks)) defaulted.webhooks.forEach((w, i) => isObj(w) && out.push(...webhookLints(w, i, kind, injected)));
  for (const rule of RULES) {
    if (!rule.kinds.includes(kind)) continue;
    for (const f of rule.check({ object: defaulted, workspace })) out.push({ id: rule.id, name: rule.name, severity: rule.severity, ...f });
  }
  return out;
}
