/**
 * Kyverno conditions (`preconditions`, `validate.deny.conditions`) as a CEL boolean, for the subset
 * read exactly: a key `{{request.operation}}` against strings with Equals, NotEquals, AnyIn,
 * AnyNotIn, In, NotIn; a plain dotted `{{request.object.a.b}}` against words with Equals and AnyIn
 * (pkg/engine/variables/operator: strings compare as wildcards, a list member matches in either
 * direction, ints and bools as their Go text). Any other key, value or operator is named as not convertible.
 */
import { Unsupported } from './pattern';
import { celString } from './scalar';

type Rec = Record<string, unknown>;

const globRegex = (g: string) => `(?s)^${[...g].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^$()[\]{}|\\]/g, '\\$&'))).join('')}$`;

/** wildcard.Match(pattern, key) with a constant pattern. */
const wildcard = (pattern: string, key: string) =>
  pattern === '*' ? 'true' : /[*?]/.test(pattern) ? `${key}.matches(${celString(globRegex(pattern))})` : `${key} == ${celString(pattern)}`;

export const OBJECT_KEY = /^\{\{\s*request\.object((?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*(?:\|\|\s*'([A-Za-z0-9 _-]*)'\s*)?\}\}$/;

/** A key the subset reads: the operation (a string, as CEL) or a resource's field (`raw`: its value, as CEL). */
function keyCel(key: unknown, where: string, operation: string, root: string): { operation: string } | { raw: string } {
  // In admission the operation is always set, so a default (`|| 'BACKGROUND'`) never applies.
  if (typeof key === 'string' && /^\{\{\s*request\.operation\s*(\|\|\s*'[A-Za-z]*'\s*)?\}\}$/.test(key)) return { operation };
  const m = typeof key === 'string' ? OBJECT_KEY.exec(key) : null;
  if (!m) throw new Unsupported(`${where}: the key ${JSON.stringify(key)} (JMESPath outside the subset read exactly)`);
  if (m[2] !== undefined)
    throw new Unsupported(`${where}: the key ${JSON.stringify(key)} (a default on a resource's field is not held by the differential yet)`);
  // A missing key is Kyverno's NotFoundError (the rule errs): CEL's own "no such key" error on direct access.
  return {
    raw: m[1]
      .slice(1)
      .split('.')
      .reduce((acc, k) => `${acc}[${celString(k)}]`, root),
  };
}

/** wildcard.Match(key, constant): the resource's key read as a wildcard pattern. */
const keyAsPattern = (key: string, text: string) =>
  `(${key}.contains('*') || ${key}.contains('?') ? ${celString(text)}.matches('(?s)^' + ${[...'\\.+^$()[]{}|'].reduce(
    (acc, c) => `${acc}.replace(${celString(c)}, ${celString(`\\${c}`)})`,
    key,
  )}.replace('*', '.*').replace('?', '.') + '$') : ${key} == ${celString(text)})`;

/** fmt.Sprint of a scalar, as far as a word can equal it: a double (Go's %v) or anything else never does, so it reads ''. */
const sprint = (x: string) => `(type(${x}) == string ? ${x} : type(${x}) == int || type(${x}) == bool ? string(${x}) : '')`;

/**
 * A condition on a resource's field against plain words (no wildcard, number, quantity or duration
 * in them). EqualHandler switches on the key's type (only a string equals a word); AnyIn prints
 * scalars with fmt.Sprint, reads a list key as a set and matches list members in both directions.
 */
function objectCondition(raw: string, op: string, value: unknown, where: string): string {
  const words = (typeof value === 'string' ? [value] : Array.isArray(value) ? value : [null]).map((v) => {
    if (typeof v !== 'string' || !/^([A-Za-z][A-Za-z0-9./_-]*)?$/.test(v) || /^(inf|infinity|nan)$/i.test(v))
      throw new Unsupported(`${where}: the value ${JSON.stringify(value)} of ${op} on a resource's field (only plain words are read exactly)`);
    return v;
  });
  const eq = (x: string, both: boolean) =>
    `(${words.map((w) => (both ? `${x} == ${celString(w)} || ${keyAsPattern(x, w)}` : `${x} == ${celString(w)}`)).join(' || ')})`;
  const x = `[${raw}].map(x, `;
  switch (op.toLowerCase()) {
    case 'equals':
    case 'equal':
      if (typeof value !== 'string') break;
      return `${x}type(x) == string && x == ${celString(value)})[0]`;
    case 'anyin': {
      const scalar = `type(x) == string || type(x) == int || type(x) == bool || type(x) == double`;
      return `${x}${scalar} ? ${eq(sprint('x'), Array.isArray(value))} : type(x) == list ? x.exists(e, ${eq(sprint('e'), true)}) : false)[0]`;
    }
  }
  // NotEquals, AnyNotIn and the others on a resource's field: no library rule in the differential's fixtures holds them yet
  throw new Unsupported(`${where}: the operator ${op} with ${JSON.stringify(value)} on a resource's field`);
}

/** Operations are plain words: only the durations/quantities branch of Equals could differ, and none parses. */
function condition(c: Rec, where: string, operation: string, root: string): string {
  const k = keyCel(c.key, where, operation, root);
  if ('raw' in k) return objectCondition(k.raw, String(c.operator ?? ''), c.value, where);
  const key = k.operation;
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
    return `(${list.map((s) => wildcard(s, key)).join(' || ')})`;
  };
  switch (op.toLowerCase()) {
    case 'equals':
    case 'equal':
      if (typeof value !== 'string') throw new Unsupported(`${where}: Equals with ${JSON.stringify(value)}`);
      return wildcard(value, key);
    case 'notequals':
    case 'notequal':
      if (typeof value !== 'string') throw new Unsupported(`${where}: NotEquals with ${JSON.stringify(value)}`);
      return `!(${wildcard(value, key)})`;
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

/** A conditions block (a list: all; or `any`/`all`) as CEL; true when Kyverno's conditions hold. `operation`: the CEL of the operation Kyverno sees; `root`: its request.object. */
export function conditionsCel(block: unknown, where: string, operation = 'request.operation', root = 'object'): string {
  // Kyverno substitutes every variable of the block before it evaluates any condition, so one missing
  // key errs the whole block; CEL's || and && would absorb that error, a conditional does not.
  const b = (block ?? {}) as Rec;
  const list = (Array.isArray(block) ? block : [...((b.any as Rec[] | undefined) ?? []), ...((b.all as Rec[] | undefined) ?? [])]) as Rec[];
  const strict = list.flatMap((c) => {
    const k = c && typeof c === 'object' ? keyCel(c.key, where, operation, root) : undefined;
    return k && 'raw' in k ? [k.raw] : [];
  });
  const cel = blockCel(block, where, operation, root);
  return strict.length ? `(size([${strict.join(', ')}]) >= 0 ? (${cel}) : false)` : cel;
}

function blockCel(block: unknown, where: string, operation: string, root: string): string {
  if (Array.isArray(block)) return block.length ? block.map((c) => `(${condition(c as Rec, where, operation, root)})`).join(' && ') : 'true';
  if (!block || typeof block !== 'object') throw new Unsupported(`${where}: not a list or any/all`);
  const b = block as Rec;
  const parts: string[] = [];
  const any = (b.any as Rec[] | undefined) ?? [];
  const all = (b.all as Rec[] | undefined) ?? [];
  if (any.length) parts.push(`(${any.map((c) => `(${condition(c, `${where}.any`, operation, root)})`).join(' || ')})`);
  if (all.length) parts.push(`(${all.map((c) => `(${condition(c, `${where}.all`, operation, root)})`).join(' && ')})`);
  return parts.length ? parts.join(' && ') : 'true';
}

/** Each resource field the conditions read, as a pattern (`{a: {b: 'w1|w2'}}`) naming the words they compare it to: where mutants aim. */
export function conditionSites(block: unknown): unknown[] {
  const b = (block ?? {}) as Rec;
  const list = (Array.isArray(block) ? block : [...((b.any as Rec[] | undefined) ?? []), ...((b.all as Rec[] | undefined) ?? [])]) as Rec[];
  return list.flatMap((c) => {
    const m = typeof c?.key === 'string' ? OBJECT_KEY.exec(c.key) : null;
    if (!m) return [];
    const words = [c.value].flat().filter((w): w is string => typeof w === 'string');
    return [
      m[1]
        .slice(1)
        .split('.')
        .reduceRight<unknown>((acc, k) => ({ [k]: acc }), words.join('|') || 'x'),
    ];
  });
}
