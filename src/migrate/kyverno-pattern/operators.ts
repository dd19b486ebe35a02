/**
 * Kyverno's condition operators (pkg/engine/variables/operator, v1.19) as CEL over a key `k` and a
 * value `v` that are decoded JSON of any type (dyn), the handlers' type switches kept: Equals and
 * NotEquals (durations, then quantities, then wildcards for a string key; numbers across int,
 * float64 and numeric strings), AnyIn/AnyNotIn/AllIn/AllNotIn (fmt.Sprint of scalars, a list key as
 * a set, wildcards matched in both directions, a string value read as a range, a JSON list or a
 * word), and GreaterThan/GreaterThanOrEquals/LessThan/LessThanOrEquals (durations, quantities,
 * numbers). `kd`/`vd`: the nesting of a flattened list (jmespath-cel.ts).
 */
import { bind, deep, deepSize, type Names } from './jmespath-values';
import { Unsupported } from './pattern';
import { celString, scalarCel, wildcardCel, wildcardRegex } from './scalar';

const t = (x: string, ...types: string[]) => `(${types.map((ty) => `type(${x}) == ${ty}`).join(' || ')})`;

// time.ParseDuration's syntax; Kyverno's parseDuration also refuses "0"
const GO_DURATION = '^[-+]?(0|(([0-9]+(\\\\.[0-9]*)?|\\\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$';
const GO_DURATION_JS = /^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$/;
const isDur = (x: string) => `(type(${x}) == string && ${x} != '0' && ${x}.matches('${GO_DURATION}'))`;
/** time.Duration(n) * time.Second for an int or float64 n (the float truncated to an integer first). */
const secs = (x: string) => `duration((type(${x}) == double ? string(int(${x})) : string(${x})) + 's')`;
const durOf = (x: string) => `(type(${x}) == string ? duration(${x}) : ${secs(x)})`;
const isQty = (x: string) => `(type(${x}) == string && isQuantity(${x}))`;
// strconv.ParseFloat / ParseInt on a decimal text (hex floats and underscores are not read)
const FLOAT = '^[+-]?(([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?|(?i:inf|infinity|nan))$';
const INT = '^[+-]?[0-9]{1,18}$';
const isFloat = (x: string) => `(type(${x}) == string && ${x}.matches('${FLOAT}'))`;
const isInt = (x: string) => `(type(${x}) == string && ${x}.matches('${INT}'))`;

/** fmt.Sprint of a scalar (a map or list prints as Go's `map[…]`/`[…]`, which no word equals). */
export const sprint = (x: string) =>
  `(type(${x}) == string ? ${x} : ${t(x, 'int', 'bool', 'double')} ? string(${x}) : type(${x}) == null_type ? '<nil>' : '\\u0001')`;

/** Whether a CEL string holds a wildcard, and the regular expression wildcard.Match reads it as. */
const wild = (p: string) => `(${p}.contains('*') || ${p}.contains('?'))`;
const globOf = (p: string) =>
  `'(?s)^' + ${[...'\\.+^$()[]{}|'].reduce((acc, c) => `${acc}.replace(${celString(c)}, ${celString(`\\${c}`)})`, p)}.replace('*', '.*').replace('?', '.') + '$'`;

/** wildcard.Match(pattern, name) on two CEL strings (names: each is read several times). */
export const match = (pattern: string, name: string): string => `(${wild(pattern)} ? ${name}.matches(${globOf(pattern)}) : ${name} == ${pattern})`;

/** A printed value (fmt.Sprint) named once, with its wildcard pattern as a regular expression ('' without wildcards). */
interface Word {
  s: string;
  re: string;
}

/** A constant word as a Word (its regular expression read here). */
const constantWord = (w: string): Word => ({ s: celString(w), re: /[*?]/.test(w) ? celString(wildcardRegex(w)) : "''" });

/** wildcard.Match in either direction (match(a, b) || match(b, a)): equal, or one's pattern matching the other. */
const eitherWay = (a: Word, b: Word) =>
  `(${[`${a.s} == ${b.s}`, ...[[a, b] as const, [b, a] as const].filter(([p]) => p.re !== "''").map(([p, o]) => `(${p.re} != '' && ${o.s}.matches(${p.re}))`)].join(' || ')})`;

/** A constant key as Kyverno prints it: a string or bool one word, a list of them its members (else read at run time). */
function constantKey(key: unknown): { list: boolean; words: string[] } | undefined {
  const word = (x: unknown) => (typeof x === 'string' || typeof x === 'boolean' ? String(x) : undefined);
  if (Array.isArray(key)) {
    const words = key.map(word);
    return words.every((w) => w !== undefined) ? { list: true, words: words as string[] } : undefined;
  }
  const w = word(key);
  return w === undefined ? undefined : { list: false, words: [w] };
}

