/**
 * A Kyverno `mutate.foreach` of `patchStrategicMerge` as JSONPatch CEL, following kyverno v1.19
 * pkg/engine/handlers/mutation (forEachMutator): each entry's list is evaluated on the resource as
 * the entries before it left it (one MAP mutation per entry); its non-null elements are taken last
 * first (a strategic merge's default order), each one's patch substituted (pkg/engine/variables:
 * a whole `{{ … }}` is its value, a variable inside a text is printed into it) and merged in turn.
 *
 * Converted when the elements' merges commute, so every operation can be computed from the object
 * before the entry:
 * - the patch's list at the foreach list's own path holds one element keyed `name: "{{element.name}}"`
 *   with a rest without variables: every element is merged with that rest. Each merge puts its element
 *   first; merged last to first, the list keeps its order. An element without a name errs (Kyverno's
 *   lookup fails);
 * - the rest of the patch without variables: merged as one strategic merge when any element is;
 * - or maps keyed by a text with the element's variables over a constant (`metadata.annotations`
 *   per container): one `add` per element, the last merged (the first element) winning.
 */
import { parse } from 'yaml';
import { escapeToken } from '../../base/jsonpatch';
import { parseJmesPath, JmesPathError } from './jmespath';
import { JpCompiler } from './jmespath-cel';
import { conditionsCel } from './conditions';
import { json6902Cel } from './mutate-json6902';
import { reorders } from './mutate-order';
import { anchorsIn, celLiteral, field, isMap, MERGE_KEYS, mergeOps, Names, strategicMergeCel } from './mutate-smp';
import { Unsupported } from './pattern';
import { celString } from './scalar';
import { fail, hasVar, textCel } from './mutate-vars';

type Rec = Record<string, unknown>;

/** `request.object.a.b` (optionally `[]`): the path of the resource's list a foreach walks, when it is one. */
function listPath(list: string): string[] | undefined {
  const m = /^request\.object((?:\.[A-Za-z_][A-Za-z0-9_]*)+)(\[\])?$/.exec(list.trim());
  return m ? m[1]!.slice(1).split('.') : undefined;
}

const celPath = (root: string, tokens: readonly string[]) => tokens.reduce((o, t) => field(o, t).value, root);
const pointer = (tokens: readonly string[]) => celString(tokens.map((t) => `/${escapeToken(t)}`).join(''));

/** The patch without the subtree at `tokens` (maps left empty by the removal dropped). */
function without(p: Rec, tokens: readonly string[]): Rec {
  const [head, ...rest] = tokens;
  const out: Rec = { ...p };
  if (!rest.length) delete out[head!];
  else {
    const sub = without(out[head!] as Rec, rest);
    if (Object.keys(sub).length) out[head!] = sub;
    else delete out[head!];
  }
  return out;
}

/** The maps of `p` keyed by a text with variables: [static path, key text, constant value]. */
function dynamicKeys(p: Rec, path: string[] = [], out: [string[], string, unknown][] = []): [string[], string, unknown][] {
  for (const [k, v] of Object.entries(p)) {
    if (k.includes('{{')) {
      if (hasVar(v) || (v !== null && typeof v === 'object')) throw new Unsupported('a key with variables over a value that is not a constant scalar');
      out.push([path, k, v]);
    } else if (v && typeof v === 'object' && !Array.isArray(v)) dynamicKeys(v as Rec, [...path, k], out);
    else if (hasVar(v)) throw new Unsupported('variables in a patch value outside the element merged by name');
  }
  return out;
}

/**
 * One foreach entry (already as the rule for this shape of object reads it) as MAP mutations: its
 * operations, then the reorders of the keyed lists it merged (inner, then outer).
 */
