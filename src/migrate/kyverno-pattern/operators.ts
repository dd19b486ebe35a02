/**
 * Kyverno's condition operators (pkg/engine/variables/operator, v1.19) as CEL over a key `k` and a
 * value `v` that are decoded JSON of any type (dyn), the handlers' type switches kept: Equals and
 * NotEquals (durations, then quantities, then wildcards for a string key; numbers across int,
 * float64 and numeric strings), AnyIn/AnyNotIn/AllIn/AllNotIn (fmt.Sprint of scalars, a list key as
 * a set, wildcards matched in both directions, a string value read as a range, a JSON list or a
 * word), and GreaterThan/GreaterThanOrEquals/LessThan/LessThanOrEquals (durations, quantities,
 * numbers). `kd`/`vd`: the nesting of a flattened list (jmespath-cel.ts).
 */
import { deep, deepSize, type Names } from './jmespath-cel';
import { Unsupported } from './pattern';
import { celString, scalarCel } from './scalar';

const t = (x: string, ...types: string[]) => `(${types.map((ty) => `type(${x}) == ${ty}`).join(' || ')})`;

// time.ParseDuration's syntax; Kyverno's parseDuration also refuses "0"
const GO_DURATION = '^[-+]?(0|(([0-9]+(\\\\.[0-9]*)?|\\\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$';
const isDur = (x: string) => `(type(${x}) == string && ${x} != '0' && ${x}.matches('${GO_DURATION}'))`;
/** time.Duration(n) * time.Second for an int or float64 n (the float truncated to an integer first). */
const secs = (x: string) => `duration((type(${x}) == double ? string(int(${x})) : string(${x})) + 's')`;
const durOf = (x: string) => `(type(${x}) == string ? duration(${x}) : ${secs(x)})`;
/** parseDuration(k, v) succeeds: one side a duration string, the other a duration string or a number. */
const durPair = (k: string, v: string) => `((${isDur(k)} && (${isDur(v)} || ${t(v, 'int', 'double')})) || (${isDur(v)} && ${t(k, 'int', 'double')}))`;

const isQty = (x: string) => `(type(${x}) == string && isQuantity(${x}))`;
// strconv.ParseFloat / ParseInt on a decimal text (hex floats and underscores are not read)
const FLOAT = '^[+-]?(([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?|(?i:inf|infinity|nan))$';
const INT = '^[+-]?[0-9]{1,18}$';
const isFloat = (x: string) => `(type(${x}) == string && ${x}.matches('${FLOAT}'))`;
const isInt = (x: string) => `(type(${x}) == string && ${x}.matches('${INT}'))`;

/** fmt.Sprint of a scalar (a map or list prints as Go's `map[…]`/`[…]`, which no word equals). */
export const sprint = (x: string) =>
  `(type(${x}) == string ? ${x} : ${t(x, 'int', 'bool', 'double')} ? string(${x}) : type(${x}) == null_type ? '<nil>' : '\\u0001')`;

/** wildcard.Match(pattern, name) on two CEL strings. */
export function match(pattern: string, name: string): string {
  const re = [...'\\.+^$()[]{}|'].reduce((acc, c) => `${acc}.replace(${celString(c)}, ${celString(`\\${c}`)})`, pattern);
  return `(${pattern}.contains('*') || ${pattern}.contains('?') ? ${name}.matches('(?s)^' + ${re}.replace('*', '.*').replace('?', '.') + '$') : ${name} == ${pattern})`;
}

