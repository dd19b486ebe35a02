/**
 * A Kyverno `mutate.patchStrategicMerge` as the CEL of a MutatingAdmissionPolicy JSONPatch,
 * following kyverno v1.19 pkg/engine/mutate/patch: the anchors are resolved against the resource
 * first (strategicPreprocessing.go), then the patch is merged the way kustomize's strategic merge
 * does (lists with a merge key by that key, other lists replaced). JSONPatch, not an
 * ApplyConfiguration: server-side apply merges lists by the schema's list types, which differ from
 * strategic merge's keys, and anchors need conditions an ApplyConfiguration cannot state.
 *
 * The CEL yields the list of operations; every path it writes is computed from the object before
 * the patch (appends go to the end, so the indices it reads stay valid).
 */
import { escapeToken } from '../../base/jsonpatch';
import { parseAnchor, patternCel, Unsupported } from './pattern';
import { celString, typeIn } from './scalar';
import { CEL_KEYWORDS, CEL_RESERVED } from '../../cel/reserved';
import type { Scope } from './conditions';
import { JpCompiler } from './jmespath-cel';
import { Dyn, textCel } from './mutate-vars';

type Rec = Record<string, unknown>;

/**
 * The merge keys of the lists strategic merge merges by key (kustomize's schema of the built-in
 * kinds, `x-kubernetes-patch-merge-key`); any other list in a patch replaces the resource's.
 */
export const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  env: 'name',
  imagePullSecrets: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
};

export const isMap = (v: string) => `!${typeIn(v, ['string', 'int', 'uint', 'double', 'bool', 'null_type', 'list', 'bytes'])}`;
const isList = (v: string) => `type(${v}) == list`;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Words CEL does not take as a field name after a dot (its keywords and reserved words). */
const RESERVED = new Set<string>([...CEL_KEYWORDS, ...CEL_RESERVED]);

/** Presence and value of key `k` of the CEL map `m`. */
export function field(m: string, k: string): { has: string; value: string } {
  if (IDENT.test(k) && !RESERVED.has(k)) return { has: `has(${m}.${k})`, value: `${m}.${k}` };
  return { has: `(${celString(k)} in ${m})`, value: `${m}[${celString(k)}]` };
}