/** Whether `w` matches one of the constant words `members` in either direction (the members read as one CEL list). */
function matchesAny(names: Names, w: Word, members: string[]): string {
  if (members.length === 0) return 'false';
  const list = `[${members.map(celString).join(', ')}]`;
  const theirs = members.filter((m) => /[*?]/.test(m)).map((m) => wildcardCel(m, w.s));
  const m = names.next('m');
  return `(${[`${w.s} in ${list}`, ...theirs, ...(w.re === "''" ? [] : [`(${w.re} != '' && ${list}.exists(${m}, ${m}.matches(${w.re})))`])].join(' || ')})`;
}

// CEL built with the tests known here folded away (a constant value's type and text)
const ite = (c: string, a: string, b: string) => (c === 'true' ? a : c === 'false' ? b : `(${c} ? ${a} : ${b})`);
const and = (...xs: string[]) => {
  const rest = xs.filter((x) => x !== 'true');
  return xs.includes('false') ? 'false' : rest.length === 0 ? 'true' : rest.length === 1 ? rest[0] : `(${rest.join(' && ')})`;
};
const or = (...xs: string[]) => {
  const rest = xs.filter((x) => x !== 'false');
  return xs.includes('true') ? 'true' : rest.length === 0 ? 'false' : rest.length === 1 ? rest[0] : `(${rest.join(' || ')})`;
};

/** The CEL type of a constant as the policy decodes it (numbers are doubles: literalCel). */
const celTypeOf = (x: unknown): string =>
  x === null
    ? 'null_type'
    : Array.isArray(x)
      ? 'list'
      : typeof x === 'string'
        ? 'string'
        : typeof x === 'boolean'
          ? 'bool'
          : typeof x === 'number'
            ? 'double'
            : 'map';

