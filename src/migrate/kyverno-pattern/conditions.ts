/**
 * Kyverno conditions (`preconditions`, `validate.deny.conditions`) as a CEL boolean, following
 * pkg/engine/variables (v1.19): each condition's key, then value, substituted when the condition is
 * reached (a whole `{{ … }}` is a JMESPath expression, jmespath-cel.ts; a failed lookup errs the
 * rule), `any` stopping at the first true, `all` (and the old list form) at the first false, every
 * `all` condition evaluated even when `any` failed; then the operator (operators.ts). Keys on the
 * operation against words keep their own reading (an operation is always a plain word).
 */
import { Unsupported } from './pattern';
import { parseJmesPath, JmesPathError, type JpNode } from './jmespath';
import { type Compiled, JpCompiler, literalCel, type Roots } from './jmespath-cel';
import { bind } from './jmespath-values';
import { equalsCel, type InOp, inCel, notEqualsCel, numericCel } from './operators';
import { nestedVariablesCel, textVariablesCel } from './text-variables';
import { wildcardCel } from './scalar';

type Rec = Record<string, unknown>;

const OPERATION = /^\{\{\s*request\.operation\s*(\|\|\s*'[A-Za-z]*'\s*)?\}\}$/;
/** A whole-string variable `{{ expr }}` (a nested or partial one is not read). */
const VARIABLE = /^\{\{\s*([^-][\s\S]*?)\s*\}\}$/;

/** The operation against strings (In and NotIn too): an operation is a plain word, so only wildcards matter. */
function operationCondition(c: Rec, where: string, key: string): string {
  const op = String(c.operator ?? '');
  const value = c.value;
  const strings = (v: unknown): string[] => {
    if (typeof v === 'string') return [v];
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    throw new Unsupported(`${where}: the value ${JSON.stringify(v)} of ${op}`);
  };
  // Any member matches in either direction (anyKeyExistsInArray); the key has no wildcards.
  const member = (v: unknown) => {
    const list = strings(v);
    if (typeof v === 'string' && (v.startsWith('[') || /\d-\d/.test(v))) throw new Unsupported(`${where}: a JSON or range value ${v}`);
    return `(${list.map((s) => wildcardCel(s, key)).join(' || ')})`;
  };
  switch (op.toLowerCase()) {
    case 'equals':
    case 'equal':
      if (typeof value !== 'string') throw new Unsupported(`${where}: Equals with ${JSON.stringify(value)}`);
      return wildcardCel(value, key);
    case 'notequals':
    case 'notequal':
      if (typeof value !== 'string') throw new Unsupported(`${where}: NotEquals with ${JSON.stringify(value)}`);
      return `!(${wildcardCel(value, key)})`;
    case 'anyin':
    case 'in':
    case 'allin':
      return member(value);
    case 'anynotin':
    case 'notin':
    case 'allnotin':
      return `!${member(value)}`;
    default:
      throw new Unsupported(`${where}: the operator ${op}`);
  }
}

interface Side {
  compiled: Compiled;
  /** The JMESPath AST when the side is a variable. */
  node?: JpNode;
  /** The constant, when the side is one. */
  constant?: unknown;
  /** A text the variables print into (an In operator may read it as a range or a JSON list). */
  text?: boolean;
}

/**
 * A list whose members are constants or whole variables of constant context values, as an In
 * operator reads it (undefined: another variable): Kyverno puts each value in place (a list as one
 * member), then prints every member with fmt.Sprint (a list of texts as `[a b c]`).
 */
function withConstants(list: unknown[], constants: Readonly<Record<string, unknown>>): unknown[] | undefined {
  const out: unknown[] = [];
  for (const m of list) {
    const name = typeof m === 'string' ? /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/.exec(m)?.[1] : undefined;
    if (name === undefined) {
      if (JSON.stringify(m ?? null).includes('{{')) return undefined;
      out.push(m);
    } else if (!Object.hasOwn(constants, name)) return undefined;
    else {
      const v = constants[name];
      out.push(Array.isArray(v) ? `[${v.join(' ')}]` : v);
    }
  }
  return out;
}

