/**
 * Where the differential's mutants aim for a `validate.foreach` rule: each entry's list elements
 * (paths from its JMESPath list, multi-selects `spec.[a, b][]`, projections and filters included)
 * with the entry's pattern, anyPattern, and the fields its deny conditions and preconditions read
 * through `element`, nested foreach entries below their element. The patterns are rooted at the
 * object, lists as one-element lists, so the mutants empty, grow and change the lists' elements.
 */
import { type Roots, conditionSites } from './condition-sites';
import { type JpNode, parseJmesPath } from './jmespath';

type Rec = Record<string, unknown>;
type Path = string[];

/** The path of the value `n` yields from `base` (null: not one path of the object). */
function pathOfValue(n: JpNode, base: Path | null, roots: Roots): Path | null {
  switch (n.type) {
    case 'Field':
      if (base === null) return Object.hasOwn(roots, n.name) ? roots[n.name] : n.name === 'request' ? ['<request>'] : null;
      if (base.length === 1 && base[0] === '<request>') return n.name === 'object' ? [] : null;
      return [...base, n.name];
    case 'Current':
      return base;
    case 'Index':
      return base ? [...base, '[]'] : null;
    case 'Sub':
    case 'IndexExpression':
      return pathOfValue(n.right, pathOfValue(n.left, base, roots), roots);
    default:
      return null;
  }
}

/** The paths of the elements of the list `n` yields from `base` ('[]' for any element). */
function elementsOf(n: JpNode, base: Path | null, roots: Roots): Path[] {
  switch (n.type) {
    case 'MultiList':
      // a list of the items' values
      return n.items.flatMap((i) => {
        const v = pathOfValue(i, base, roots);
        return v ? [v] : [];
      });
    case 'Flatten': {
      // a plain list keeps its (map) elements; a list of lists spreads them
      const plain = pathOfValue(n.child, base, roots);
      return plain ? [[...plain, '[]']] : elementsOf(n.child, base, roots).map((e) => [...e, '[]']);
    }
    case 'Projection':
    case 'Filter':
      return elementsOf(n.left, base, roots).flatMap((e) => {
        const v = pathOfValue(n.right, e, roots);
        return v ? [v] : [];
      });
    case 'Sub':
      if (['MultiList', 'Projection', 'Filter', 'Flatten'].includes(n.right.type)) return elementsOf(n.right, pathOfValue(n.left, base, roots), roots);
      break;
    default:
      break;
  }
  const v = pathOfValue(n, base, roots);
  return v ? [[...v, '[]']] : [];
}

const nestAt = (p: Path, at: unknown) => p.reduceRight<unknown>((acc, k) => (k === '[]' ? [acc] : { [k]: acc }), at);

/** The mutants' target patterns (rooted at the object) for a foreach's entries; `roots` binds outer elements. */
export function foreachSites(foreach: unknown, roots: Roots = {}, nesting = 0): unknown[] {
  if (!Array.isArray(foreach)) return [];
  return foreach.flatMap((entry) => {
    const f = (entry ?? {}) as Rec;
    let elements: Path[] = [];
    try {
      elements = typeof f.list === 'string' ? elementsOf(parseJmesPath(f.list), null, roots).filter((p) => !p.includes('<request>')) : [];
    } catch {
      // a list not parsed: nothing to aim at
    }
    return elements.flatMap((e) => {
      const inner: Roots = { ...roots, element: e, [`element${nesting}`]: e };
      const patterns = [f.pattern, ...(Array.isArray(f.anyPattern) ? f.anyPattern : [])].filter((p) => p !== undefined);
      return [
        ...patterns.map((p) => nestAt(e, p)),
        nestAt(e, {}),
        ...conditionSites((f.deny as Rec | null | undefined)?.conditions, inner),
        ...conditionSites(f.preconditions, inner),
        ...foreachSites(f.foreach, inner, nesting + 1),
      ];
    });
  });
}