export function foreachEntryCel(entry: Rec, where: string, differences: string[]): string[] {
  const json = entry.patchesJson6902 !== undefined;
  for (const k of Object.keys(entry))
    if (!['list', 'patchStrategicMerge', 'order', ...(json ? ['patchesJson6902', 'preconditions'] : [])].includes(k))
      throw new Unsupported(
        `${where}.${k} (${k === 'patchesJson6902' ? 'a JSON Patch per element' : k === 'foreach' ? 'a nested foreach' : k === 'context' ? 'context' : k === 'preconditions' ? 'conditions per element' : 'not read'})`,
      );
  if (entry.order !== undefined && entry.order !== (json ? 'Ascending' : 'Descending')) throw new Unsupported(`${where}.order ${String(entry.order)}`);
  const patch = entry.patchStrategicMerge;
  if (json && patch !== undefined) throw new Unsupported(`${where}: both patchStrategicMerge and patchesJson6902`);
  if (!json && (!patch || typeof patch !== 'object' || Array.isArray(patch))) throw new Unsupported(`${where}: a patchStrategicMerge that is not a map`);
  if (anchorsIn(patch, ['', '<'])) throw new Unsupported(`${where}: conditions in a patch merged per element`);
  const list = String(entry.list ?? '');
  const names = new Names();
  const el = names.next('fe');
  const idx = names.next('fi');
  const jp = new JpCompiler({
    object: 'object',
    operation: 'request.operation',
    vars: { element: el, element0: el, elementIndex: `double(${idx})`, elementIndex0: `double(${idx})` },
  });
  // the elements: a list as it is, any other value one element; nil elements are skipped (and keep their index)
  let listCel: string;
  try {
    const c = new JpCompiler({ object: 'object', operation: 'request.operation' }).compile(parseJmesPath(list));
    if (c.depth > 1) throw new Unsupported(`${where}.list ${list}: a list flattened twice`);
    const lp = names.next('fl');
    const flat = c.depth ? `${lp}[1].flatten()` : `${lp}[1]`;
    listCel = `[${c.cel}].map(${lp}, ${lp}[0] != 0 ? [${fail(`${lp}[0]`, 'the foreach list did not resolve')}] : type(${lp}[1]) == list ? ${flat} : [${lp}[1]])[0]`;
  } catch (e) {
    if (e instanceof JmesPathError) throw new Unsupported(`${where}.list ${list} (${e.message})`);
    if (e instanceof Unsupported) throw new Unsupported(`${where}.list ${list}: ${e.message}`);
    throw e;
  }
  const xs = names.next('fx');
  const present = `size(${xs}.filter(${el}, ${el} != null)) > 0`;
  const inEntry = (body: string) => `[${listCel}].map(${xs}, ${present} ? (${body}) : [])[0]`;

  const tokens = listPath(list);
  if (json) {
    const pre =
      entry.preconditions === undefined
        ? 'true'
        : conditionsCel(entry.preconditions, `${where}.preconditions`, 'request.operation', 'object', differences, { vars: jp.roots.vars });
    return [inEntry(json6902Elements(entry.patchesJson6902, tokens, pre, el, idx, xs, names, where))];
  }
  const listPatch = tokens ? tokens.reduce<unknown>((o, t) => (o && typeof o === 'object' && !Array.isArray(o) ? (o as Rec)[t] : undefined), patch) : undefined;
  const ops: string[] = [];
  const inner: string[] = [];
  const outer: string[] = [];
  let rest = patch as Rec;
  if (tokens && Array.isArray(listPatch)) {
    // the list itself: one element keyed by the element's merge key, the rest without variables
    const key = MERGE_KEYS[tokens[tokens.length - 1]!];
    const e = listPatch[0] as Rec | undefined;
    const whole = new RegExp(`^\\{\\{\\s*element\\.${key}\\s*\\}\\}$`);
    if (listPatch.length !== 1 || key !== 'name' || !e || typeof e !== 'object' || Array.isArray(e) || typeof e.name !== 'string' || !whole.test(e.name))
      throw new Unsupported(`${where}: a patch of the foreach list other than one element named "{{element.name}}"`);
    const r = { ...e };
    delete r.name;
    if (hasVar(r)) throw new Unsupported(`${where}: variables in the fields merged into each element`);
    const l = celPath('object', tokens);
    const ptr = pointer(tokens);
    const i = names.next('fj');
    const at = `${l}[${i}]`;
    const named = `${at} != null && ${isMap(at)} && has(${at}.name)`;
    // Kyverno's lookup of element.name fails on an element without one (it errs the rule)
    const check = `${xs}.exists(${el}, ${el} != null && !(${isMap(el)} && has(${el}.name) && type(${el}.name) == string)) ? [JSONPatch{op: 'add', path: '/x', value: ${fail(xs, 'an element without a name')}}] : []`;
    ops.push(`(${check})`);
    ops.push(
      `(type(${l}) == list ? lists.range(size(${l})).filter(${i}, ${named}).map(${i}, ${mergeOps(r, at, `${ptr} + '/' + string(${i})`, names)}).flatten() : [])`,
    );
    const nested = reorders(r, at, `${ptr} + '/' + string(${i})`, 1, [[], []])[1]!;
    if (nested.length) inner.push(`(type(${l}) == list ? lists.range(size(${l})).filter(${i}, ${named}).map(${i}, ${nested.join(' + ')}).flatten() : [])`);
    rest = without(patch as Rec, tokens);
  }
  if (Object.keys(rest).length) {
    const dynamic = dynamicKeys(rest);
    if (dynamic.length) {
      if (ops.length || dynamic.length !== 1 || hasVar(without(rest, [...dynamic[0]![0], dynamic[0]![1]])))
        throw new Unsupported(`${where}: a key with variables beside other fields of the patch`);
      const [path, key, value] = dynamic[0]!;
      ops.push(dynamicKeyOps(path, key, value, jp, xs, el, idx, where));
    } else {
      const s = strategicMergeCel(rest);
      if (s.guards.length) throw new Unsupported(`${where}: conditions in a patch merged per element`);
      ops.push(s.ops);
      const [sOuter, sInner] = reorders(rest, 'object', "''");
      inner.push(...sInner!);
      outer.push(...sOuter!);
    }
  }
  return [ops.join(' + '), inner.join(' + '), outer.join(' + ')].filter((m) => m).map(inEntry);
}

