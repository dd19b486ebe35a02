/**
 * `validate.foreach` as CEL, after kyverno v1.19 pkg/engine/handlers/validation/validate_resource.go
 * (validateForEach, validateElements) and pkg/engine/utils/foreach.go. Each entry's `list` is a
 * JMESPath query of Kyverno's context (jmespath-cel.ts): a NotFoundError ("Unknown key") passes the
 * entry over, another error is remembered, a value that is not a list is one element. Elements that
 * are null are skipped; each other one is bound as `element` and `element<nesting>`, then the
 * entry's preconditions (false or an error: the element is skipped), then `deny`, else `pattern` /
 * `anyPattern` (on the element when it is in scope: a map, or as `elementScope` says; else on what
 * the level above validates), else the nested `foreach`. The first element that fails or errs
 * decides the rule; otherwise it passes when some element passed, errs when none did and a list
 * failed to evaluate, and has no result (allowed) else.
 *
 * Every level compiles to a CEL int: 0 pass · 3 fail · 4 error · 5 no result (skipped) · 6 a list
 * that failed to evaluate (an error only when no element passed).
 */
import { conditionsTri, type Scope } from './conditions';
import { JmesPathError, parseJmesPath } from './jmespath';
import { JpCompiler } from './jmespath-cel';
import { bind, Names } from './jmespath-values';
import { patternCel, Unsupported } from './pattern';

type Rec = Record<string, unknown>;

export const FOREACH_PASS = 0;
export const FOREACH_FAIL = 3;
export const FOREACH_ERROR = 4;

const KEYS = new Set(['list', 'elementScope', 'preconditions', 'pattern', 'anyPattern', 'deny', 'foreach', 'context']);

interface Level {
  /** CEL of request.object and of the operation Kyverno sees. */
  object: string;
  operation: string;
  /** CEL of what a pattern validates when the element is not in scope (the resource, or the element above). */
  target: string;
  /** element, element0, … bound so far (and the rule's context variables). */
  vars: Record<string, string>;
  /** The rule's context entries and what never holds a text (Scope). */
  scope: Scope;
  nesting: number;
  names: Names;
  differences: string[];
}

/** The first fail or error of `l` (a CEL list of results) in order, else pass when one passed, else `none`. */
const firstOf = (l: string, none: string) => `(${l}.exists(x, x == 3 || x == 4) ? ${l}.filter(x, x == 3 || x == 4)[0] : ${l}.exists(x, x == 0) ? 0 : ${none})`;

/** A pattern's walk (0 pass, 1/2 skip, 3 fail) as the element's result. */
function patternResult(f: Rec, target: string, level: Level): string {
  const compile = (p: unknown) => {
    const r = patternCel(p, target);
    level.differences.push(...r.differences);
    return r.cel;
  };
  if (f.pattern !== undefined) return bind(level.names, compile(f.pattern), (r) => `(${r} == 0 ? 0 : ${r} == 3 ? 3 : 5)`, 'fp');
  if (!Array.isArray(f.anyPattern)) throw new Unsupported('a foreach anyPattern that is not a list');
  // any pattern passes: pass; else a fail fails; only skips: skip
  return bind(level.names, `[${f.anyPattern.map(compile).join(', ')}]`, (p) => `(${p}.exists(x, x == 0) ? 0 : ${p}.exists(x, x == 3) ? 3 : 5)`, 'fp');
}

/** One element's result (`e` names it). */
function elementResult(f: Rec, e: string, level: Level): string {
  const vars = { ...level.vars, element: e, [`element${level.nesting}`]: e };
  const roots = { ...level.scope, object: level.object, operation: level.operation, vars };
  const inner: Level = { ...level, vars, nesting: level.nesting + 1 };
  let body: string;
  if (f.deny !== undefined) {
    // a deny without conditions denies
    const conditions = (f.deny as Rec | null)?.conditions;
    body =
      conditions === undefined || conditions === null
        ? '3'
        : bind(level.names, conditionsTri(conditions, 'foreach deny.conditions', roots, level.differences), (d) => `(${d} == 1 ? 3 : ${d} == 2 ? 4 : 0)`, 'fd');
  } else if (f.pattern !== undefined || f.anyPattern !== undefined) {
    // AddElementToContext: a map element is in scope unless elementScope says otherwise; elementScope true on another type errs
    const scope = f.elementScope;
    if (scope === true) body = `(type(${e}) == map ? ${patternResult(f, e, inner)} : 4)`;
    else if (scope === false) body = patternResult(f, level.target, inner);
    else body = bind(level.names, `(type(${e}) == map ? ${e} : dyn(${level.target}))`, (t) => patternResult(f, t, inner), 'ft');
  } else if (Array.isArray(f.foreach)) {
    const scope = f.elementScope;
    const target = scope === false ? level.target : scope === true ? e : `(type(${e}) == map ? ${e} : dyn(${level.target}))`;
    const nested = bind(level.names, target, (t) => entriesCel(f.foreach as unknown[], { ...inner, target: t }), 'ft');
    body = scope === true ? `(type(${e}) == map ? ${nested} : 4)` : nested;
  } else if (f.foreach !== undefined) throw new Unsupported('a nested foreach that is not a list');
  else body = '5';
  if (f.preconditions === undefined || f.preconditions === null) return body;
  // preconditions not met, or failing to evaluate: the element is skipped
  return `(${conditionsTri(f.preconditions, 'foreach preconditions', roots, level.differences)} == 1 ? ${body} : 5)`;
}

