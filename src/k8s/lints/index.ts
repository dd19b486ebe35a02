/**
 * Lints: best-practice findings beside validation (what the apiserver accepts but can
 * lock a cluster out, leak enforcement, or waste latency). Rules are tables, by kind:
 * webhook-rules.ts (per webhook, with webhook-match-rules.ts and webhook-client-rules.ts),
 * policy-rules.ts (policies, bindings, MAP), cross-rules.ts (across webhooks and documents),
 * platform-rules.ts (the target platform's critical namespaces);
 * the caBundle rules are async (ca-rules.ts).
 */
import { withDefaults } from '../defaults';
import { fieldPath } from '../../base/path';
import { kindOf, isObj, type Obj } from './helpers';
import { CROSS_RULES } from './cross-rules';
import { PLATFORM_RULES } from './platform-rules';
import { MAP_RULES, POLICY_RULES } from './policy-rules';
import type { LintRule } from './rule-types';
import { WEBHOOK_RULES } from './webhook-rules';
import type { Lint, LintOptions } from './types';

export type { Lint, LintContext, LintOptions } from './types';
export type { Finding, LintRule } from './rule-types';
import type { Finding } from './rule-types';
export { WEBHOOK_RULES as WEBHOOK_LINT_RULES } from './webhook-rules';
export { lintCaBundles, caBundleLints, caBundleSites, CA_LINT_RULES } from './ca-rules';

/** Every whole-object rule. */
export const LINT_RULES: readonly LintRule[] = [...POLICY_RULES, ...MAP_RULES, ...CROSS_RULES, ...PLATFORM_RULES];

/** Whether a CA injector fills the configuration's caBundles (read from its annotations). */
export function caInjected(object: Obj): boolean {
  const annotations = isObj(object.metadata) && isObj(object.metadata.annotations) ? object.metadata.annotations : {};
  return Object.keys(annotations).some((k) => k.startsWith('cert-manager.io/inject-ca-from') || k === 'service.beta.openshift.io/inject-cabundle');
}

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
export function lint(object: unknown, workspace: readonly unknown[] = [], options: LintOptions = {}): Lint[] {
  if (!isObj(object)) return [];
  const kind = kindOf(object);
  const defaulted = withDefaults(object);
  const out: Lint[] = [];
  const injected = caInjected(defaulted);
  if (Array.isArray(defaulted.webhooks)) defaulted.webhooks.forEach((w, i) => isObj(w) && out.push(...webhookLints(w, i, kind, injected)));
  for (const rule of LINT_RULES) {
    if (!rule.kinds.includes(kind)) continue;
    for (const f of rule.check({ object: defaulted, workspace, kubernetesVersion: options.kubernetesVersion, criticalNamespaces: options.criticalNamespaces }))
      out.push(asLint(rule, f));
  }
  return out;
}

/**
 * The finding as a Lint, the same object for the same finding: a rule that remembers its
 * findings (W23 per webhook) keeps the Lints, and what is derived from them (the problems
 * list's lines), the same for webhooks an edit did not touch.
 */
const lintOf = new WeakMap<Finding, { rule: LintRule; lint: Lint }>();
function asLint(rule: LintRule, f: Finding): Lint {
  const hit = lintOf.get(f);
  if (hit && hit.rule === rule) return hit.lint;
  const lint: Lint = { id: rule.id, name: rule.name, severity: rule.severity, ...f };
  lintOf.set(f, { rule, lint });
  return lint;
}