/** A JSON value as a CEL literal (values dyn, so maps and lists may mix types). */
export function celLiteral(v: unknown): string {
  if (v === null) return 'null';
  if (v instanceof Dyn) return v.cel;
  if (typeof v === 'string') return celString(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number')
    return Number.isInteger(v) ? String(v) : Number.isFinite(v) ? (String(v).includes('.') || String(v).includes('e') ? String(v) : `${v}.0`) : 'null';
  if (Array.isArray(v)) return `[${v.map((x) => `dyn(${celLiteral(x)})`).join(', ')}]`;
  return `{${Object.entries(v as Rec)
    .map(([k, x]) => `${celString(k)}: dyn(${celLiteral(x)})`)
    .join(', ')}}`;
}

/** A JSONPatch operation adding `value` (a JSON value) at `path` (a CEL string). */
const add = (path: string, value: unknown) => `JSONPatch{op: 'add', path: ${path}, value: ${celLiteral(value)}}`;

/** `ptr` (a CEL string) joined with a static token. */
const join = (ptr: string, token: string) =>
  ptr.endsWith("'")
    ? `${ptr.slice(0, -1)}/${escapeToken(token).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
    : `${ptr} + ${celString(`/${escapeToken(token)}`)}`;

/** Names for comprehension variables. */
export class Names {
  private n = 0;
  next(prefix: string): string {
    return `${prefix}${this.n++}`;
  }
}

export function anchorsIn(p: unknown, modifiers: readonly string[]): boolean {
  if (Array.isArray(p)) return p.some((e) => anchorsIn(e, modifiers));
  if (p && typeof p === 'object')
    return Object.entries(p as Rec).some(([k, v]) => {
      const a = parseAnchor(k);
      return (a !== undefined && modifiers.includes(a.modifier)) || anchorsIn(v, modifiers);
    });
  return false;
}

function checkPlain(p: unknown): void {
  if (p instanceof Dyn) return;
  if (p === null) throw new Unsupported('a null in patchStrategicMerge (deletes a field)');
  if (typeof p === 'string' && p.includes('{{')) throw new Unsupported('variables in patchStrategicMerge');
  if (Array.isArray(p)) p.forEach(checkPlain);
  else if (p && typeof p === 'object')
    for (const [k, v] of Object.entries(p as Rec)) {
      if (k.startsWith('$')) throw new Unsupported(`the strategic merge directive ${k}`);
      if (k.includes('{{')) throw new Unsupported('variables in patchStrategicMerge');
      const a = parseAnchor(k);
      if (a && !['', '+', '<'].includes(a.modifier)) throw new Unsupported(`the anchor ${k} in patchStrategicMerge`);
      checkPlain(v);
    }
}

/**
 * The value a patch subtree adds where the resource has nothing: add-if-not-present anchors become
 * keys, anchored list elements are dropped (their conditions fail on nothing; a condition in a map
 * there skips the rule, which the guards hold).
 */
function added(p: unknown): unknown {
  if (p instanceof Dyn) return p;
  if (Array.isArray(p)) return p.filter((e) => !anchorsIn(e, ['', '<'])).map(added);
  if (p && typeof p === 'object')
    return Object.fromEntries(
      Object.entries(p as Rec)
        .filter(([k]) => !['', '<'].includes(parseAnchor(k)?.modifier ?? '+'))
        .map(([k, v]) => [parseAnchor(k)?.key ?? k, added(v)]),
    );
  return p;
}

/** Kyverno's checkCondition: both sides' scalars compared as the YAML node's text. */
function conditionCel(pattern: unknown, value: string): string {
  if (pattern !== null && typeof pattern === 'object') {
    if (anchorsIn(pattern, ['+', '<'])) throw new Unsupported('anchors inside a condition of patchStrategicMerge');
    return `(${patternCel(pattern, value).cel}) == 0`;
  }
  const text = `(type(${value}) == null_type ? dyn('null') : ${typeIn(value, ['bool', 'int', 'uint'])} ? dyn(string(${value})) : dyn(${value}))`;
  return `(${patternCel(String(pattern), text).cel}) == 0`;
}

interface Walk {
  names: Names;
}

/** The conditions of one map's anchors (`(k)` or `<(k)`) on the resource map `o`: the key present, its value matching. */
function mapConditions(p: Rec, o: string, modifiers: readonly string[]): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(p)) {
    const a = parseAnchor(k);
    if (!a || !modifiers.includes(a.modifier)) continue;
    const f = field(o, a.key);
    out.push(`(${f.has} && ${conditionCel(v, f.value)})`);
  }
  return out;
}

/**
 * The element predicate of a list element with anchors: every condition of the element and of the
 * maps nested in it (not in its lists) holds on the resource's element `x`.
 */
export function elementCondition(p: Rec, x: string, modifiers: readonly string[]): string {
  const parts = mapConditions(p, x, modifiers);
  for (const [k, v] of Object.entries(p)) {
    if (parseAnchor(k) || !v || typeof v !== 'object' || Array.isArray(v) || !anchorsIn(v, modifiers)) continue;
    const f = field(x, k);
    parts.push(`(${f.has} && ${isMap(f.value)} && ${elementCondition(v as Rec, f.value, modifiers)})`);
  }
  return parts.length ? parts.join(' && ') : 'true';
}

/** The element without its conditions (Kyverno's deleteAnchors). */
export function withoutConditions(p: unknown): unknown {
  if (Array.isArray(p)) return p.map(withoutConditions);
  if (!p || typeof p !== 'object' || p instanceof Dyn) return p;
  const out: Rec = {};
  for (const [k, v] of Object.entries(p as Rec)) {
    const a = parseAnchor(k);
    if (a && (a.modifier === '' || a.modifier === '<')) continue;
    const w = withoutConditions(v);
    if (w && typeof w === 'object' && !Array.isArray(w) && Object.keys(w).length === 0 && v && typeof v === 'object' && Object.keys(v).length) continue;
    out[k] = w;
  }
  return out;
}

/**
 * The conditions on which the rule applies at all: Kyverno skips the whole rule when a condition
 * of a map (outside lists) fails or its map is missing, and when a list's elements with global
 * anchors all fail (or the list is missing; an empty list passes). `present`: the map `o` exists.
 */
function guardsOf(p: Rec, o: string, present: string, names: Names, out: string[]): string[] {
  const here = (c: string) => (present === 'true' ? c : `(${present} && ${c})`);
  for (const c of [...mapConditions(p, o, ['<']), ...mapConditions(p, o, [''])]) out.push(here(c));
  for (const [k, v] of Object.entries(p)) {
    const a = parseAnchor(k);
    if (a && a.modifier !== '+') continue;
    if (a && anchorsIn(v, ['', '<'])) throw new Unsupported('a condition under an add-if-not-present anchor');
    const f = field(o, a?.key ?? k);
    if (Array.isArray(v)) {
      for (const e of v.filter((e) => anchorsIn(e, ['<']))) {
        if (!e || typeof e !== 'object' || Array.isArray(e)) throw new Unsupported('anchors in a list element that is not a map');
        if (anchorsIn(e, ['+']) || anchorsIn(e, ['']) || Object.keys(withoutConditions(e) as Rec).length)
          throw new Unsupported('a global anchor beside other fields of a list element');
        const x = names.next('x');
        out.push(
          here(
            // a null list passes like an empty one (Kyverno's yaml node of null has no elements to fail)
            `(${f.has} && (type(${f.value}) == null_type || (${isList(f.value)} && (size(${f.value}) == 0 || ${f.value}.exists(${x}, ${isMap(x)} && ${elementCondition(e as Rec, x, ['<'])})))))`,
          ),
        );
      }
    } else if (v && typeof v === 'object' && !a && !(v instanceof Dyn)) guardsOf(v as Rec, f.value, `${here(f.has)} && ${isMap(f.value)}`, names, out);
  }
  return out;
}

/** The operations merging the list `patch` into the resource's list at `o`/`ptr` (present). */
function listOps(key: string, patch: unknown[], o: string, ptr: string, w: Walk): string {
  const parts: string[] = [];
  const mergeKey = MERGE_KEYS[key];
  const plain = patch.filter((e) => !anchorsIn(e, ['', '+', '<']));
  const anchored = patch.filter((e) => anchorsIn(e, ['', '+', '<']));
  for (const e of anchored) {
    if (!e || typeof e !== 'object' || Array.isArray(e)) throw new Unsupported('anchors in a list element that is not a map');
    if (anchorsIn(e, ['+'])) throw new Unsupported('an add-if-not-present anchor in a list element');
    if (anchorsIn(e, ['<'])) continue; // a global anchor: a guard of the rule (guardsOf)
    if (mergeKey !== 'name') throw new Unsupported(`conditions on elements of ${key} (Kyverno matches the patched element by name)`);
    const rest = withoutConditions(e) as Rec;
    if (Object.keys(rest).length === 0) continue;
    const i = w.names.next('i');
    const y = w.names.next('y');
    const at = `${o}[${i}]`;
    // every element meeting the conditions, with a name, is patched (handlePatternName); a name the
    // resource's list repeats is not: kyaml merges the patch into the first element of that name and
    // then keeps the last one's content (mutate-dedupe.ts), so Kyverno's result has none of the patch
    const inner = mapOps(rest, at, `${ptr} + '/' + string(${i})`, w);
    const named = (v: string) => `${isMap(v)} && has(${v}.name) && ${v}.name != ''`;
    parts.push(
      `lists.range(size(${o})).filter(${i}, ${named(at)} && size(${o}.filter(${y}, ${named(y)} && ${y}.name == ${at}.name)) == 1 && (${elementCondition(e as Rec, at, [''])})).map(${i}, ${inner}).flatten()`,
    );
  }
  if (plain.length === 0) return parts.length ? parts.join(' + ') : '[]';
  if (!mergeKey || !plain.every((e) => e && typeof e === 'object' && !Array.isArray(e) && typeof (e as Rec)[mergeKey] === 'string')) {
    if (anchored.length) throw new Unsupported(`a list ${key} mixing anchored and replaced elements`);
    return `[${add(ptr, added(patch))}]`;
  }
  for (const e of plain as Rec[]) {
    const kv = celString(String(e[mergeKey]));
    const i = w.names.next('i');
    const at = `${o}[${i}]`;
    const match = `${isMap(at)} && has(${at}.${mergeKey}) && ${at}.${mergeKey} == ${kv}`;
    parts.push(
      // merged into every element of that key (kyaml keeps one of them, with the last one's content)
      `(lists.range(size(${o})).exists(${i}, ${match}) ? lists.range(size(${o})).filter(${i}, ${match}).map(${i}, ${mapOps(e, at, `${ptr} + '/' + string(${i})`, w)}).flatten() : [${add(`${ptr} + '/-'`, added(e))}])`,
    );
  }
  return parts.join(' + ');
}

/** Fields whose type is a map of strings in every kind (ObjectMeta's). */
const STRING_MAPS = new Set(['labels', 'annotations']);

/**
 * A variable's value merged at a map of strings (`labels: "{{ nsLabels }}"`): a map is merged key by
 * key, a null value removing its key (kyaml's merge; a map added where there is none leaves its
 * nulls out), a null removes the whole field, anything else replaces it (the object then does not
 * decode, on either side).
 */
function stringMapOps(v: Dyn, f: { has: string; value: string }, ptr: string, w: Walk): string {
  const x = w.names.next('m');
  const k = w.names.next('k');
  const keyPtr = `${ptr} + '/' + ${k}.replace('~', '~0').replace('/', '~1')`;
  const each = `${x}.filter(${k}, ${x}[${k}] != null || (${f.has} && ${isMap(f.value)} && ${k} in ${f.value})).map(${k}, ${x}[${k}] == null ? JSONPatch{op: 'remove', path: ${keyPtr}} : JSONPatch{op: 'add', path: ${keyPtr}, value: ${x}[${k}]})`;
  const merged = `(${f.has} && ${isMap(f.value)} ? ${each} : [JSONPatch{op: 'add', path: ${ptr}, value: {}}] + ${each})`;
  return `[${v.cel}].map(${x}, type(${x}) == map ? ${merged} : ${x} == null ? (${f.has} ? [JSONPatch{op: 'remove', path: ${ptr}}] : []) : [JSONPatch{op: 'add', path: ${ptr}, value: ${x}}])[0]`;
}

/** The operations merging the map `p` into the resource's map `o` (present, a map) at `ptr`. */
function mapOps(p: Rec, o: string, ptr: string, w: Walk): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(p)) {
    const a = parseAnchor(k);
    if (a && a.modifier !== '+') continue;
    const key = a?.key ?? k;
    const f = field(o, key);
    const path = join(ptr, key);
    if (a) {
      // add if not present: the whole subtree, only where the key is absent
      parts.push(`(${f.has} ? [] : [${add(path, added(v))}])`);
      continue;
    }
    if (v instanceof Dyn && STRING_MAPS.has(key)) {
      parts.push(stringMapOps(v, f, path, w));
      continue;
    }
    if (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Dyn)) {
      parts.push(`(${f.has} && ${isMap(f.value)} ? ${mapOps(v as Rec, f.value, path, w)} : [${add(path, added(v))}])`);
    } else if (Array.isArray(v)) {
      parts.push(
        `(${f.has} && ${isList(f.value)} ? ${listOps(key, v, f.value, path, w)} : ${added(v) && (added(v) as unknown[]).length ? `[${add(path, added(v))}]` : '[]'})`,
      );
    } else parts.push(`[${add(path, v)}]`);
  }
  return parts.length ? parts.join(' + ') : '[]';
}

/** The operations merging the plain patch map `p` into the resource's map `o` (present, a map) at `ptr` (a CEL string). */
export function mergeOps(p: Rec, o: string, ptr: string, names: Names): string {
  checkPlain(p);
  if (anchorsIn(p, ['', '<'])) throw new Unsupported('conditions in a patch merged into each element');
  return mapOps(p, o, ptr, { names });
}

/**
 * The patch with its variables (values outside conditions and merge keys) as run-time values;
 * `dyns` collects their CEL: Kyverno substitutes the whole rule before it patches, so any lookup that
 * fails errs the rule, used or not.
 */
function resolveVariables(p: unknown, jp: JpCompiler, dyns: string[], key?: string): unknown {
  if (typeof p === 'string' && p.includes('{{')) {
    if (key !== undefined && Object.values(MERGE_KEYS).includes(key)) throw new Unsupported('variables in a merge key of patchStrategicMerge');
    const d = new Dyn(textCel(p, jp, 'patchStrategicMerge'));
    dyns.push(d.cel);
    return d;
  }
  if (Array.isArray(p)) return p.map((e) => resolveVariables(e, jp, dyns));
  if (!p || typeof p !== 'object') return p;
  return Object.fromEntries(
    Object.entries(p as Rec).map(([k, v]) => {
      const a = parseAnchor(k);
      // conditions keep their text (checkPlain refuses variables there)
      return [k, a && (a.modifier === '' || a.modifier === '<') ? v : resolveVariables(v, jp, dyns, a?.key ?? k)];
    }),
  );
}

/** The JSONPatch CEL of a patchStrategicMerge on `root`, the conditions on which the rule applies at all, and the CEL of its variables. */
export function strategicMergeCel(patch: unknown, root = 'object', scope: Scope = {}): { ops: string; guards: string[]; variables: string[] } {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) throw new Unsupported('a patchStrategicMerge that is not a map');
  const dyns: string[] = [];
  const resolved = resolveVariables(patch, new JpCompiler({ ...scope, object: root, operation: 'request.operation', userInfo: true }), dyns) as Rec;
  checkPlain(resolved);
  const names = new Names();
  const guards = guardsOf(resolved, root, 'true', names, []);
  const ops = mapOps(resolved, root, "''", { names });
  return { ops, guards, variables: dyns };
}