/**
 * A map key with the element's variables over a constant, at the static `path`: every non-null
 * element adds its key, last element first (the first element's write lands last); the first one
 * merged creates the maps missing on the way.
 */
function dynamicKeyOps(path: string[], key: string, value: unknown, jp: JpCompiler, xs: string, el: string, idx: string, where: string): string {
  if (!path.length) throw new Unsupported(`${where}: a top-level key with variables`);
  const k = textCel(key, jp, where);
  const keyText = `string(${k})`;
  const leafPtr = `${pointer(path)} + '/' + ${keyText}.replace('~', '~0').replace('/', '~1')`;
  const j = jp.names.next('fk');
  const o = jp.names.next('fo');
  const order = `lists.range(size(${xs})).filter(${o}, ${xs}[${o}] != null).reverse()`;
  // the deepest map of the path present: the rest of the path is created by the first element merged
  let create = `[JSONPatch{op: 'add', path: ${leafPtr}, value: ${celLiteral(value)}}]`;
  for (let n = path.length - 1; n >= 0; n--) {
    const at = celPath('object', path.slice(0, n + 1));
    const parent = celPath('object', path.slice(0, n));
    const f = field(parent, path[n]!);
    const nested = path.slice(n + 1).reduceRight((acc, t) => `{${celString(t)}: dyn(${acc})}`, `{${keyText}: dyn(${celLiteral(value)})}`);
    create = `(${f.has} && ${isMap(at)} ? ${create} : ${j} == ${order}[0] ? [JSONPatch{op: 'add', path: ${pointer(path.slice(0, n + 1))}, value: ${nested}}] : [JSONPatch{op: 'add', path: ${leafPtr}, value: ${celLiteral(value)}}])`;
  }
  const byIndex = (body: string) => `[${xs}[${idx}]].map(${el}, ${body})[0]`;
  return `${order}.map(${j}, [${j}].map(${idx}, ${byIndex(create)})[0]).flatten()`;
}

