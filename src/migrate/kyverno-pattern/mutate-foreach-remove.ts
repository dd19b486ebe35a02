/**
 * `mutate.foreach` entries whose JSON Patch removes the element itself, last element first, as
 * kyverno v1.19 forEachMutator runs them (pkg/engine/handlers/mutation): the list read once, its
 * non-null elements taken in reverse (`order: Descending`, the element keeping its own index), each
 * where the entry's `preconditions` hold; a nested foreach (`foreach` of an entry) walks a list of
 * each element (`element.volumeMounts`) with `elementIndex0` the outer index and `elementIndex1`
 * the inner one. Removing from the end keeps the indices of the elements still to be removed, so
 * every operation is computed from the object before the entry.
 */
import { parse } from 'yaml';
import type { Scope } from './conditions';
import { conditionsCel } from './conditions';
import { JmesPathError, parseJmesPath } from './jmespath';
import { JpCompiler } from './jmespath-cel';
import { field, Names } from './mutate-smp';
import { fail } from './mutate-vars';
import { Unsupported } from './pattern';
import { celString } from './scalar';

type Rec = Record<string, unknown>;

/** `request.object.a.b` (optionally `[]`): the path of the resource's list. */
const PLAIN_LIST = /^request\.object((?:\.[A-Za-z_][A-Za-z0-9_]*)+)(\[\])?$/;
/** `element.f` or `element.f || \`[]\``: an element's own list. */
const ELEMENT_LIST = /^element\.([A-Za-z_][A-Za-z0-9_]*)(\s*\|\|\s*`\[\]`)?$/;

const celPath = (root: string, tokens: readonly string[]) => tokens.reduce((o, t) => field(o, t).value, root);

/** The one `remove` of a JSON Patch text, its path. */
function removePath(text: unknown, where: string): string {
  if (typeof text !== 'string') throw new Unsupported(`${where}.patchesJson6902 that is not text`);
  let ops: unknown;
  try {
    ops = parse(text);
  } catch (e) {
    throw new Unsupported(`${where}.patchesJson6902 that does not parse: ${(e as Error).message}`);
  }
  const op = Array.isArray(ops) && ops.length === 1 ? (ops[0] as Rec | null) : null;
  if (op?.op !== 'remove' || typeof op.path !== 'string' || Object.keys(op).some((k) => !['op', 'path'].includes(k)))
    throw new Unsupported(`${where}.patchesJson6902: other than one remove`);
  return op.path.replace(/\s+/g, '');
}

/** Whether an entry is one this module converts: a removal of the element, or a nested foreach of such. */
export const removesElements = (entry: Rec): boolean =>
  (entry.patchesJson6902 !== undefined && entry.order === 'Descending') || (entry.foreach !== undefined && entry.patchesJson6902 === undefined);

/** One entry as the CEL of its JSONPatch list. */
export function removeEntryCel(entry: Rec, where: string, differences: string[], scope: Scope): string {
  const names = new Names();
  const known = (e: Rec, keys: string[], at: string) => {
    for (const k of Object.keys(e)) if (!keys.includes(k)) throw new Unsupported(`${at}.${k} beside a removal per element`);
  };
  const outer = PLAIN_LIST.exec(String(entry.list ?? '').trim());
  if (!outer) throw new Unsupported(`${where}.list: a removal per element of a list that is not a plain path of the resource`);
  const tokens = outer[1]!.slice(1).split('.');
  const ptr = celString(tokens.map((t) => `/${t}`).join(''));
  const list = celPath('object', tokens);
  const i = names.next('ri');
  const el = names.next('re');
  const vars0 = { element: el, element0: el, elementIndex: `double(${i})`, elementIndex0: `double(${i})` };
  const pre = (block: unknown, vars: Record<string, string>, at: string) =>
    block === undefined
      ? 'true'
      : conditionsCel(block, `${at}.preconditions`, 'request.operation', 'object', differences, { ...scope, vars: { ...scope.vars, ...vars } });
  // the elements from the last, each with its own index (Kyverno gives a reversed element its index)
  const each = (l: string, idx: string, e: string, body: string) =>
    `lists.range(size(${l})).reverse().filter(${idx}, ${l}[${idx}] != null).map(${idx}, [${l}[${idx}]].map(${e}, ${body})[0])`;
  if (entry.foreach === undefined) {
    known(entry, ['list', 'order', 'preconditions', 'patchesJson6902'], where);
    if (removePath(entry.patchesJson6902, where) !== `/${tokens.join('/')}/{{elementIndex}}`)
      throw new Unsupported(`${where}.patchesJson6902: a remove of other than the element`);
    const body = `(${pre(entry.preconditions, vars0, where)}) ? [JSONPatch{op: 'remove', path: ${ptr} + '/' + string(${i})}] : []`;
    return `(type(${list}) == list ? ${each(list, i, el, body)}.flatten() : [])`;
  }
  known(entry, ['list', 'foreach'], where);
  const nested = entry.foreach;
  if (!Array.isArray(nested) || nested.length !== 1 || !nested[0] || typeof nested[0] !== 'object')
    throw new Unsupported(`${where}.foreach: other than one entry`);
  const inner = nested[0] as Rec;
  const at = `${where}.foreach[0]`;
  known(inner, ['list', 'order', 'preconditions', 'patchesJson6902'], at);
  if (inner.order !== 'Descending' || inner.patchesJson6902 === undefined) throw new Unsupported(`${at}: other than a removal last element first`);
  const own = ELEMENT_LIST.exec(String(inner.list ?? '').trim());
  if (!own) throw new Unsupported(`${at}.list: other than a list of the element`);
  if (removePath(inner.patchesJson6902, at) !== `/${tokens.join('/')}/{{elementIndex0}}/${own[1]}/{{elementIndex1}}`)
    throw new Unsupported(`${at}.patchesJson6902: a remove of other than the inner element`);
  // the inner list as Kyverno evaluates it on the outer element: a failed lookup errs, a non-list is one element
  let c: { cel: string; depth: number };
  try {
    c = new JpCompiler({ ...scope, object: 'object', operation: 'request.operation', vars: { ...scope.vars, ...vars0 } }).compile(
      parseJmesPath(String(inner.list)),
    );
  } catch (e) {
    if (e instanceof JmesPathError) throw new Unsupported(`${at}.list (${e.message})`);
    throw e;
  }
  if (c.depth) throw new Unsupported(`${at}.list: a flattened list`);
  const p = names.next('rp');
  const xs = names.next('rx');
  const j = names.next('rj');
  const e1 = names.next('rf');
  const innerVars = { ...vars0, element: e1, element1: e1, elementIndex: `double(${j})`, elementIndex1: `double(${j})` };
  // a list of the element's own field: its indices are the resource's
  const removal = `(${pre(inner.preconditions, innerVars, at)}) ? [JSONPatch{op: 'remove', path: ${ptr} + '/' + string(${i}) + ${celString(`/${own[1]}/`)} + string(${j})}] : []`;
  const elements = `[${c.cel}].map(${p}, ${p}[0] != 0 ? [${fail(`${p}[0]`, 'the foreach list did not resolve')}] : type(${p}[1]) == list ? ${p}[1] : [${p}[1]])[0]`;
  const perOuter = `[${elements}].map(${xs}, ${each(xs, j, e1, removal)}.flatten())[0]`;
  return `(type(${list}) == list ? lists.range(size(${list})).filter(${i}, ${list}[${i}] != null).map(${i}, [${list}[${i}]].map(${el}, ${perOuter})[0]).flatten() : [])`;
}