/** A condition's key or value: a constant, or a whole `{{ … }}` compiled to a CEL pair (`asSet`: an In operator reads it). */
function side(x: unknown, where: string, jp: JpCompiler, differences: string[], asSet = false): Side {
  const hasVar = (v: unknown): boolean =>
    typeof v === 'string'
      ? v.includes('{{') || v.includes('$(')
      : Array.isArray(v)
        ? v.some(hasVar)
        : !!v && typeof v === 'object' && Object.values(v).some(hasVar);
  // a list holding whole variables of constant context values (`["NET_RAW", "{{ capabilities }}"]`), read by an In operator
  if (asSet && Array.isArray(x) && hasVar(x)) x = withConstants(x, jp.roots.constants ?? {}) ?? x;
  if (!hasVar(x)) return { compiled: { cel: `[dyn(0), dyn(${literalCel(x)})]`, depth: 0 }, constant: x };
  const m = typeof x === 'string' ? VARIABLE.exec(x) : null;
  // variables inside a text: the text they print into, or the query they print into (text-variables.ts)
  if (typeof x === 'string' && /\{\{[^}]*\{\{/.test(x)) return { compiled: nestedVariablesCel(x, where, jp, differences) };
  if (typeof x === 'string' && (!m || m[1].includes('{{') || m[1].includes('}}'))) return { compiled: textVariablesCel(x, where, jp, differences), text: true };
  if (!m || m[1].includes('{{') || m[1].includes('}}'))
    throw new Unsupported(`${where}: ${JSON.stringify(x)} (a variable inside a text, a nested one or a reference)`);
  let node: JpNode;
  try {
    node = parseJmesPath(m[1]);
  } catch (e) {
    if (e instanceof JmesPathError) throw new Unsupported(`${where}: ${JSON.stringify(x)} (${e.message})`);
    throw e;
  }
  try {
    return { compiled: jp.compile(node, m[1], asSet), node };
  } catch (e) {
    if (e instanceof Unsupported) throw new Unsupported(`${where}: ${JSON.stringify(x)}: ${e.message}`);
    throw e;
  }
}

/** Whether a value expression only ever yields a list, nil or a non-string (never a range or JSON text an In operator would parse); `vars`: context variables that never hold a text. */
export function neverText(n: JpNode | undefined, vars: ReadonlySet<string> = new Set()): boolean {
  if (!n) return true;
  switch (n.type) {
    case 'Field':
      return vars.has(n.name);
    case 'Projection':
    case 'ValueProjection':
    case 'Filter':
    case 'MultiList':
    case 'MultiHash':
    case 'Flatten':
      return true;
    case 'Literal':
      // a constant other than a text, or a text that is a plain word
      return typeof n.value !== 'string' || !/^\s*\[|\d-/.test(n.value);
    case 'Function':
      return ['keys', 'values', 'to_array', 'length', 'contains', 'regex_match', 'sort'].includes(n.name);
    case 'Or':
      return neverText(n.left, vars) && neverText(n.right, vars);
    case 'Pipe':
      // an element picked from texts that all start with a word (`…[?starts_with(@, 'kube-')] | [0] || ''`)
      return neverText(n.right) || (wordElements(n.left) && picksElement(n.right));
    case 'Sub':
    case 'IndexExpression':
      // the right side reads a value, not the context: its fields are no variables
      return neverText(n.right);
    default:
      return false;
  }
}

/**
 * Whether every element of the projection `n` is never a text an In operator parses: each one what
 * its right side yields when that is never text (`a[?b].c[?d]`: lists), or a filter keeping only
 * texts that start with a constant that is neither a range (a sign or digit first) nor JSON
 * (`json.Valid`: a space, `{`, `[`, `"`, a digit, `-`, `true`, `false`, `null`); starts_with keeps
 * no other value.
 */
function wordElements(n: JpNode): boolean {
  if (n.type !== 'Filter' && n.type !== 'Projection') return false;
  if (n.right.type !== 'Current') return neverText(n.right);
  if (n.type !== 'Filter') return false;
  const c = n.condition;
  if (c.type !== 'Function' || c.name !== 'starts_with' || c.args.length !== 2 || c.args[0]!.type !== 'Current') return false;
  const prefix = c.args[1]!;
  return prefix.type === 'Literal' && typeof prefix.value === 'string' && /^[A-Za-z]/.test(prefix.value) && !/^[tfn]/.test(prefix.value);
}

/** An element of the value piped in (`[i]`), or else a value that is never text. */
const picksElement = (n: JpNode): boolean =>
  n.type === 'Index' ||
  (n.type === 'IndexExpression' && n.left.type === 'Current' && n.right.type === 'Index') ||
  (n.type === 'Or' && picksElement(n.left) && neverText(n.right));

const IN_OPS = new Set(['anyin', 'anynotin', 'allin', 'allnotin']);

/** One condition as CEL: a boolean that errs when Kyverno's substitution fails, or with `tri` an int (0 false, 1 true, 2 Kyverno's error). */
function condition(c: Rec, where: string, jp: JpCompiler, differences: string[], tri = false): string {
  if (!c || typeof c !== 'object') throw new Unsupported(`${where}: a condition that is not a map`);
  const op = String(c.operator ?? '').toLowerCase();
  const list = Array.isArray(c.value) && c.value.every((x) => typeof x === 'string');
  const words =
    (typeof c.value === 'string' || (list && !['equals', 'equal', 'notequals', 'notequal'].includes(op))) && !JSON.stringify(c.value).includes('{{');
  const asTri = (b: string) => (tri ? `(${b} ? 1 : 0)` : b);
  if (typeof c.key === 'string' && OPERATION.test(c.key) && words) return asTri(operationCondition(c, where, jp.roots.operation));
  // images' registries come in a Go map's order, which only the set operators ignore (not printed into a text either)
  const readsImages = (x: unknown) => /\bimages\./.test(JSON.stringify(x ?? null));
  if (jp.roots.images && [c.key, c.value].some((x) => readsImages(x) && (!IN_OPS.has(op) || typeof x !== 'string' || !/^\{\{[^{}]*\}\}$/.test(x))))
    throw new Unsupported(`${where}: images read other than as a whole value of an In operator (their order is a Go map's)`);
  const key = side(c.key, where, jp, differences, IN_OPS.has(op));
  const value = side(c.value ?? null, where, jp, differences, IN_OPS.has(op));
  const names = jp.names;
  // a run-time error (a constant one would be folded when the program is built)
  const fail = (p: string) => (tri ? '2' : `int(string(${p}[0]) + ': a variable did not resolve') == 0`);
  return bind(
    names,
    key.compiled.cel,
    (kp) =>
      `(${kp}[0] != 0 ? ${fail(kp)} : ${bind(names, value.compiled.cel, (vp) => {
        const k = `${kp}[1]`;
        const v = `${vp}[1]`;
        let body: string;
        if (op === 'equals' || op === 'equal' || op === 'notequals' || op === 'notequal') {
          if (key.compiled.depth || value.compiled.depth) throw new Unsupported(`${where}: ${c.operator} on a flattened list`);
          body = op.startsWith('not') ? notEqualsCel(k, v, value.constant) : equalsCel(k, v, value.constant);
        } else if (IN_OPS.has(op)) {
          if (value.constant === undefined && (value.text || !neverText(value.node, jp.roots.neverText)))
            differences.push(`${where}: a value read at run time that could be a range or a JSON list in text (Kyverno parses it; the CEL reads it as a word)`);
          body = inCel(names, op as InOp, k, key.compiled.depth, v, value.compiled.depth, value.constant, key.constant);
        } else if (['greaterthan', 'greaterthanorequals', 'lessthan', 'lessthanorequals'].includes(op)) {
          if (value.constant === undefined) throw new Unsupported(`${where}: ${c.operator} with a value read at run time`);
          body = numericCel(op, k, value.constant);
        } else throw new Unsupported(`${where}: the operator ${c.operator}`);
        return `(${vp}[0] != 0 ? ${fail(vp)} : ${asTri(body)})`;
      })})`,
  );
}

/** What a rule's queries read besides request.object and the operation: variables, context entries (jmespath-cel.ts Roots). */
export type Scope = Omit<Roots, 'object' | 'operation'>;

/** A conditions block (a list: all; or `any`/`all`) as CEL; true when Kyverno's conditions hold. `operation`: the CEL of the operation Kyverno sees; `root`: its request.object. */
export function conditionsCel(
  block: unknown,
  where: string,
  operation = 'request.operation',
  root = 'object',
  differences: string[] = [],
  scope: Scope = {},
): string {
  const jp = new JpCompiler({ ...scope, object: root, operation });
  try {
    return conditionsBool(block, where, jp, differences);
  } finally {
    differences.push(...jp.differences);
  }
}

function conditionsBool(block: unknown, where: string, jp: JpCompiler, differences: string[]): string {
  // ternaries, not || and &&: a condition not reached must not err the block, one reached must
  const any = (cs: Rec[], w: string) => cs.reduceRight((acc, c, i) => `(${condition(c, `${w}[${i}]`, jp, differences)} ? true : ${acc})`, 'false');
  const all = (cs: Rec[], w: string) => cs.reduceRight((acc, c, i) => `(${condition(c, `${w}[${i}]`, jp, differences)} ? ${acc} : false)`, 'true');
  if (Array.isArray(block)) return all(block as Rec[], where);
  if (!block || typeof block !== 'object') throw new Unsupported(`${where}: not a list or any/all`);
  const b = block as Rec;
  const anyCs = b.any as Rec[] | undefined;
  const allCs = (b.all as Rec[] | undefined) ?? [];
  if (anyCs === undefined || anyCs === null) return all(allCs, `${where}.all`);
  // every all condition is evaluated even when any failed (its errors count)
  const a = jp.names.next('any');
  const l = jp.names.next('all');
  return `[${any(anyCs, `${where}.any`)}].map(${a}, [${all(allCs, `${where}.all`)}].map(${l}, ${a} && ${l})[0])[0]`;
}

/**
 * A conditions block as a CEL int that keeps Kyverno's error apart (0 false, 1 true, 2 an error:
 * the first one reached ends the block), for the places that tell an error from a false (a foreach
 * element whose preconditions err is skipped). `roots` says what `request.object`, the operation and
 * other variables (`element`) read.
 */
export function conditionsTri(block: unknown, where: string, roots: Roots, differences: string[] = []): string {
  const jp = new JpCompiler(roots);
  try {
    return conditionsInt(block, where, jp, differences);
  } finally {
    differences.push(...jp.differences);
  }
}

function conditionsInt(block: unknown, where: string, jp: JpCompiler, differences: string[]): string {
  const any = (cs: Rec[], w: string) =>
    cs.reduceRight((acc, c, i) => bind(jp.names, condition(c, `${w}[${i}]`, jp, differences, true), (t) => `(${t} != 0 ? ${t} : ${acc})`, 't'), '0');
  const all = (cs: Rec[], w: string) =>
    cs.reduceRight((acc, c, i) => bind(jp.names, condition(c, `${w}[${i}]`, jp, differences, true), (t) => `(${t} != 1 ? ${t} : ${acc})`, 't'), '1');
  if (Array.isArray(block)) return all(block as Rec[], where);
  if (!block || typeof block !== 'object') throw new Unsupported(`${where}: not a list or any/all`);
  const b = block as Rec;
  const anyCs = b.any as Rec[] | undefined;
  const allCs = (b.all as Rec[] | undefined) ?? [];
  if (anyCs === undefined || anyCs === null) return all(allCs, `${where}.all`);
  // an error of the any block ends it; otherwise every all condition is evaluated
  return bind(
    jp.names,
    any(anyCs, `${where}.any`),
    (a) => `(${a} == 2 ? 2 : ${bind(jp.names, all(allCs, `${where}.all`), (l) => `(${l} == 2 ? 2 : ${a} == 1 && ${l} == 1 ? 1 : 0)`, 'l')})`,
    'a',
  );
}

export { conditionSites } from './condition-sites';

// pkg/autogen/v1 updateFields: the generated rule's text rewritten, `request.object.spec` first
const AUTOGEN_TEXT: Record<'Deployment' | 'CronJob', [string, string][]> = {
  Deployment: [
    ['request.object.spec', 'request.object.spec.template.spec'],
    ['request.oldObject.spec', 'request.oldObject.spec.template.spec'],
    ['request.object.metadata', 'request.object.spec.template.metadata'],
    ['request.oldObject.metadata', 'request.oldObject.spec.template.metadata'],
  ],
  CronJob: [
    ['request.object.spec', 'request.object.spec.jobTemplate.spec.template.spec'],
    ['request.oldObject.spec', 'request.oldObject.spec.jobTemplate.spec.template.spec'],
    ['request.object.metadata', 'request.object.spec.jobTemplate.spec.template.metadata'],
    ['request.oldObject.metadata', 'request.oldObject.spec.jobTemplate.spec.template.metadata'],
  ],
};

/** Conditions as Kyverno's rule generated for Pod controllers (`Deployment`: every controller but CronJob) reads them. */
export function autogenConditions<T>(x: T, kind: 'Pod' | 'Deployment' | 'CronJob'): T {
  if (kind === 'Pod' || x === undefined) return x;
  return JSON.parse(AUTOGEN_TEXT[kind].reduce((text, [from, to]) => text.replaceAll(from, to), JSON.stringify(x))) as T;
}

/**
 * A rule's `preconditions` as one CEL boolean (undefined: none). Kyverno's generated rules for Pod
 * controllers read the conditions' text rewritten under the template (autogenConditions), so
 * conditions on the object are decided per shape of object (Pod, controller, CronJob).
 */
export function rulePreconditionsCel(rule: Rec, controllers: readonly string[], differences: string[], scope: Scope = {}): string | undefined {
  if (rule.preconditions === undefined) return undefined;
  const of = (kind: 'Pod' | 'Deployment' | 'CronJob') =>
    conditionsCel(autogenConditions(rule.preconditions, kind), 'preconditions', 'request.operation', 'object', differences, scope);
  if (controllers.length === 0 || !/request\.(object|oldObject)\b/.test(JSON.stringify(rule.preconditions))) return of('Pod');
  return `(request.kind.kind == 'CronJob' ? ${controllers.includes('CronJob') ? of('CronJob') : 'true'} : request.kind.kind == 'Pod' ? ${of('Pod')} : ${of('Deployment')})`;
}
