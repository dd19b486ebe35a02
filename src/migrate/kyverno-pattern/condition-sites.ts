/**
 * Where the differential's mutants aim for a rule's conditions: each resource field a condition's
 * JMESPath reads (`request.object.a.b`, through projections `[]`, filters and multi-selects), as a
 * pattern naming the words the conditions compare with, and the keys `keys(…)` looks for.
 */
import { type JpNode, parseJmesPath } from './jmespath';

type Rec = Record<string, unknown>;
type Path = string[];
/** Where a variable other than `request` reads from (a foreach's `element`: its list's element path). */
export type Roots = Readonly<Record<string, Path>>;

/**
 * The fields `n` reads below `base` (null: not under request.object), and the path it ends at; `roots`:
 * where other variables (`element`) sit; `maps`: what `keys`/`values` read; `lists`: what `[]` flattens.
 */
function reads(n: JpNode, base: Path | null, out: Path[], maps: Path[], roots: Roots, lists: Path[]): Path | null {
  const under = (p: Path | null, ...more: string[]) => (p ? [...p, ...more] : null);
  switch (n.type) {
    case 'Field': {
      if (base === null && Object.hasOwn(roots, n.name)) {
        out.push(roots[n.name]);
        return roots[n.name];
      }
      if (base === null) return n.name === 'request' ? ['<request>'] : null;
      if (base.length === 1 && base[0] === '<request>') return n.name === 'object' || n.name === 'oldObject' ? [] : null;
      const p = [...base, n.name];
      out.push(p);
      return p;
    }
    case 'Current':
      return base;
    case 'Sub':
    case 'IndexExpression':
    case 'Pipe':
      return reads(n.right, reads(n.left, base, out, maps, roots, lists), out, maps, roots, lists);
    case 'Index':
      return under(base, '[]');
    case 'Flatten': {
      // the field flattened is a list: its elements are a site too (a leaf there decodes where the field's own may not)
      const p = under(reads(n.child, base, out, maps, roots, lists), '[]');
      if (p && p.length > 1 && !p.includes('<request>')) lists.push(p);
      return p;
    }
    case 'Projection':
    case 'Filter': {
      const l = reads(n.left, base, out, maps, roots, lists);
      const each = l && l[l.length - 1] === '[]' ? l : under(l, '[]');
      if (n.type === 'Filter') reads(n.condition, each, out, maps, roots, lists);
      return reads(n.right, each, out, maps, roots, lists);
    }
    case 'MultiList':
      for (const i of n.items) reads(i, base, out, maps, roots, lists);
      return null;
    case 'MultiHash':
      for (const [, i] of n.items) reads(i, base, out, maps, roots, lists);
      return null;
    case 'Or':
    case 'And':
    case 'Comparator':
      reads(n.left, base, out, maps, roots, lists);
      reads(n.right, base, out, maps, roots, lists);
      return null;
    case 'Not':
      reads(n.child, base, out, maps, roots, lists);
      return null;
    case 'Function': {
      const args = n.args.map((a) => reads(a, base, out, maps, roots, lists));
      if ((n.name === 'keys' || n.name === 'values') && args[0]) maps.push(args[0]);
      return n.name === 'keys' || n.name === 'values' ? under(args[0], '[]') : null;
    }
    default:
      return null;
  }
}

const words = (v: unknown): string[] => (typeof v === 'string' ? [v] : typeof v === 'number' ? [String(v)] : Array.isArray(v) ? v.flatMap(words) : []);

const literals = (n: unknown): string[] =>
  n && typeof n === 'object' ? Object.entries(n).flatMap(([k, v]) => (k === 'value' && typeof v === 'string' ? [v] : literals(v))) : [];

/** A text a simple regular expression matches (`^v[0-9].[0-9]$`: `v0.0`); none for groups or alternatives. */
function regexSample(re: string): string[] {
  const body = re.replace(/^\^/, '').replace(/\$$/, '');
  if (/[|()]|\[\^/.test(body)) return [];
  const tokens: string[] = [];
  for (const t of body.matchAll(/\\d|\\.|\[[^\]]*\]|[*+?]|\{\d+(?:,\d*)?\}|./g)) {
    const x = t[0];
    if (x === '*' || x === '?') tokens.pop();
    else if (x.startsWith('{')) tokens.push(...Array<string>(Math.max(0, Number(/\d+/.exec(x)?.[0]) - 1)).fill(tokens[tokens.length - 1] ?? ''));
    else if (x !== '+') tokens.push(x === '\\d' ? '0' : x.startsWith('\\') ? x[1] : x.startsWith('[') ? x[1] : x);
  }
  return [tokens.join('')];
}

/** Each resource field the conditions read, as a pattern (`{a: {b: 'w1|w2'}}`, `[]` as a list) naming the words they compare it to: where mutants aim. */
export function conditionSites(block: unknown, roots: Roots = {}): unknown[] {
  const b = (block ?? {}) as Rec;
  const list = (Array.isArray(block) ? block : [...((b.any as Rec[] | undefined) ?? []), ...((b.all as Rec[] | undefined) ?? [])]) as Rec[];
  return list.flatMap((c) => {
    const out: Path[] = [];
    const maps: Path[] = [];
    const lists: Path[] = [];
    // a text printing request.namespace: as the differential's objects in `default` read it
    const ws = [...words(c?.value), ...words(c?.key).filter((w) => !w.includes('{{'))].map((w) => w.replace(/\{\{\s*request\.namespace\s*\}\}/g, 'default'));
    for (const side of [c?.key, c?.value]) {
      if (typeof side !== 'string') continue;
      const m = /^\{\{\s*([\s\S]*?)\s*\}\}$/.exec(side);
      // variables inside a text or a query: each one's reads, and texts the patterns of regex_match hold
      const plain = m && !m[1].includes('{{');
      const queries = plain ? [m[1]] : [...side.matchAll(/\{\{((?:\{[^{}]*\}|[^{}])*)\}\}/g)].map((q) => q[1]);
      if (!plain) for (const r of side.matchAll(/regex_match\(\s*'([^']*)'/g)) ws.push(...regexSample(r[1]));
      for (const q of queries)
        try {
          const node = parseJmesPath(q.trim());
          reads(node, null, out, maps, roots, lists);
          ws.push(...literals(node));
        } catch {
          // not parsed: nothing to aim at
        }
    }
    const leaf = ws.filter((w) => !w.includes('{{') && !w.includes('|')).join('|') || 'x';
    const nest = (p: Path, at: unknown) => p.reduceRight<unknown>((acc, k) => (k === '[]' ? [acc] : { [k]: acc }), at);
    return [
      // only the deepest paths: a field read on the way down is a map (or list), not a leaf
      ...out
        .filter((p) => p.length > 0 && !p.includes('<request>') && !out.some((q) => q.length > p.length && p.every((k, i) => q[i] === k)))
        .map((p) => nest(p, leaf)),
      // a key looked for: a text there, or a map (a struct's field: `keys(@)` of a volume holding `emptyDir`)
      ...maps.flatMap((p) => ws.filter((w) => /^[A-Za-z][A-Za-z0-9./_-]*$/.test(w)).flatMap((w) => [nest([...p, w], 'x'), nest([...p, w], {})])),
      // a list flattened (`command[]`): its elements, beside the field itself (a field of a list type decodes only as a list)
      ...lists.filter((p) => !out.some((q) => q.length > p.length && p.every((k, i) => q[i] === k))).map((p) => nest(p, leaf)),
    ];
  });
}
