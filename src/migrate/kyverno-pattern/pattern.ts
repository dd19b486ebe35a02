/**
 * A Kyverno `validate.pattern` as CEL, following kyverno v1.19 pkg/engine/validate and
 * pkg/engine/anchor step by step. Kyverno's walk has three outcomes (pass, skip, fail) and two
 * kinds of skip that its map walk tells apart, so every node compiles to a CEL int:
 *   0 pass · 1 skip raised by a conditional anchor itself · 2 skip passed up as a PatternError · 3 fail.
 * The order Kyverno walks a map in (anchors sorted first, then the other keys with nested anchors
 * first) decides which outcome wins, so the CEL keeps that order. `[[…]].map(L, …)[0]` names a list
 * once (CEL has no let in every release the Workbench targets).
 */
import { CEL_KEYWORDS, CEL_RESERVED } from '../../cel/reserved';
import { celString, scalarCel, typeIn } from './scalar';

export const PASS = 0;
export const FAIL = 3;

/** A construct this converter does not translate; the message says which and why. */
export class Unsupported extends Error {}

const ANCHOR = /^([+<=X^])?\((.+)\)$/;

interface Anchor {
  modifier: '' | '+' | '<' | '=' | 'X' | '^';
  key: string;
}

export function parseAnchor(key: string): Anchor | undefined {
  const m = ANCHOR.exec(key.trim());
  return m ? { modifier: (m[1] ?? '') as Anchor['modifier'], key: m[2] } : undefined;
}

const CEL_IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** CEL's keywords and reserved words cannot follow a `.`: such keys are indexed. */
const RESERVED = new Set<string>([...CEL_KEYWORDS, ...CEL_RESERVED]);

/** Whether key `k` is in the map `m`, and its value (Go's resourceMap[k]: nil when absent). */
function child(m: string, k: string): { has: string; value: string } {
  if (CEL_IDENT.test(k) && !RESERVED.has(k)) return { has: `has(${m}.${k})`, value: `(has(${m}.${k}) ? dyn(${m}.${k}) : dyn(null))` };
  const lit = celString(k);
  return { has: `(${lit} in ${m})`, value: `(${lit} in ${m} ? dyn(${m}[${lit}]) : dyn(null))` };
}

const isMap = (v: string) => `!${typeIn(v, ['string', 'int', 'uint', 'double', 'bool', 'null_type', 'list', 'bytes'])}`;
const isList = (v: string) => `type(${v}) == list`;

/** Names for comprehension variables, unique per depth. */
class Names {
  private n = 0;
  /** What the CEL decides differently from Kyverno (the rule is then `different`). */
  readonly differences = new Set<string>();
  next(prefix: string): string {
    return `${prefix}${this.n++}`;
  }
}

function hasNestedAnchors(p: unknown): boolean {
  if (Array.isArray(p)) return p.some(hasNestedAnchors);
  if (p && typeof p === 'object') {
    return Object.entries(p).some(([k, v]) => {
      const a = parseAnchor(k);
      return (a && a.modifier !== '+') || hasNestedAnchors(v);
    });
  }
  return false;
}

/** Go's sort.Strings (byte order). */
const byteSort = (keys: string[]) => keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The first non-pass of `results` in order, else pass. */
function firstNonPass(results: string[], names: Names): string {
  if (results.length === 0) return `${PASS}`;
  if (results.length === 1) return results[0];
  const l = names.next('r');
  return `[[${results.join(', ')}]].map(${l}, ${l}.exists(x, x != 0) ? ${l}.filter(x, x != 0)[0] : 0)[0]`;
}

const SIMPLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Names `v` once (a comprehension variable) when it is an expression, so children do not repeat it. */
function bound(v: string, names: Names, body: (name: string) => string, asBool = false): string {
  if (SIMPLE.test(v)) return body(v);
  const n = names.next('v');
  return asBool ? `[${v}].all(${n}, ${body(n)})` : `[${v}].map(${n}, ${body(n)})[0]`;
}

function mapNode(pattern: Record<string, unknown>, value: string, names: Names, level: Level = 'any'): string {
  return bound(value, names, (v) => mapBody(pattern, v, names, level));
}

