/**
 * A Kyverno `mutate.patchesJson6902` as the CEL of a MutatingAdmissionPolicy JSONPatch. Kyverno
 * applies it with evanphx/json-patch v5 and options the apiserver's JSON Patch lacks
 * (pkg/engine/mutate/patch/patchesUtils.go): a `remove` of a missing path does nothing
 * (AllowMissingPathOnRemove) and an `add` creates the missing maps on its way (EnsurePathExistsOnAdd,
 * a list when the next token is `-`). The CEL checks the object first and writes the operation the
 * apiserver needs for the same result.
 */
import { parse } from 'yaml';
import { parsePointer } from '../../base/jsonpatch';
import { celLiteral } from './mutate-smp';
import { Unsupported } from './pattern';
import { celString } from './scalar';

type Rec = Record<string, unknown>;

const INDEX = /^(0|[1-9][0-9]*)$/;
/** The last element (a negative index; Kyverno's only one not refused here). */
const LAST = '-1';
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A pod spec's lists whose elements need a name (a volume mount a path): an element without one is rejected by the apiserver (mutate-helpers.ts stored). */
const NAMED_LIST =
  /^\/spec\/(?:template\/spec\/|jobTemplate\/spec\/template\/spec\/)?(?:(?:containers|initContainers|ephemeralContainers)(?:\/(?:0|[1-9][0-9]*)\/(?:env|volumeMounts))?|volumes)$/;

/**
 * CEL presence of each prefix of `tokens` under `root`: [expression of the value, its presence, its
 * pointer segment (a CEL string)] per step. `-1` is the last element of a list (SupportNegativeIndices).
 */