/** EqualHandler.Evaluate. */
export function equalsCel(k: string, v: string): string {
  const num = (a: string, b: string) =>
    // an int key: an int, a float64 without fraction, or a base-10 integer text; a float64 key: any number or a float text
    `(type(${a}) == int ? (type(${b}) == int ? ${a} == ${b} : type(${b}) == double ? ${b} == double(${a}) : ${isInt(b)} ? int(${b}) == ${a} : false)` +
    ` : (${t(b, 'int', 'double')} ? double(${b}) == ${a} : ${isFloat(b)} ? double(${b}) == ${a} : false))`;
  const str =
    `(${durPair(k, v)} ? ${durOf(k)} == ${durOf(v)}` +
    ` : ${isQty(k)} && type(${v}) == string ? (isQuantity(${v}) && quantity(${k}).compareTo(quantity(${v})) == 0)` +
    ` : type(${v}) == string && ${match(v, k)})`;
  return `(type(${k}) == bool ? (type(${v}) == bool && ${k} == ${v}) : ${t(k, 'int', 'double')} ? ${num(k, v)} : type(${k}) == string ? ${str} : ${t(k, 'map', 'list')} ? (type(${k}) == type(${v}) && ${k} == ${v}) : false)`;
}

/** NotEqualHandler: the negation of Equals for every key type it handles (nil and others: false). */
export const notEqualsCel = (k: string, v: string) => `(${t(k, 'bool', 'int', 'double', 'string', 'map', 'list')} && !${equalsCel(k, v)})`;

/** How a constant string value of an In operator reads: a range, a JSON list of strings, or a word. */
function inValue(s: string): 'range' | 'list' | 'word' {
  if (
    s.length >= 2 &&
    !/^(>=|<=|>|<|!)/.test(s) &&
    !/^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)!-/.test(s) &&
    /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/.test(s)
  )
    return 'range';
  let j: unknown;
  try {
    j = JSON.parse(s);
  } catch {
    return 'word';
  }
  if (Array.isArray(j) && j.every((x) => typeof x === 'string')) return 'list';
  throw new Unsupported(`the value ${s} (JSON that is not a list of strings)`);
}

export type InOp = 'anyin' | 'anynotin' | 'allin' | 'allnotin';

/**
 * The four set operators over key `k` (depth kd) and value `v` (depth vd). `value`: the condition's
 * value when it is a constant (its string form decided here), else undefined and read at run time as
 * a list or a word (a string that is a range or a JSON list is the caller's to rule out).
 */
export function inCel(names: Names, op: InOp, k: string, kd: number, v: string, vd: number, value: unknown): string {
  const negate = op === 'anynotin' || op === 'allnotin';
  const both = (a: string, b: string) => `(${match(a, b)} || ${match(b, a)})`;
  const form = typeof value === 'string' ? inValue(value) : undefined;
  const text = typeof value === 'string' ? celString(value) : '';
  const keys = (macro: 'exists' | 'all', f: (e: string) => string) => deep(names, k, kd, macro, (e) => f(sprint(e)));
  // a list key of exactly one element equal to a string value decides before the range or JSON reading
  const single = () => `(${kd === 0 ? `size(${k}) == 1` : `${deepSizeOne(names, k, kd)}`} && ${keys('exists', (e) => `${e} == ${text}`)})`;
  const scalarKey = t(k, 'string', 'int', 'double', 'bool');
  if (form === 'range') {
    const inRange = (e: string) => scalarCel(e, value);
    const notInRange = (e: string) => scalarCel(e, (value as string).replace('-', '!-'));
    const scalar = `(${match(text, sprint(k))} || ${inRange(sprint(k))})`;
    const set =
      op === 'anyin'
        ? keys('exists', inRange)
        : op === 'anynotin'
          ? keys('exists', notInRange)
          : op === 'allin'
            ? keys('all', inRange)
            : `!${keys('exists', inRange)}`;
    return `(${scalarKey} ? ${negate ? '!' : ''}${scalar} : type(${k}) == list ? (${single()} ? ${!negate} : ${set}) : false)`;
  }
  // the value's members (printed), for membership tests
  const list = form === 'list' ? (JSON.parse(value as string) as string[]) : undefined;
  const has = (f: (m: string) => string): string =>
    list
      ? `(${list.map((m) => f(celString(m))).join(' || ') || 'false'})`
      : `(type(${v}) == list ? ${deep(names, v, vd, 'exists', (m) => f(sprint(m)))} : ${f(sprint(v))})`;
  // anyKeyExistsInArray: a list value matched both ways; a string value as a pattern, then (a JSON list) its members as words
  const scalarHit = (ks: string) =>
    list ? `(${match(text, ks)} || ${has((m) => `${ks} == ${m}`)})` : `(type(${v}) == list ? ${has((m) => both(m, ks))} : ${match(v, ks)})`;
  const scalarOk = form ? 'true' : t(v, 'list', 'string');
  const scalar = `(${scalarOk} && ${negate ? '!' : ''}${scalarHit(sprint(k))})`;
  // a list key: isAnyIn / isAnyNotIn / isAllIn / isAllNotIn; a number or bool value is one member for Any*, the wrong type for All*
  const hit = (e: string) => has((m) => both(e, m));
  const set =
    op === 'anyin'
      ? keys('exists', hit)
      : op === 'anynotin'
        ? keys('exists', (e) => `!${hit(e)}`)
        : op === 'allin'
          ? keys('all', hit)
          : keys('all', (e) => `!${hit(e)}`);
  const listOk = form ? 'true' : op.startsWith('any') ? t(v, 'list', 'string', 'int', 'double', 'bool') : t(v, 'list', 'string');
  const listKey = list ? `(${single()} ? ${!negate} : ${set})` : `(${listOk} && ${set})`;
  return `(${scalarKey} ? ${scalar} : type(${k}) == list ? ${listKey} : false)`;
}