/** Where a map sits: Kyverno expands wildcard keys only in metadata.labels and metadata.annotations. */
type Level = 'any' | 'metadata' | 'tag';

const WILDCARD = /[*?]/;
const keyRegex = (k: string) => `(?s)^${[...k].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^$()[\]{}|\\]/g, '\\$&'))).join('')}$`;

interface ChildRef {
  has: string;
  value: string;
}

/**
 * The result of one key of map `v`, computed by `result` on the child. In metadata.labels and
 * annotations a key with wildcards stands for the resource's key it matches (ExpandInMetadata);
 * Kyverno takes one matching key (its map order), the CEL takes every one.
 */
function keyed(v: string, key: string, level: Level, names: Names, result: (c: ChildRef) => string): string {
  if (!WILDCARD.test(key) || level !== 'tag') return result(child(v, key));
  names.differences.add(`the wildcard key ${key}: when several keys match, Kyverno checks one of them (in Go's random map order), the CEL checks all`);
  const k = names.next('k');
  const ks = names.next('ks');
  const l = names.next('l');
  const re = celString(keyRegex(key));
  const each = `[${ks}.map(${k}, ${result({ has: 'true', value: `dyn(${v}[${k}])` })})].map(${l}, ${l}.exists(x, x != 0) ? ${l}.filter(x, x != 0)[0] : 0)[0]`;
  return `[${v}.filter(${k}, ${k}.matches(${re}))].map(${ks}, ${ks}.size() == 0 ? ${result({ has: 'false', value: 'dyn(null)' })} : ${each})[0]`;
}

function mapBody(pattern: Record<string, unknown>, v: string, names: Names, level: Level): string {
  const keys = Object.keys(pattern);
  for (const k of keys) {
    const a = parseAnchor(k);
    if (a?.modifier === '<') throw new Unsupported(`global anchor <(${a.key}) (its skip is not modelled)`);
    if (a?.modifier === '+') throw new Unsupported(`add anchor +(${a.key}) in a validate pattern`);
    if (WILDCARD.test(a?.key ?? k) && level !== 'tag') throw new Unsupported(`the wildcard key ${k} outside metadata.labels/annotations`);
    if (level === 'tag' && typeof pattern[k] !== 'string' && keys.some((x) => WILDCARD.test(x)))
      throw new Unsupported(`a ${typeof pattern[k]} value beside wildcard keys in ${k}`);
  }
  const childLevel = (k: string): Level => {
    const key = parseAnchor(k)?.key ?? k;
    if (level === 'any' && key === 'metadata') return 'metadata';
    if (level === 'metadata' && (key === 'labels' || key === 'annotations')) return 'tag';
    return 'any';
  };
  const sub = (p: unknown, value: string, k: string) =>
    p && typeof p === 'object' && !Array.isArray(p) ? mapNode(p as Record<string, unknown>, value, names, childLevel(k)) : node(p, value, names);
  const anchorKeys = byteSort(keys.filter((k) => ['', '^', '=', 'X'].includes(parseAnchor(k)?.modifier ?? '-')));
  const anchors = anchorKeys.map((k) => {
    const a = parseAnchor(k) as Anchor;
    return keyed(v, a.key, level, names, (c) => anchorNode(a, pattern[k], c, names, (p, value) => sub(p, value, k)));
  });
  // getSortedNestedAnchorResource: keys with nested anchors pushed to the front (so in reverse order), the rest after.
  const front: string[] = [];
  const back: string[] = [];
  for (const k of byteSort(keys.filter((k) => !anchorKeys.includes(k)))) hasNestedAnchors(pattern[k]) ? front.unshift(k) : back.push(k);
  const resources = [...front, ...back].map((k) =>
    keyed(v, k, level, names, (c) => (pattern[k] === '*' ? `((${c.has} && type(${c.value}) != null_type) ? 0 : 3)` : sub(pattern[k], c.value, k))),
  );
  const rest = firstNonPass(resources, names);
  let body = rest;
  if (anchors.length > 0) {
    const l = names.next('a');
    // A fail stops the anchors unless a conditional anchor skipped before it; skips end the map as a PatternError skip.
    const fails = anchors.map((_, i) => [`${l}[${i}] == 3`, ...anchors.slice(0, i).map((_, j) => `${l}[${j}] != 1`)].join(' && '));
    const skip = `${l}.exists(x, x == 1 || x == 2) && (!${l}.exists(x, x == 0) || ${l}.exists(x, x == 1))`;
    body = `[[${anchors.join(', ')}]].map(${l}, (${fails.map((f) => `(${f})`).join(' || ')}) ? 3 : (${skip}) ? 2 : ${rest})[0]`;
  }
  return `(${isMap(v)} ? ${body} : 3)`;
}