const INT_JS = /^[+-]?[0-9]{1,18}$/;
const FLOAT_TEXT_JS = /^[+-]?(([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?|[iI][nN][fF]|[iI][nN][fF][iI][nN][iI][tT][yY]|[nN][aA][nN])$/;

/** EqualHandler.Evaluate; `value`: the condition's value when it is a constant (v names it), whose type tests are read here. */
export function equalsCel(k: string, v: string, value?: unknown): string {
  const vt = value === undefined ? undefined : celTypeOf(value);
  const tv = (...types: string[]) => (vt ? String(types.includes(vt)) : t(v, ...types));
  const text = (test: (x: string) => boolean, cel: string) => (vt ? String(typeof value === 'string' && test(value)) : cel);
  const isDurV = text((x) => x !== '0' && GO_DURATION_JS.test(x), isDur(v));
  // an int key: an int, a float64 without fraction, or a base-10 integer text; a float64 key: any number or a float text
  const num = ite(
    `type(${k}) == int`,
    ite(
      tv('int'),
      `${k} == ${v}`,
      ite(
        tv('double'),
        `${v} == double(${k})`,
        ite(
          text((x) => INT_JS.test(x), isInt(v)),
          `int(${v}) == ${k}`,
          'false',
        ),
      ),
    ),
    ite(
      tv('int', 'double'),
      `double(${v}) == ${k}`,
      ite(
        text((x) => FLOAT_TEXT_JS.test(x), isFloat(v)),
        `double(${v}) == ${k}`,
        'false',
      ),
    ),
  );
  const durPair = or(and(isDur(k), or(isDurV, tv('int', 'double'))), and(isDurV, t(k, 'int', 'double')));
  const str = ite(
    durPair,
    `${durOf(k)} == ${ite(tv('string'), `duration(${v})`, secs(v))}`,
    ite(
      and(isQty(k), tv('string')),
      `(isQuantity(${v}) && quantity(${k}).compareTo(quantity(${v})) == 0)`,
      and(tv('string'), typeof value === 'string' ? wildcardCel(value, k) : match(v, k)),
    ),
  );
  const sameType = vt ? (vt === 'map' || vt === 'list' ? `type(${k}) == ${vt}` : 'false') : `type(${k}) == type(${v})`;
  return ite(
    `type(${k}) == bool`,
    and(tv('bool'), `${k} == ${v}`),
    ite(t(k, 'int', 'double'), num, ite(`type(${k}) == string`, str, ite(t(k, 'map', 'list'), and(sameType, `${k} == ${v}`), 'false'))),
  );
}

/** NotEqualHandler: the negation of Equals for every key type it handles (nil and others: false). */
export const notEqualsCel = (k: string, v: string, value?: unknown) =>
  `(${t(k, 'bool', 'int', 'double', 'string', 'map', 'list')} && !${equalsCel(k, v, value)})`;

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
export function inCel(names: Names, op: InOp, k: string, kd: number, v: string, vd: number, value: unknown, key?: unknown): string {
  const negate = op === 'anynotin' || op === 'allnotin';
  const form = typeof value === 'string' ? inValue(value) : undefined;
  const text = typeof value === 'string' ? celString(value) : '';
  // a constant key (`key: livenessProbe`, `key: [true]`): its type and words are known here
  // (not for a range value: its comparisons would hold duration() and quantity() calls of a literal, which the apiserver checks when it compiles)
  const ck = kd === 0 && form !== 'range' ? constantKey(key) : undefined;
  // each printed key element (or member of a value read at run time) named once: the tests below read it many times
  // (its regular expression bound only where the test reads it)
  const printed = (x: string, f: (w: Word) => string) => {
    if (ck && x === k) return f(constantWord(ck.words[0]));
    return bind(
      names,
      sprint(x),
      (s) => {
        const re = names.next('r');
        const body = f({ s, re });
        return new RegExp(`\\b${re}\\b`).test(body) ? `[(${wild(s)} ? ${globOf(s)} : '')].map(${re}, ${body})[0]` : body;
      },
      's',
    );
  };
  const keys = (macro: 'exists' | 'all', f: (w: Word) => string) =>
    ck
      ? `(${ck.words.map((w) => f(constantWord(w))).join(macro === 'exists' ? ' || ' : ' && ') || (macro === 'exists' ? 'false' : 'true')})`
      : deep(names, k, kd, macro, (e) => printed(e, f));
  // a list key of exactly one element equal to a string value decides before the range or JSON reading
  const single = () =>
    ck
      ? String(ck.words.length === 1 && ck.words[0] === value)
      : `(${kd === 0 ? `size(${k}) == 1` : `${deepSizeOne(names, k, kd)}`} && ${deep(names, k, kd, 'exists', (e) => `${sprint(e)} == ${text}`)})`;
  const scalarKey = t(k, 'string', 'int', 'double', 'bool');
  if (form === 'range') {
    const inRange = (w: Word) => scalarCel(w.s, value);
    const notInRange = (w: Word) => scalarCel(w.s, (value as string).replace('-', '!-'));
    const scalar = printed(k, (w) => `(${wildcardCel(value as string, w.s)} || ${inRange(w)})`);
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
  // the value's members when they are constant words: a JSON list's, a list of strings, or the one word
  const list = form === 'list' ? (JSON.parse(value as string) as string[]) : undefined;
  const words = list ?? (Array.isArray(value) && value.every((x) => typeof x === 'string') ? value : form === 'word' ? [value as string] : undefined);
  // a member of the value (printed) matched both ways with the printed key element w
  const both = (w: Word) =>
    words
      ? matchesAny(names, w, words)
      : `(type(${v}) == list ? ${deep(names, v, vd, 'exists', (m) => printed(m, (x) => eitherWay(w, x)))} : ${printed(v, (x) => eitherWay(w, x))})`;
  // anyKeyExistsInArray on a scalar key: a list value matched both ways; a string value as a pattern, then (a JSON list) its members as words
  const scalarHit = (w: Word) =>
    list
      ? `(${wildcardCel(value as string, w.s)} || ${list.length ? `${w.s} in [${list.map(celString).join(', ')}]` : 'false'})`
      : form === 'word'
        ? wildcardCel(value as string, w.s)
        : words
          ? both(w)
          : `(type(${v}) == list ? ${both(w)} : ${match(v, w.s)})`;
  const scalarOk = form ? 'true' : t(v, 'list', 'string');
  const scalar = `(${scalarOk} && ${negate ? '!' : ''}${printed(k, scalarHit)})`;
  // a list key: isAnyIn / isAnyNotIn / isAllIn / isAllNotIn; a number or bool value is one member for Any*, the wrong type for All*
  const set =
    op === 'anyin'
      ? keys('exists', both)
      : op === 'anynotin'
        ? keys('exists', (w) => `!${both(w)}`)
        : op === 'allin'
          ? keys('all', both)
          : keys('all', (w) => `!${both(w)}`);
  const listOk = form ? 'true' : op.startsWith('any') ? t(v, 'list', 'string', 'int', 'double', 'bool') : t(v, 'list', 'string');
  const ofList = list ? `(${single()} ? ${!negate} : ${set})` : `(${listOk} && ${set})`;
  if (ck) return ck.list ? ofList : scalar;
  return `(${scalarKey} ? ${scalar} : type(${k}) == list ? ${ofList} : false)`;
}

/** A depth-d list with exactly one logical element. */
function deepSizeOne(names: Names, k: string, kd: number): string {
  return `${deepSize(names, k, kd)} == 1`;
}

const NUMERIC: Record<string, string> = { greaterthan: '>', greaterthanorequals: '>=', lessthan: '<', lessthanorequals: '<=' };
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
