/**
 * Variables inside a text (`"{{request.namespace}}/*"`, `"team-{{ element.name }}"`) as Kyverno v1.19
 * substitutes them in a condition's key or value (pkg/engine/variables substituteVariablesIfAny):
 * each `{{ … }}` is a JMESPath query, left to right, whose value is printed into the text (a text as
 * it is, anything else as its JSON); a lookup that fails errs the rule. The result is a text.
 */
import { JmesPathError, type JpNode, parseJmesPath } from './jmespath';
import { type Compiled, JpCompiler, PRINTED } from './jmespath-cel';
import { bind } from './jmespath-values';
import { Unsupported } from './pattern';
import { celString } from './scalar';

// regex.RegexVariables: a `{{ … }}` holding no other one (single braces allowed), not after a
// backslash (Kyverno finds one right after another when it scans the printed text again)
const VARIABLE = /(?<!\\)\{\{(?:\{[^{}]*\}|[^{}])*\}\}/g;

/** request.namespace or request.operation: a text without backslashes or braces. */
const isNamespace = (n: JpNode): boolean =>
  n.type === 'Sub' && n.left.type === 'Field' && n.left.name === 'request' && n.right.type === 'Field' && ['namespace', 'operation'].includes(n.right.name);

/** A chain of fields (`request.object.metadata.labels.app`) as its names. */
function fieldPath(n: JpNode): string[] | undefined {
  if (n.type === 'Field') return [n.name];
  if (n.type !== 'Sub' || n.right.type !== 'Field') return undefined;
  const left = fieldPath(n.left);
  return left && [...left, n.right.name];
}

/** The object's label values, annotation values, name and namespace: texts in every object the apiserver decodes (ObjectMeta); which one. */
function metadataField(n: JpNode): string | undefined {
  const p = fieldPath(n);
  if (p?.[0] !== 'request' || !['object', 'oldObject'].includes(p[1])) return undefined;
  // the object's own metadata, or its Pod template's (Kyverno's rules for Pod controllers read it there)
  const at = ['', 'spec/template', 'spec/jobTemplate/spec/template']
    .map((prefix) => 2 + (prefix ? prefix.split('/').length : 0))
    .find((i) => p[i] === 'metadata' && ['', 'spec/template', 'spec/jobTemplate/spec/template'].includes(p.slice(2, i).join('/')));
  if (at === undefined) return undefined;
  const m = p.slice(at + 1);
  if (m.length === 2 && (m[0] === 'labels' || m[0] === 'annotations')) return m[0];
  if (m.length === 1 && (m[0] === 'name' || m[0] === 'namespace')) return m[0];
  return undefined;
}

/** Whether a query's value is always a text, an integer, a boolean or null, never holding `{{`: what the CEL prints as Kyverno does. */
function printable(n: JpNode): boolean {
  switch (n.type) {
    case 'Literal':
      return n.value === null || typeof n.value === 'boolean' || (typeof n.value === 'string' && !n.value.includes('{{'));
    case 'Sub':
      // a label value, like a namespace, holds no braces (the apiserver validates them before admission)
      return isNamespace(n) || metadataField(n) === 'labels';
    case 'Function':
      // (length is a float64: a whole number)
      return ['length', 'to_upper', 'to_lower', 'join', 'contains', 'starts_with', 'ends_with', 'regex_match'].includes(n.name);
    case 'Or':
      return printable(n.left) && printable(n.right);
    default:
      return false;
  }
}

/** A value as Kyverno prints it into a text (`known`: the CEL prints it as Kyverno does; else it errs). */
function printCel(v: string): { known: string; s: string } {
  // a float64 as Go's JSON prints it: a whole number as an integer, else where CEL's %g prints the same
  const whole = `(type(${v}) == double && ${v} > -9e18 && ${v} < 9e18 && ${v} == double(int(${v})))`;
  const plain = `(type(${v}) == double && ((${v} >= 0.0001 && ${v} < 1e6) || (${v} <= -0.0001 && ${v} > -1e6)))`;
  return {
    s: `(type(${v}) == string ? ${v} : (type(${v}) == int || type(${v}) == uint) ? string(${v}) : ${whole} ? string(int(${v})) : ${plain} ? string(${v}) : type(${v}) == bool ? (${v} ? 'true' : 'false') : 'null')`,
    known: `(${v} == null || type(${v}) == string || type(${v}) == int || type(${v}) == uint || type(${v}) == bool || ${whole} || ${plain})`,
  };
}

