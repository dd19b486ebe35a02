/**
 * Kyverno conditions (`preconditions`, `validate.deny.conditions`) as a CEL boolean, for the subset
 * read exactly: a key `{{request.operation}}` against strings with Equals, NotEquals, AnyIn,
 * AnyNotIn, In, NotIn (pkg/engine/variables/operator: strings compare as wildcards, a list member
 * matches in either direction). Any other key, value or operator is named as not convertible.
 */
import { Unsupported } from './pattern';
import { celString } from './scalar';

type Rec = Record<string, unknown>;

const globRegex = (g: string) => `(?s)^${[...g].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^$()[\]{}|\\]/g, '\\$&'))).join('')}$`;

/** wildcard.Match(pattern, key) with a constant pattern. */
const wildcard = (pattern: string, key: string) =>
  pattern === '*' ? 'true' : /[*?]/.test(pattern) ? `${key}.matches(${celString(globRegex(pattern))})` : `${key} == ${celString(pattern)}`;

/** A key the subset reads, as CEL (always a string). */
function keyCel(key: unknown, where: string, operation: string): string {
  // In admission the operation is always set, so a default (`|| 'BACKGROUND'`) never applies.
  if (typeof key === 'string' && /^\{\{\s*request\.operation\s*(\|\|\s*'[A-Za-z]*'\s*)?\}\}$/.test(key)) return operation;
  throw new Unsupported(`${where}: the key ${JSON.stringify(key)} (JMESPath outside the subset read exactly)`);
}

/** Operations are plain words: only the durations/quantities branch of Equals could differ, and none parses. */
function condition(c: Rec, where: string, operation: string): string {
  const key = keyCel(c.key, where, operation);
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

/** A conditions block (a list: all; or `any`/`all`) as CEL; true when Kyverno's conditions hold. `operation`: the CEL of the operation Kyverno sees. */
export function conditionsCel(block: unknown, where: string, operation = 'request.operation'): string {
  if (Array.isArray(block)) return block.length ? block.map((c) => `(${condition(c as Rec, where, operation)})`).join(' && ') : 'true';
  if (!block || typeof block !== 'object') throw new Unsupported(`${where}: not a list or any/all`);
  const b = block as Rec;
  const parts: string[] = [];
  const any = (b.any as Rec[] | undefined) ?? [];
  const all = (b.all as Rec[] | undefined) ?? [];
  if (any.length) parts.push(`(${any.map((c) => `(${condition(c, `${where}.any`, operation)})`).join(' || ')})`);
  if (all.length) parts.push(`(${all.map((c) => `(${condition(c, `${where}.all`, operation)})`).join(' && ')})`);
  return parts.length ? parts.join(' && ') : 'true';
}
