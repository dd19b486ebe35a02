/**
 * The CEL helpers the JMESPath encoding (jmespath-cel.ts) is written with: names bound once, the
 * logical elements of a flattened list kept nested, go-jmespath's falsy values and Go's DeepEqual.
 */

export class Names {
  private n = 0;
  next(p: string): string {
    return `${p}${this.n++}`;
  }
}

/** `[e].map(n, body)[0]`: names a value once. */
export const bind = (names: Names, e: string, body: (n: string) => string, prefix = 'j'): string => {
  const n = names.next(prefix);
  return `[${e}].map(${n}, ${body(n)})[0]`;
};

/** Logical elements of a depth-d list: CEL over each (as `map`, `exists`, `all`, `filter`). */
export function deep(names: Names, v: string, d: number, macro: 'map' | 'exists' | 'all' | 'filter', f: (e: string) => string): string {
  const n = names.next('e');
  if (d === 0) return `${v}.${macro}(${n}, ${f(n)})`;
  return `${v}.${macro === 'filter' ? 'map' : macro}(${n}, ${deep(names, n, d - 1, macro, f)})`;
}

/** The number of logical elements of a list value at depth d. */
export function deepSize(names: Names, v: string, d: number): string {
  if (d === 0) return `size(${v})`;
  const n = names.next('c');
  return `${v}.map(${n}, ${deepSize(names, n, d - 1)}).sum()`;
}

/** go-jmespath's isFalse, for a value at depth d (a depth-d value may still be a scalar at run time: an `||` default). */
export function isFalse(names: Names, v: string, d: number): string {
  const list = d === 0 ? `size(${v}) == 0` : `!${deep(names, v, d, 'exists', () => 'true')}`;
  return `(${v} == null || (type(${v}) == bool && !${v}) || (type(${v}) == string && ${v} == '') || (type(${v}) == list && ${list}) || (type(${v}) == map && size(${v}) == 0))`;
}

/** reflect.DeepEqual on two decoded JSON values: the same type and equal. */
export const deepEqual = (a: string, b: string) => `(type(${a}) == type(${b}) && ${a} == ${b})`;
