/**
 * What go-jmespath's `to_string` and Kyverno's `request.userInfo` are, as CEL: Go's json.Marshal of
 * a value of strings, lists and maps, and the admission request's user as Kyverno's context holds it.
 */
import type { JpNode } from './jmespath';

/** Fresh comprehension variables (jmespath-cel's Names). */
type Names = { next(prefix: string): string };

/**
 * Kyverno's `request.userInfo`: the admission request's authenticationv1.UserInfo as JSON, each
 * field left out when empty (omitempty), so a lookup of it is not found.
 */
export const USER_INFO = `(${[
  ['username', "!= ''"],
  ['uid', "!= ''"],
  ['groups', ''],
  ['extra', ''],
]
  .map(([f, nonEmpty]) => {
    const v = `request.userInfo.${f}`;
    return `(has(${v}) && ${nonEmpty ? `${v} ${nonEmpty}` : `size(${v}) > 0`} ? [[dyn('${f}'), dyn(${v})]] : [])`;
  })
  .join(' + ')}).transformMapEntry(ui, up, {up[0]: up[1]})`;

/** Whether the expression reads request.userInfo only (its fields, multi-selects of them). */
export function readsUserInfo(n: JpNode): boolean {
  if (n.type === 'Sub' && n.left.type === 'Field' && n.left.name === 'request') return n.right.type === 'Field' && n.right.name === 'userInfo';
  if (n.type === 'Sub' || n.type === 'IndexExpression') return readsUserInfo(n.left);
  return false;
}

/**
 * Go's json.Marshal of a string's characters: `\`, `"`, the short escapes (`\b` and `\f` since Go
 * 1.22), other control characters as \u00xx, and (HTML-safe) `<`, `>`, `&`, U+2028, U+2029.
 */
function goJsonString(s: string): string {
  // [character, its escape] as code points (written into CEL literals as \uXXXX)
  const esc: [number, string][] = [
    [0x5c, '\\\\'],
    [0x22, '\\"'],
    [0x0a, '\\n'],
    [0x0d, '\\r'],
    [0x09, '\\t'],
    [0x08, '\\b'],
    [0x0c, '\\f'],
  ];
  const hex = (c: number) => `\\u${c.toString(16).padStart(4, '0')}`;
  for (let c = 0; c < 0x20; c++) if (!esc.some(([x]) => x === c)) esc.push([c, hex(c)]);
  for (const c of [0x3c, 0x3e, 0x26, 0x2028, 0x2029]) esc.push([c, hex(c)]);
  const lit = (t: string) => `'${[...t].map((ch) => (ch === '\\' ? '\\\\' : ch)).join('')}'`;
  return `'"' + ${s}${esc.map(([c, to]) => `.replace('${hex(c)}', ${lit(to)})`).join('')} + '"'`;
}

/**
 * json.Marshal of a value of strings, nulls, lists and maps (keys sorted, as Go sorts them), nested
 * `depth` levels: anything else errs in the CEL (to_string() reads only request.userInfo, which holds no other).
 */
export function goJson(names: Names, x: string, depth: number): string {
  const scalar = `(type(${x}) == string ? ${goJsonString(x)} : ${x} == null ? 'null' : string(int(string(size([${x}])) + ': to_string() of a value other than a string, a null, a list or a map')))`;
  if (depth === 0) return scalar;
  const e = names.next('je');
  const k = names.next('jk');
  const p = names.next('jp');
  // [the text before the item, the item]: a list's elements, a map's values after their sorted keys
  const items = `(type(${x}) == list ? ${x}.map(${e}, [dyn(''), ${e}]) : ${x}.map(${k}, ${k}).sort().map(${k}, [dyn(${goJsonString(k)} + ':'), ${x}[${k}]]))`;
  const body = `${items}.map(${p}, string(${p}[0]) + [${p}[1]].map(${e}, ${goJson(names, e, depth - 1)})[0]).join(',')`;
  return `(type(${x}) == list ? '[' + ${body} + ']' : type(${x}) == map ? '{' + ${body} + '}' : ${scalar})`;
}