/** One foreach entry: its list, then its elements. */
function entryCel(f: Rec, level: Level): string {
  if (!f || typeof f !== 'object' || Array.isArray(f)) throw new Unsupported('a foreach entry that is not a map');
  const unknown = Object.keys(f).filter((k) => !KEYS.has(k));
  if (unknown.length) throw new Unsupported(`foreach with ${unknown.join(', ')}`);
  if (f.context !== undefined) throw new Unsupported('context in a foreach (variables from the API server, ConfigMaps or other calls)');
  if (typeof f.list !== 'string' || !f.list.trim()) throw new Unsupported('a foreach without a list');
  if (f.list.includes('{{')) throw new Unsupported(`a foreach list with a variable inside: ${f.list}`);
  if (typeof f.elementScope !== 'boolean' && f.elementScope !== undefined) throw new Unsupported('an elementScope that is not a boolean');
  const jp = new JpCompiler({ ...level.scope, object: level.object, operation: level.operation, vars: level.vars });
  let list: { cel: string; depth: number };
  try {
    list = jp.compile(parseJmesPath(f.list), f.list);
  } catch (e) {
    if (e instanceof JmesPathError || e instanceof Unsupported) throw new Unsupported(`the foreach list ${JSON.stringify(f.list)}: ${e.message}`);
    throw e;
  }
  const d = list.depth;
  // the logical elements of a depth-d list, each level summarised as the first fail/error, else a pass, else none
  const summary = (l: string, depth: number): string => {
    const x = level.names.next('fe');
    const each = depth === 0 ? `${x} == null ? 5 : ${elementResult(f, x, level)}` : summary(x, depth - 1);
    return bind(level.names, `${l}.map(${x}, ${each})`, (r) => firstOf(r, '5'), 'fr');
  };
  // EvaluateList: a value that is not a list is a one-element list
  const one = (v: string) => `${'['.repeat(d + 1)}${v}${']'.repeat(d + 1)}`;
  return bind(
    level.names,
    list.cel,
    (p) =>
      `(${p}[0] == 1 ? 5 : ${p}[0] != 0 ? 6 : ${bind(level.names, `(type(${p}[1]) == list ? ${p}[1] : dyn(${one(`${p}[1]`)}))`, (l) => summary(l, d), 'fl')})`,
    'fq',
  );
}

/** The entries of one foreach level, in order. */
function entriesCel(entries: unknown[], level: Level): string {
  if (entries.length === 0) return '5';
  const rs = entries.map((f) => entryCel(f as Rec, level));
  // validateForEach: a fail or error ends it; a list error counts only when no element passed
  return bind(level.names, `[${rs.join(', ')}]`, (l) => firstOf(l, `(${l}.exists(x, x == 6) ? 4 : 5)`), 'fa');
}

/**
 * A rule's `validate.foreach` as a CEL int (0 pass, 3 fail, 4 error, 5 no result) for the object
 * `root` (request.object) and operation `operation`, and what it decides differently (`differences`).
 */
export function foreachCel(foreach: unknown, root: string, operation: string, differences: string[], scope: Scope = {}): string {
  if (!Array.isArray(foreach) || foreach.length === 0) throw new Unsupported('validate.foreach that is not a list');
  const level = { object: root, operation, target: root, vars: { ...scope.vars }, scope, nesting: 0, names: new Names(), differences };
  return entriesCel(foreach, level);
}
