/**
 * The order kyaml's merge leaves a keyed list in: the patch's elements first, in the patch's
 * order (each merged with the resource's element of its key), then the resource's other elements
 * in their order (seen with the oracle: env [A, B] patched with [B', C] gives [B', C, A]). An
 * anchored element stands for the resource's elements it matched, in the resource's order. The
 * JSONPatch of mutate-smp.ts merges in place; these operations then put each list in that order,
 * in mutations of their own: the lists inside list elements (a container's env) first, then the
 * outer ones (a replace of the outer list copies its elements whole).
 */
import { celString } from './scalar';
import { anchorsIn, elementCondition, field, isMap, MERGE_KEYS, withoutConditions } from './mutate-smp';
import { parseAnchor, Unsupported } from './pattern';

type Rec = Record<string, unknown>;

let n = 0;
const fresh = (p: string) => `${p}${n++}`;

/** The replace putting the list `l` (present) in the order of the keys `ks` (a CEL list), by its key `f`. */
function order(l: string, ptr: string, f: string, ks: string): string {
  const x = fresh('x');
  const k = fresh('k');
  const keyed = (v: string) => `${isMap(v)} && has(${v}.${f})`;
  return `[JSONPatch{op: 'replace', path: ${ptr}, value: ${ks}.map(${k}, ${l}.filter(${x}, ${keyed(x)} && ${x}.${f} == ${k})).flatten() + ${l}.filter(${x}, !(${keyed(x)} && ${x}.${f} in ${ks}))}]`;
}

/** The keys, in order, a list patch puts first: its plain elements' keys, then the names its anchored elements matched. */
function keysOf(patch: unknown[], l: string, f: string): string {
  const plain = patch.filter((e) => !anchorsIn(e, ['', '+', '<']));
  const keys = `[${plain.map((e) => celString(String((e as Rec)[f]))).join(', ')}]`;
  const anchored = patch.filter((e) => anchorsIn(e, ['']) && !anchorsIn(e, ['<']) && Object.keys(withoutConditions(e) as Rec).length);
  if (!anchored.length) return keys;
  const y = fresh('y');
  const named = (v: string) => `${isMap(v)} && has(${v}.name) && ${v}.name != ''`;
  const matched = anchored.map((e) => `${l}.filter(${y}, ${named(y)} && (${elementCondition(e as Rec, y, [''])})).map(${y}, ${y}.name)`);
  return `(${[keys, ...matched].join(' + ')}).distinct()`;
}

/**
 * The reorders of the patch `p` (a map) on the resource's map `o` at `ptr`, by depth: [0] the lists
 * outside list elements, [1] the lists inside one list's elements. Deeper keyed lists are not modelled.
 */
export function reorders(p: Rec, o: string, ptr: string, depth = 0, out: string[][] = [[], []]): string[][] {
  for (const [k, v] of Object.entries(p)) {
    const a = parseAnchor(k);
    if (a) continue; // conditions; an add-if-not-present adds a whole subtree in the patch's order
    const f = field(o, k);
    const path = ptr.endsWith("'") ? `${ptr.slice(0, -1)}/${k}'` : `${ptr} + '/${k}'`;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const sub = reorders(v as Rec, f.value, path, depth, [[], []]);
      sub.forEach((ops, d) => {
        for (const op of ops) out[d]!.push(`(${f.has} && ${isMap(f.value)} ? ${op} : [])`);
      });
      continue;
    }
    // only lists whose patch keeps an element (an element of global anchors alone is dropped from the patch)
    const kept = (e: unknown) => e && typeof e === 'object' && !anchorsIn(e, ['<']) && Object.keys(withoutConditions(e) as Rec).length > 0;
    if (!Array.isArray(v) || !MERGE_KEYS[k] || !v.some(kept)) continue;
    if (depth > 1) throw new Unsupported(`keyed lists nested three deep (${k}): the order Kyverno leaves them in is not modelled`);
    const key = MERGE_KEYS[k]!;
    const list = `${o}.${k}`;
    out[depth]!.push(`(${f.has} && type(${f.value}) == list ? ${order(f.value, path, key, keysOf(v, f.value, key))} : [])`);
    // lists inside the elements this list's patch elements reach
    for (const e of v) {
      if (!e || typeof e !== 'object' || anchorsIn(e, ['<'])) continue;
      const rest = withoutConditions(e) as Rec;
      const i = fresh('i');
      const at = `${list}[${i}]`;
      const inner = reorders(rest, at, `${path} + '/' + string(${i})`, depth + 1, [[], []]);
      if (inner.every((ops) => ops.length === 0)) continue;
      if (depth + 1 > 1 || inner[0]!.length) throw new Unsupported(`keyed lists nested three deep (${k}): the order Kyverno leaves them in is not modelled`);
      const y = fresh('y');
      const reached = anchorsIn(e, [''])
        ? `${isMap(at)} && has(${at}.name) && ${at}.name != '' && ${list}.exists(${y}, ${isMap(y)} && has(${y}.name) && ${y}.name == ${at}.name && (${elementCondition(e as Rec, y, [''])}))`
        : `${isMap(at)} && has(${at}.${key}) && ${at}.${key} == ${celString(String((e as Rec)[key]))}`;
      out[1]!.push(
        `(${f.has} && type(${f.value}) == list ? lists.range(size(${list})).filter(${i}, ${reached}).map(${i}, ${inner[1]!.join(' + ')}).flatten() : [])`,
      );
    }
  }
  return out;
}

/** The reorder mutations (inner lists, then outer lists) of a patch; none when no keyed list is patched. */
export function orderMutations(patch: Rec, root = 'object'): string[] {
  n = 0;
  const [outer, inner] = reorders(patch, root, "''");
  return [inner!, outer!].filter((ops) => ops.length).map((ops) => ops.join(' + '));
}
