/**
 * Field paths in the apiserver's own form: `webhooks[0].rules[1].operations`,
 * `metadata.labels[app]`. One path language for validation results, form
 * controls (`data-path`), YAML positions and the problems list.
 *
 * Built as you descend, like Kubernetes' field.Path:
 *   const p = fieldPath('webhooks').index(0).child('clientConfig', 'url');
 *   String(p) === 'webhooks[0].clientConfig.url'
 */
export interface FieldPath {
  /** `a.b` — one or more named children. */
  child(...names: string[]): FieldPath;
  /** `a[3]` — a list element. */
  index(i: number): FieldPath;
  /** `a[key]` — a map entry (rendered without quotes, as Kubernetes does). */
  key(k: string): FieldPath;
  /** The rendered path; the empty string is the object's root. */
  toString(): string;
}

function make(rendered: string): FieldPath {
  return {
    child: (...names) => make(names.reduce((acc, n) => (acc ? `${acc}.${n}` : n), rendered)),
    index: (i) => make(`${rendered}[${i}]`),
    key: (k) => make(`${rendered}[${k}]`),
    toString: () => rendered,
  };
}

/** The root path, or a path starting with the given children. */
export function fieldPath(...names: string[]): FieldPath {
  return make('').child(...names);
}

/** One step of a parsed path: a field name, a list index or a map key. */
export type PathSegment = string | number;

/**
 * Split a rendered path into segments: `webhooks[0].rules` → ['webhooks', 0, 'rules'],
 * `metadata.labels[app]` → ['metadata', 'labels', 'app']. A bracketed integer (`[0]`,
 * not `[007]`) is a list index; any other bracketed text is a map key. A map key ends at
 * the first `]` followed by `.`, `[` or the end, so keys may hold dots, slashes and
 * brackets (`[example.com/x]`, `[a[b]]`); only keys containing `].` or `][` are ambiguous,
 * as they are in Kubernetes' own rendering. formatPath (./path-format.ts) is the inverse.
 */
export function parsePath(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  let i = 0;
  while (i < path.length) {
    const ch = path[i];
    if (ch === '.') {
      i++;
    } else if (ch === '[') {
      let end = path.indexOf(']', i + 1);
      while (end >= 0 && end + 1 < path.length && path[end + 1] !== '.' && path[end + 1] !== '[') end = path.indexOf(']', end + 1);
      const inner = end < 0 ? path.slice(i + 1) : path.slice(i + 1, end);
      out.push(/^(0|[1-9]\d*)$/.test(inner) ? Number(inner) : inner);
      i = end < 0 ? path.length : end + 1;
    } else {
      let j = i;
      while (j < path.length && path[j] !== '.' && path[j] !== '[') j++;
      out.push(path.slice(i, j));
      i = j;
    }
  }
  return out;
}