function steps(root: string, tokens: readonly string[]): { value: string; has: string; seg: string }[] {
  const out: { value: string; has: string; seg: string }[] = [];
  let cur = root;
  for (const t of tokens) {
    const index = INDEX.test(t);
    const last = t === LAST;
    const has = last
      ? `(type(${cur}) == list && size(${cur}) > 0)`
      : index
        ? `(type(${cur}) == list && size(${cur}) > ${t})`
        : IDENT.test(t)
          ? `has(${cur}.${t})`
          : `(${celString(t)} in ${cur})`;
    const seg = last ? `'/' + string(size(${cur}) - 1)` : celString(`/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    cur = last ? `${cur}[size(${cur}) - 1]` : index ? `${cur}[${t}]` : IDENT.test(t) ? `${cur}.${t}` : `${cur}[${celString(t)}]`;
    out.push({ value: cur, has, seg });
  }
  return out;
}

const pointer = (tokens: readonly string[]) => celString(tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join(''));

/** The CEL pointer of the first `n` tokens: a literal unless a step counts from the end. */
const pointerOf = (tokens: readonly string[], s: readonly { seg: string }[], n: number) =>
  tokens.slice(0, n).includes(LAST)
    ? s
        .slice(0, n)
        .map((x) => x.seg)
        .join(' + ')
    : pointer(tokens.slice(0, n));

const jsonPatch = (op: string, path: string, value: unknown, prefix: string) =>
  `JSONPatch{op: ${celString(op)}, path: ${prefix ? `${prefix} + ` : ''}${path}${value === undefined ? '' : `, value: ${celLiteral(value)}`}}`;

/** The CEL of one operation (a list of JSONPatch); `differences` collects what it does otherwise. */
function opCel(o: Rec, root: string, differences: string[], prefix: string): string {
  const kind = String(o.op);
  const path = String(o.path ?? '');
  if (path.includes('{{') || JSON.stringify(o.value ?? null).includes('{{')) throw new Unsupported('variables in patchesJson6902');
  const tokens = parsePointer(path);
  if (!tokens || tokens.length === 0) throw new Unsupported(`the JSON Patch path ${JSON.stringify(path)}`);
  if (tokens.some((t) => /^-[0-9]+$/.test(t) && (t !== LAST || kind !== 'add')))
    throw new Unsupported('a negative index in patchesJson6902 other than -1 in an add (Kyverno counts from the end)');
  const s = steps(root, tokens);
  const parents = tokens.slice(0, -1);
  const chain = (n: number) => s.slice(0, n).map((x) => x.has);
  if (kind === 'remove') {
    // a missing path is no error for Kyverno
    return `(${chain(tokens.length).join(' && ')} ? [${jsonPatch('remove', pointer(tokens), undefined, prefix)}] : [])`;
  }
  if (kind === 'replace') return `[${jsonPatch('replace', pointer(tokens), o.value, prefix)}]`;
  if (kind !== 'add') throw new Unsupported(`the JSON Patch operation ${kind}`);
  const last = tokens[tokens.length - 1]!;
  // an add at -1 inserts before the end of a list of n at index n (partialArray.add): an append
  const append = last === '-' || last === LAST;
  const at = (n: number) => pointerOf(tokens, s, n);
  const end = (n: number) => (n ? `${at(n)} + '/-'` : "'/-'");
  // the deepest parent present gets the rest of the path as nested maps (a list for a final '-' or
  // -1, a list of one map for a -1 on the way: ensurePathExists), an empty list at a -1 that element
  let cel = `[${jsonPatch('add', append ? end(parents.length) : at(tokens.length), o.value, prefix)}]`;
  for (let n = parents.length - 1; n >= 0; n--) {
    if (INDEX.test(parents[n]!)) {
      // Kyverno pads a list shorter than the index with nulls and fills the element (ensurePathExists): an
      // element without a name in a pod spec's lists, which the apiserver rejects; the policy adds one too
      if (!NAMED_LIST.test(`/${tokens.slice(0, n).join('/')}`)) {
        differences.push('an add through a list index: a list shorter than the index is padded with nulls by Kyverno, an error for the policy');
        break;
      }
      const present = s
        .slice(0, n + 1)
        .map((x) => `(${x.has} && ${x.value} != null)`)
        .join(' && ');
      const unnamed = opCel({ op: 'add', path: `/${tokens.slice(0, n).join('/')}/-`, value: {} }, root, differences, prefix);
      cel = `(${present} ? ${cel} : ${unnamed})`;
      break;
    }
    const rest = tokens.slice(n + 1);
    let value: unknown = append ? [o.value] : o.value;
    for (const t of (append ? rest.slice(0, -1) : rest).reverse()) {
      if (INDEX.test(t) || t === '-') throw new Unsupported('an add that creates a list at an index');
      value = t === LAST ? [value] : { [t]: value };
    }
    // a null on the way is filled as a missing value is (ensurePathExists reads it as no container)
    const present = s
      .slice(0, n + 1)
      .map((x) => `(${x.has} && ${x.value} != null)`)
      .join(' && ');
    cel = `(${present} ? ${cel} : [${jsonPatch('add', parents[n] === LAST ? end(n) : at(n + 1), value, prefix)}])`;
  }
  return cel;
}

/** The JSONPatch CEL of a patchesJson6902 (YAML or JSON text) on `root`, its paths after `prefix` (a CEL string, the pointer of `root`). */
export function json6902Cel(text: unknown, root = 'object', prefix = ''): { ops: string; differences: string[] } {
  if (typeof text !== 'string') throw new Unsupported('a patchesJson6902 that is not text');
  let ops: unknown;
  try {
    ops = parse(text);
  } catch (e) {
    throw new Unsupported(`a patchesJson6902 that does not parse: ${(e as Error).message}`);
  }
  if (!Array.isArray(ops) || ops.length === 0) throw new Unsupported('a patchesJson6902 that is not a list of operations');
  const differences: string[] = [];
  // every operation's CEL reads the object before the patch: operations on nested paths would read a stale object
  const paths = ops.map((o) => `${String((o as Rec | null)?.path ?? '')}/`);
  if (paths.some((p, i) => paths.some((q, j) => i !== j && q.startsWith(p)))) throw new Unsupported('patchesJson6902 operations on the same or nested paths');
  const parts = ops.map((o) => {
    if (!o || typeof o !== 'object') throw new Unsupported('a patchesJson6902 operation that is not a map');
    return opCel(o as Rec, root, differences, prefix);
  });
  return { ops: parts.join(' + '), differences };
}