/** The pod spec's container lists: an element index past their end leaves an element without a name there (rejected). */
const CONTAINER_LIST =
  /^\/(spec\/(?:template\/spec\/|jobTemplate\/spec\/template\/spec\/)?(?:containers|initContainers|ephemeralContainers))\/\{\{elementIndex\}\}\//;

/**
 * A JSON Patch per element: Kyverno substitutes `{{elementIndex}}` into the text, so each element's
 * operations are the patch's, under the element (`/<list>/<index>/…`); other variables are printed
 * into the YAML text before it is read (not converted). Elements in order, each where its
 * conditions hold; their operations touch their own element only, so all are computed at once.
 * The patch may index another list than the entry's (`request.object.spec.[initContainers,
 * containers][]` patched at `/spec/containers/{{elementIndex}}`) when that list is a pod spec's
 * containers: an index past its end makes Kyverno pad it with nulls and add an element without a
 * name (ensurePathExists), which the apiserver rejects; the policy adds an element without a name
 * there too.
 */
function json6902Elements(text: unknown, tokens: string[] | undefined, pre: string, el: string, idx: string, xs: string, names: Names, where: string): string {
  if (typeof text !== 'string') throw new Unsupported(`${where}.patchesJson6902 that is not text`);
  const index = /\{\{\s*elementIndex0?\s*\}\}/g;
  if (text.replace(index, '').includes('{{'))
    throw new Unsupported(`${where}.patchesJson6902: variables other than the element's index (Kyverno prints them into the YAML text before reading it)`);
  let ops: unknown;
  try {
    ops = parse(text.replace(index, '{{elementIndex}}'));
  } catch (e) {
    throw new Unsupported(`${where}.patchesJson6902 that does not parse: ${(e as Error).message}`);
  }
  const other = Array.isArray(ops) && ops[0] && typeof ops[0] === 'object' ? CONTAINER_LIST.exec(String((ops[0] as Rec).path)) : null;
  const patched = tokens ?? (other ? other[1]!.split('/') : undefined);
  if (!patched) throw new Unsupported(`${where}.list: a JSON Patch per element of a list that is not a plain path of the resource`);
  const under = `/${patched.join('/')}/{{elementIndex}}/`;
  if (!Array.isArray(ops) || !ops.every((o) => o && typeof o === 'object' && typeof (o as Rec).path === 'string' && String((o as Rec).path).startsWith(under)))
    throw new Unsupported(`${where}.patchesJson6902: operations outside the element (${under}…)`);
  const rest = (ops as Rec[]).map((o) => ({ ...o, path: String(o.path).slice(under.length - 1) }));
  const l = celPath('object', patched);
  const i = names.next('fj');
  const r = names.next('fr');
  const { ops: each, differences } = json6902Cel(JSON.stringify(rest), r, `${pointer(patched)} + '/' + string(${idx})`);
  if (differences.length) throw new Unsupported(`${where}.patchesJson6902: ${differences.join('; ')}`);
  if (tokens) {
    const body = `[${l}[${i}]].map(${el}, [${el}].map(${r}, [${i}].map(${idx}, (${pre}) ? (${each}) : [])[0])[0])[0]`;
    return `(type(${l}) == list ? lists.range(size(${l})).filter(${i}, ${l}[${i}] != null).map(${i}, ${body}).flatten() : [])`;
  }
  const unnamed = `type(${l}) == list ? [JSONPatch{op: 'add', path: ${pointer(patched)} + '/-', value: {}}] : [JSONPatch{op: 'add', path: ${pointer(patched)}, value: [{}]}]`;
  const body = `[${xs}[${i}]].map(${el}, [${i}].map(${idx}, (${pre}) ? (type(${l}) == list && ${i} < size(${l}) ? [${l}[${i}]].map(${r}, ${each})[0] : ${unnamed}) : [])[0])[0]`;
  return `lists.range(size(${xs})).filter(${i}, ${xs}[${i}] != null).map(${i}, ${body}).flatten()`;
}
