/**
 * A Kyverno pattern's leaf (a string, number, boolean or null) as a CEL boolean over one value,
 * following kyverno v1.19 pkg/engine/pattern: `|` then `&` split, the operators `>`, `>=`, `<`,
 * `<=`, `!`, ranges `a-b` / `a!-b`, durations first, then quantities, then strings with the
 * wildcards `*` and `?` (only `=` and `!` apply to strings). The value is dynamic: Kyverno
 * converts it by its JSON type, so the CEL switches on `type(v)` the same way.
 */

/** A CEL string literal. */
export const celString = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;

// Go's time.ParseDuration syntax ("0", or signed number+unit groups).
const GO_DURATION = /^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$/;
const GO_DURATION_CEL = '^[-+]?(0|(([0-9]+(\\\\.[0-9]*)?|\\\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$';
const IN_RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;
const NOT_IN_RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)!-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;

type Op = '' | '>=' | '<=' | '>' | '<' | '!';

/** operator.GetOperatorFromStringPattern, without the ranges (handled by the caller). */
function operatorOf(pattern: string): Op {
  if (pattern.length < 2) return '';
  for (const op of ['>=', '<=', '>', '<', '!'] as const) if (pattern.startsWith(op)) return op;
  return '';
}

/** Go's wildcard.Match (IGLOU-EU/go-wildcard v1): `*` any runes, `?` exactly one. */
export function wildcardRegex(pattern: string): string {
  let re = '';
  for (const ch of pattern) re += ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^$()[\]{}|\\]/g, '\\$&');
  return `(?s)^${re}$`;
}

/** wildcard.Match with a constant pattern against `name`, a CEL string that is cheap to read twice. */
export const wildcardCel = (pattern: string, name: string): string =>
  pattern === '*' ? 'true' : /[*?]/.test(pattern) ? `${name}.matches(${celString(wildcardRegex(pattern))})` : `${name} == ${celString(pattern)}`;

// resource.ParseQuantity's syntax: a signed decimal and one suffix (binary, decimal SI or an exponent).
const QUANTITY = /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;

/** Whether `v`'s type is one of `types` (a list of types would not type-check: its elements differ). */
export const typeIn = (v: string, types: string[]): string => `(${types.map((t) => `type(${v}) == ${t}`).join(' || ')})`;

const isStr = (v: string) => `type(${v}) == string`;

/** convertNumberToString: what durations and quantities read (bool, lists, maps: not processed). */
const numOk = (v: string) => typeIn(v, ['string', 'int', 'double', 'null_type']);
const numStr = (v: string) => `(type(${v}) == string ? ${v} : type(${v}) == null_type ? '0' : string(${v}))`;

function compare(left: string, op: Op, right: string): string {
  return `${left} ${op === '' ? '==' : op === '!' ? '!=' : op} ${right}`;
}

/** validateString: a duration if both parse, else a quantity if both parse, else a string (= and ! only). */
function condition(v: string, op: Op, operand: string): string {
  const strCompare = (): string => {
    if (op !== '' && op !== '!') return 'false';
    // compareString: strings, ints and bools as text; null and doubles do not match (doubles print as 1E+00 in Go: left out).
    const text = `(type(${v}) == string ? ${v} : string(${v}))`;
    const okType = typeIn(v, ['string', 'int', 'bool']);
    const hit = operand === '*' ? 'true' : /[*?]/.test(operand) ? `${text}.matches(${celString(wildcardRegex(operand))})` : `${text} == ${celString(operand)}`;
    return `(${okType} && ${op === '!' ? `!(${hit})` : hit})`;
  };
  if (!QUANTITY.test(operand) && !GO_DURATION.test(operand)) return strCompare();
  const quantity = !QUANTITY.test(operand)
    ? strCompare()
    : `(${numOk(v)} && isQuantity(${numStr(v)}) ? ${compare(`quantity(${numStr(v)}).compareTo(quantity(${celString(operand)}))`, op, '0')} : ${strCompare()})`;
  if (!GO_DURATION.test(operand)) return quantity;
  const durOk = `(${numOk(v)} && ${numStr(v)}.matches('${GO_DURATION_CEL}'))`;
  return `(${durOk} ? ${compare(`duration(${numStr(v)})`, op, `duration(${celString(operand)})`)} : ${quantity})`;
}

/** validateStringPattern: one `&`-free, `|`-free condition. */
function stringCondition(v: string, pattern: string): string {
  const notIn = NOT_IN_RANGE.exec(pattern);
  const op = operatorOf(pattern);
  if (op === '' && notIn) return `(${stringCondition(v, `< ${notIn[1]}`)} || ${stringCondition(v, `> ${notIn[2]}`)})`;
  const inRange = IN_RANGE.exec(pattern);
  if (op === '' && !notIn && inRange) return `(${stringCondition(v, `>= ${inRange[1]}`)} && ${stringCondition(v, `<= ${inRange[2]}`)})`;
  return condition(v, op, pattern.slice(op.length).trim());
}

function stringPattern(v: string, pattern: string): string {
  const anyOf = pattern.split('|').map((alt) =>
    alt
      .trim()
      .split('&')
      .map((c) => stringCondition(v, c.trim()))
      .join(' && '),
  );
  return `((${isStr(v)} && ${v} == ${celString(pattern)}) || ${anyOf.map((a) => `(${a})`).join(' || ')})`;
}

/** Kyverno's pattern.Validate(value, pattern) for a leaf, as a CEL boolean over the dynamic value `v`. */
export function scalarCel(v: string, pattern: unknown): string {
  if (typeof pattern === 'string') return stringPattern(v, pattern);
  if (typeof pattern === 'boolean') return `(type(${v}) == bool && ${v} == ${pattern})`;
  if (pattern === null)
    return `(type(${v}) == null_type || (type(${v}) == int && ${v} == 0) || (type(${v}) == double && ${v} == 0.0) || (type(${v}) == string && ${v} == '') || (type(${v}) == bool && !${v}))`;
  if (typeof pattern === 'number') {
    if (Number.isInteger(pattern))
      return `((type(${v}) == int && ${v} == ${pattern}) || (type(${v}) == double && ${v} == ${pattern}.0) || (type(${v}) == string && ${v}.matches('^[+-]?[0-9]+$') && int(${v}) == ${pattern}))`;
    return `((type(${v}) == double && ${v} == ${pattern}) || (type(${v}) == string && ${v}.matches('^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$') && double(${v}) == ${pattern}))`;
  }
  throw new Error(`not a leaf pattern: ${JSON.stringify(pattern)}`);
}