/** A depth-d list with exactly one logical element. */
function deepSizeOne(names: Names, k: string, kd: number): string {
  return `${deepSize(names, k, kd)} == 1`;
}

const NUMERIC: Record<string, string> = { greaterthan: '>', greaterthanorequals: '>=', lessthan: '<', lessthanorequals: '<=' };
const GO_DURATION_JS = /^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$/;
const FLOAT_JS = /^[+-]?(([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?)$/;

/** NumericOperatorHandler (GreaterThan…) against a constant value (a number or a text, as Kyverno decodes the policy). */
export function numericCel(op: string, k: string, value: unknown): string {
  const cmp = NUMERIC[op];
  if (!cmp || (typeof value !== 'string' && typeof value !== 'number')) throw new Unsupported(`${op} with ${JSON.stringify(value)}`);
  const text = typeof value === 'string' ? value : '';
  if (/^[-+]?(inf|infinity|nan)$/i.test(text) || /^\d+\.\d+\.\d+/.test(text)) throw new Unsupported(`${op} with ${text} (a version or a special float)`);
  const vDur = typeof value === 'string' && value !== '0' && GO_DURATION_JS.test(value);
  const vNum = typeof value === 'number' ? `${value}` : FLOAT_JS.test(text) ? `${Number(text)}` : undefined;
  const dbl = (n: string) => (/[.eE]/.test(n) ? n : `${n}.0`);
  const v = typeof value === 'number' ? dbl(`${value}`) : celString(text);
  // validateValueWith{Int,Float}Pattern: a duration text compares the key in seconds, else the text as a float
  const byNumber = (key: string) => (vDur ? `${secs(key)} ${cmp} duration(${v})` : vNum !== undefined ? `double(${key}) ${cmp} ${dbl(vNum)}` : 'false');
  const numberKey = `(${t(k, 'int', 'double')} && ${byNumber(k)})`;
  // validateValueWithStringPattern: durations (a duration key against a duration or a number), then quantities, then the key as a float
  const durValue = typeof value === 'number' ? `duration('${Math.trunc(value)}s')` : `duration(${v})`;
  const keyDur = vDur || typeof value === 'number' ? `${isDur(k)} ? duration(${k}) ${cmp} ${durValue} : ` : '';
  const qty = typeof value === 'string' ? `${isQty(k)} && isQuantity(${v}) ? quantity(${k}).compareTo(quantity(${v})) ${cmp} 0 : ` : '';
  const stringKey = `(type(${k}) == string && (${keyDur}${qty}${isFloat(k)} ? ${byNumber(`double(${k})`)} : false))`;
  return `(${numberKey} || ${stringKey})`;
}