function anchorNode(a: Anchor, pattern: unknown, c: ChildRef, names: Names, sub: (p: unknown, value: string) => string): string {
  switch (a.modifier) {
    case '': // conditional: any error of the subtree (or a missing key) skips
      return `(${c.has} ? (${sub(pattern, c.value)} == 0 ? 0 : 1) : 1)`;
    case '=': // equality: checked only when present
      return `(${c.has} ? ${sub(pattern, c.value)} : 0)`;
    case 'X': // negation: present fails
      return `(${c.has} ? 3 : 0)`;
    case '^': {
      // existence: every pattern map matches (passes on) some element of the list
      if (!Array.isArray(pattern) || pattern.some((p) => !p || typeof p !== 'object' || Array.isArray(p))) return `(${c.has} ? 3 : 0)`;
      const e = names.next('e');
      const each = pattern.map((p) => `${c.value}.exists(${e}, ${node(p, e, names)} == 0)`).join(' && ');
      return `(${c.has} ? (${isList(c.value)} && ${each || 'true'} ? 0 : 3) : 0)`;
    }
    default:
      throw new Unsupported(`anchor ${a.modifier}(${a.key})`);
  }
}

function arrayNode(pattern: unknown[], value: string, names: Names): string {
  return bound(value, names, (v) => arrayBody(pattern, v, names));
}

function arrayBody(pattern: unknown[], v: string, names: Names): string {
  if (pattern.length === 0) return '3';
  const first = pattern[0];
  if (first && typeof first === 'object' && !Array.isArray(first)) {
    // validateArrayOfMaps: the first pattern map against every element; a fail fails, all skipped skips.
    const e = names.next('e');
    const l = names.next('l');
    const each = `${v}.map(${e}, ${node(first, e, names)})`;
    return `(${isList(v)} ? [${each}].map(${l}, ${l}.exists(x, x == 3) ? 3 : (${l}.size() > 0 && ${l}.all(x, x == 1 || x == 2)) ? 2 : 0)[0] : 3)`;
  }
  if (first === null || ['string', 'number', 'boolean'].includes(typeof first)) {
    const e = names.next('e');
    return `(${isList(v)} ? (${v}.all(${e}, ${scalarCel(e, first)}) ? 0 : 3) : 3)`;
  }
  throw new Unsupported('a list of lists in a pattern');
}

function node(pattern: unknown, v: string, names: Names): string {
  if (Array.isArray(pattern)) return arrayNode(pattern, v, names);
  if (pattern && typeof pattern === 'object') return mapNode(pattern as Record<string, unknown>, v, names);
  if (typeof pattern === 'string' && pattern.includes('{{')) throw new Unsupported(`a variable in the pattern: ${pattern}`);
  // A leaf against a list checks every element (an empty list passes).
  return bound(v, names, (w) => {
    const e = names.next('e');
    return `((${isList(w)} ? ${w}.all(${e}, ${scalarCel(e, pattern)}) : ${scalarCel(w, pattern)}) ? 0 : 3)`;
  });
}

/** The CEL int (0 pass, 1/2 skip, 3 fail) of matching `object` against a Kyverno pattern, and what it decides differently. */
export function patternCel(pattern: unknown, root = 'object'): { cel: string; differences: string[] } {
  const names = new Names();
  const cel = node(pattern, root, names);
  return { cel, differences: [...names.differences] };
}