/** Whether a query's value, printed, never holds a quote, a backslash or braces (a label value: the apiserver validates it before admission). */
function quoteFree(n: JpNode): boolean {
  switch (n.type) {
    case 'Literal':
      return n.value === null || typeof n.value === 'boolean' || (typeof n.value === 'string' && !/['\\{}]/.test(n.value));
    case 'Sub':
      return isNamespace(n) || metadataField(n) === 'labels';
    case 'Function':
      return ['length', 'contains', 'starts_with', 'ends_with', 'regex_match'].includes(n.name);
    case 'Or':
      return quoteFree(n.left) && quoteFree(n.right);
    default:
      return false;
  }
}

/** One `{{ … }}` query of a text, parsed and compiled. */
function query(v: string, text: string, where: string, jp: JpCompiler): { node: JpNode; compiled: Compiled } {
  const q = v.slice(2, -2).trim();
  if (q.startsWith('-')) throw new Unsupported(`${where}: ${JSON.stringify(text)} (a shallow variable)`);
  try {
    const node = parseJmesPath(q);
    return { node, compiled: jp.compile(node, q) };
  } catch (e) {
    if (e instanceof JmesPathError || e instanceof Unsupported) throw new Unsupported(`${where}: ${JSON.stringify(text)}: ${e.message}`);
    throw e;
  }
}

/** `body` on a query's value printed (its failure, or a value the CEL does not print, errs). */
function onPrinted(jp: JpCompiler, c: Compiled, body: (s: string) => string): string {
  return bind(jp.names, c.cel, (q) => {
    if (c.depth > 0) return `(${q}[0] != 0 ? ${q} : [dyn(2), dyn(null)])`;
    const { known, s } = printCel(`${q}[1]`);
    return `(${q}[0] != 0 ? ${q} : !${known} ? [dyn(2), dyn(null)] : ${body(s)})`;
  });
}

const PRINTS_JSON = (where: string) =>
  `${where}: a variable printed into a text whose value may be a list, a map, a fractional number or hold "{{" (Kyverno prints JSON and reads a printed variable again; the CEL errs or prints it as it is)`;

/**
 * A text holding variables as a CEL `[status, value]` pair. Unsupported: escaped (`\{{`), nested or
 * shallow (`{{- … }}`) variables. A value that is a list, a map or a fractional number errs in the
 * CEL (Kyverno prints its JSON): a difference, unless every query prints exactly (`printable`).
 */
export function textVariablesCel(text: string, where: string, jp: JpCompiler, differences: string[]): Compiled {
  if (text.includes('\\{{') || text.includes('$(')) throw new Unsupported(`${where}: ${JSON.stringify(text)} (an escaped variable or a reference)`);
  const parts: (string | Compiled)[] = [];
  let last = 0;
  for (const m of text.matchAll(VARIABLE)) {
    const start = m.index ?? 0;
    parts.push(text.slice(last, start));
    const { node, compiled } = query(m[0], text, where, jp);
    parts.push(compiled);
    if (!printable(node)) differences.push(PRINTS_JSON(where));
    // the next variable right after this one: a printed value ending in a backslash would escape it
    if (text.startsWith('{{', start + m[0].length) && !quoteFree(node))
      differences.push(`${where}: variables next to each other (a printed value ending in a backslash escapes the next one in Kyverno)`);
    last = start + m[0].length;
  }
  parts.push(text.slice(last));
  const rest = parts.filter((p) => typeof p === 'string').join('');
  if (rest.includes('{{') || rest.includes('}}'))
    throw new Unsupported(`${where}: ${JSON.stringify(text)} (a variable inside a text, a nested one or a reference)`);
  // each query's pair, then its printed text; the first failure (in order) is the text's
  const build = (i: number, printed: string[]): string => {
    if (i === parts.length) return `[dyn(0), dyn(${printed.join(' + ')})]`;
    const p = parts[i];
    if (typeof p === 'string') return build(i + 1, p ? [...printed, celString(p)] : printed);
    return onPrinted(jp, p, (s) => build(i + 1, [...printed, s]));
  };
  return { cel: build(0, []), depth: 0 };
}

/** Whether each position of `marks` in a JMESPath text sits inside a raw string literal (`'…'`, `\'` an escaped quote). */
function inRawLiterals(text: string, marks: number[]): boolean {
  const raw: boolean[] = [];
  let state: '' | "'" | '`' | '"' = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (state && c === '\\') {
      if (marks.includes(i)) return false;
      i++;
      continue;
    }
    if (marks.includes(i)) raw.push(state === "'");
    if (!state && (c === "'" || c === '`' || c === '"')) state = c;
    else if (state && c === state) state = '';
  }
  return raw.length === marks.length && raw.every(Boolean);
}

/**
 * A whole `{{ … }}` with variables inside its raw string literals (`{{ regex_match('^v', '{{ request.object.metadata.labels.v || '' }}') }}`):
 * Kyverno prints the inner ones into the text first, then reads the text as JMESPath. The CEL
 * prints each into its literal; a printed value holding a quote or a backslash errs (Kyverno reads
 * the text otherwise: a difference unless every inner query is `quoteFree`).
 */
export function nestedVariablesCel(text: string, where: string, jp: JpCompiler, differences: string[]): Compiled {
  const outer = /^\{\{([\s\S]*)\}\}$/.exec(text);
  if (!outer || text.includes('\\{{') || text.includes('$('))
    throw new Unsupported(`${where}: ${JSON.stringify(text)} (a variable inside a text, a nested one or a reference)`);
  const inner = [...outer[1].matchAll(VARIABLE)];
  let body = '';
  let last = 0;
  const marks: number[] = [];
  const queries = inner.map((m, i) => {
    const start = m.index ?? 0;
    body += outer[1].slice(last, start);
    marks.push(body.length);
    body += `${PRINTED}${i}${PRINTED}`;
    last = start + m[0].length;
    const q = query(m[0], text, where, jp);
    if (!printable(q.node)) differences.push(PRINTS_JSON(where));
    if (!quoteFree(q.node))
      differences.push(`${where}: a variable printed into a quoted text may hold a quote or a backslash (Kyverno reads the text again; the CEL errs)`);
    return q.compiled;
  });
  body += outer[1].slice(last);
  if (!queries.length || body.includes('{{') || body.includes('}}') || !inRawLiterals(body, marks))
    throw new Unsupported(`${where}: ${JSON.stringify(text)} (a variable inside a text, a nested one or a reference)`);
  const printed: Record<string, string> = {};
  const bound = queries.map(() => jp.names.next('pr'));
  queries.forEach((_, i) => {
    printed[`${PRINTED}${i}${PRINTED}`] = bound[i];
  });
  let node: JpNode;
  try {
    node = parseJmesPath(body.trim());
  } catch (e) {
    if (e instanceof JmesPathError) throw new Unsupported(`${where}: ${JSON.stringify(text)} (${e.message})`);
    throw e;
  }
  const sub = new JpCompiler({ ...jp.roots, printed }, jp.names);
  let compiled: Compiled;
  try {
    compiled = sub.compile(node, body);
  } catch (e) {
    if (e instanceof Unsupported) throw new Unsupported(`${where}: ${JSON.stringify(text)}: ${e.message}`);
    throw e;
  } finally {
    jp.differences.push(...sub.differences);
  }
  // each inner query printed (no quote or backslash) and named, then the outer query
  const build = (i: number): string =>
    i === queries.length
      ? compiled.cel
      : onPrinted(
          jp,
          queries[i],
          (s) => `[${s}].map(${bound[i]}, ${bound[i]}.contains("'") || ${bound[i]}.contains('\\\\') ? [dyn(2), dyn(null)] : ${build(i + 1)})[0]`,
        );
  return { cel: build(0), depth: compiled.depth };
}
