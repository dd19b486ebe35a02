/**
 * Kyverno's variables in a mutate patch (pkg/engine/variables substituteVariablesIfAny) as CEL: a
 * text that is one whole `{{ … }}` becomes the expression's value (any type); a variable inside a
 * text is printed into it (a string as it is, other values as Go's json.Marshal writes them). A
 * lookup that fails errs the rule. `Dyn` marks a patch value computed at run time.
 */
import { JmesPathError, type JpNode, parseJmesPath } from './jmespath';
import type { JpCompiler } from './jmespath-cel';
import { Unsupported } from './pattern';
import { celString } from './scalar';

/** A patch value computed at run time: its CEL. */
export class Dyn {
  constructor(readonly cel: string) {}
}

export const hasVar = (v: unknown): boolean =>
  typeof v === 'string'
    ? v.includes('{{')
    : Array.isArray(v)
      ? v.some(hasVar)
      : !!v && typeof v === 'object' && !(v instanceof Dyn) && Object.entries(v).some(([k, x]) => k.includes('{{') || hasVar(x));

/** A CEL error at run time (built from a run-time value, so it is not folded when the program is built). */
export const fail = (on: string, what: string) => `dyn(int(string(size([${on}])) + ${celString(`: ${what}`)}))`;

/**
 * The variables of a text, as pkg/engine/variables finds them (regex.RegexVariables: `{{ … }}` holding
 * at most one level of single braces, a multi-select hash); escaped, nested and shallow (`{{-`) ones
 * are not converted.
 */
function variablesOf(text: string, where: string): { start: number; end: number; expr: string }[] {
  const out: { start: number; end: number; expr: string }[] = [];
  const re = /\{\{(?:\{[^{}]*\}|[^{}])*\}\}/g;
  for (const m of text.matchAll(re)) {
    const expr = m[0].slice(2, -2).trim();
    if (expr.startsWith('-') || (m.index > 0 && text[m.index - 1] === '\\'))
      throw new Unsupported(`${where}: the variable ${m[0]} (escaped, nested or shallow)`);
    out.push({ start: m.index, end: m.index + m[0].length, expr });
  }
  const rest = text.replace(re, '');
  if (rest.includes('{{') || rest.includes('}}')) throw new Unsupported(`${where}: a variable nested in another or unclosed in ${JSON.stringify(text)}`);
  return out;
}

/** A text with variables as a CEL value: a whole variable its value (any type), else a string with each value printed as Go's json.Marshal does. */
export function textCel(text: string, jp: JpCompiler, where: string): string {
  const vars = variablesOf(text, where);
  if (vars.length === 0) return celString(text);
  const value = (expr: string) => {
    let node: JpNode;
    try {
      node = parseJmesPath(expr);
    } catch (e) {
      if (e instanceof JmesPathError) throw new Unsupported(`${where}: {{${expr}}} (${e.message})`);
      throw e;
    }
    const c = jp.compile(node);
    if (c.depth) throw new Unsupported(`${where}: {{${expr}}} is a flattened list`);
    const p = jp.names.next('v');
    return (body: (v: string) => string) => `[${c.cel}].map(${p}, ${p}[0] != 0 ? ${fail(`${p}[0]`, 'a variable did not resolve')} : ${body(`${p}[1]`)})[0]`;
  };
  const only = vars[0]!;
  if (vars.length === 1 && only.start === 0 && only.end === text.length) return value(only.expr)((v) => v);
  // json.Marshal of a string is the string itself; of a bool, nil or a whole float64, its text (JMESPath numbers are float64)
  const printed = (v: string) =>
    `(type(${v}) == string ? ${v} : type(${v}) == bool ? string(${v}) : ${v} == null ? 'null' : type(${v}) == int || type(${v}) == uint ? string(${v}) : type(${v}) == double && ${v} >= -1e15 && ${v} <= 1e15 && ${v} == double(int(${v})) ? string(int(${v})) : string(${fail(v, 'a value printed into a text that is not a string, a bool or a whole number')}))`;
  const parts: string[] = [];
  let at = 0;
  for (const v of vars) {
    if (v.start > at) parts.push(celString(text.slice(at, v.start)));
    parts.push(value(v.expr)(printed));
    at = v.end;
  }
  if (at < text.length) parts.push(celString(text.slice(at)));
  return `(${parts.join(' + ')})`;
}
