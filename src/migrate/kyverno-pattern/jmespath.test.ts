import { describe, expect, it } from 'vitest';
import { parseJmesPath } from './jmespath';

// The groupings go-jmespath's parser gives (its binding powers), on expressions of the kyverno/policies library.
describe('JMESPath as go-jmespath parses it', () => {
  const show = (src: string): string => {
    const s = (n: ReturnType<typeof parseJmesPath>): string => {
      switch (n.type) {
        case 'Field':
          return n.name;
        case 'Current':
          return '@';
        case 'Literal':
          return JSON.stringify(n.value);
        case 'Index':
          return `[${n.index}]`;
        case 'Not':
        case 'Flatten':
          return `${n.type}(${s(n.child)})`;
        case 'Filter':
          return `Filter(${s(n.left)}, ${s(n.condition)}, ${s(n.right)})`;
        case 'Comparator':
          return `(${s(n.left)} ${n.op} ${s(n.right)})`;
        case 'Function':
          return `${n.name}(${n.args.map(s).join(', ')})`;
        case 'MultiList':
          return `[${n.items.map(s).join(', ')}]`;
        case 'MultiHash':
          return `{${n.items.map(([k, i]) => `${k}: ${s(i)}`).join(', ')}}`;
        case 'Unsupported':
          return `?${n.what}`;
        default:
          return `${n.type}(${s(n.left)}, ${s(n.right)})`;
      }
    };
    return s(parseJmesPath(src));
  };
  it('groups projections, pipes, defaults and filters', () => {
    expect(show('request.object.spec.containers[] | length(@)')).toBe(
      'Pipe(Projection(Flatten(Sub(Sub(Sub(request, object), spec), containers)), @), length(@))',
    );
    expect(show("a.b || '' | length(@)")).toBe('Pipe(Or(Sub(a, b), ""), length(@))');
    expect(show('a.[b, c][].d.e[]')).toBe('Projection(Flatten(Projection(Flatten(Sub(a, [b, c])), Sub(d, e))), @)');
    expect(show("a[?x == 'y' || z].w")).toBe('Filter(a, Or((x == "y"), z), w)');
    expect(show('a.keys(@)[?contains(@, `1`)]')).toBe('Filter(Sub(a, keys(@)), contains(@, 1), @)');
    expect(show('a.b[0].c')).toBe('Sub(Sub(a, IndexExpression(b, [0])), c)');
    expect(show('a."x.y/z"')).toBe('Sub(a, x.y/z)');
    expect(() => parseJmesPath('a[0:2]')).toThrow(/slice/);
  });
  it('reads multi-select hashes (keys quoted or not) after a dot, a pipe or at the start', () => {
    expect(show('a.{x: b, "k/y": c.d}')).toBe('Sub(a, {x: b, k/y: Sub(c, d)})');
    expect(show('a | merge(@, {"kubernetes.io/metadata.name": null})')).toBe('Pipe(a, merge(@, {kubernetes.io/metadata.name: null}))');
    expect(() => parseJmesPath('{x: a')).toThrow(/expected/);
  });
});
