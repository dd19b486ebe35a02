/**
 * What an object's cross-document findings depend on: for every lint rule of its kind that
 * declares `reads` (src/k8s/lints rule-types.ts), the projection of each other workspace
 * object. Two workspaces with the same key give the object the same findings, so an
 * incremental checker keys its lint cache on it — the rules say what they read, no list here.
 */
import { LINT_RULES, type LintRule } from '../k8s/lints';
import { isObject, str } from '../base/json';

/** Rules that read other objects, by the kind they check. */
const readingRules = new Map<string, LintRule[]>();
for (const rule of LINT_RULES) {
  if (!rule.reads) continue;
  for (const kind of rule.kinds) readingRules.set(kind, [...(readingRules.get(kind) ?? []), rule]);
}

/** One rule's projection of one object, as text (memoised per object: objects are never mutated). */
const projections = new WeakMap<object, Map<LintRule, string>>();
function projection(rule: LintRule, o: Record<string, unknown>): string {
  let row = projections.get(o);
  if (!row) projections.set(o, (row = new Map()));
  let p = row.get(rule);
  if (p === undefined) {
    const v = rule.reads!(o);
    row.set(rule, (p = v === undefined ? '' : JSON.stringify(v)));
  }
  return p;
}

/** The key per (workspace, kind): every object of one kind shares it. */
const keys = new WeakMap<readonly unknown[], Map<string, string>>();

/** What the lints of `object` read of `workspace`, as a string ('' when its rules read nothing). */
export function workspaceReadsKey(object: unknown, workspace: readonly unknown[]): string {
  const kind = isObject(object) ? str(object.kind) : '';
  const rules = readingRules.get(kind);
  if (!rules) return '';
  let row = keys.get(workspace);
  if (!row) keys.set(workspace, (row = new Map()));
  let key = row.get(kind);
  if (key === undefined) {
    const parts: string[] = [];
    for (const rule of rules) {
      parts.push(rule.id);
      for (const o of workspace) {
        if (!isObject(o)) continue;
        const p = projection(rule, o);
        if (p) parts.push(p);
      }
    }
    row.set(kind, (key = parts.join('\n')));
  }
  return key;
}
