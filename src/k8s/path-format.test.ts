/** formatPath is the exact inverse of parsePath over every path of the field registry. */
import { describe, expect, it } from 'vitest';
import { fieldPath, parsePath, type FieldPath, type PathSegment } from '../base/path';
import { formatPath, MAP_FIELD_NAMES } from '../base/path-format';
import { KINDS } from './registry/kinds';
import type { Field } from './registry/types';

/** Map keys as users write them: dots, slashes, brackets, spaces, digits, unicode, empty. */
const KEYS = ['app', 'app.kubernetes.io/name', 'example.com/x', 'a[b]', 'x]y', '[z', 'a]', 'with space', 'ünï', '007', '0', '12', '', 'a.b.c', '-', 'labels'];

interface Sample {
  segments: PathSegment[];
  rendered: string;
}

/** Every path of the registry: fields, list elements 0 and 3, map entries with each key. */
function registryPaths(): Sample[] {
  const out: Sample[] = [];
  const walk = (fields: readonly Field[], segments: PathSegment[], path: FieldPath): void => {
    for (const f of fields) {
      const segs = [...segments, f.name];
      const p = path.child(f.name);
      out.push({ segments: segs, rendered: String(p) });
      if (f.type === 'object') walk(f.fields, segs, p);
      else if (f.type === 'list' || f.type === 'stringList') {
        for (const i of [0, 3]) {
          out.push({ segments: [...segs, i], rendered: String(p.index(i)) });
          if (f.type === 'list') walk(f.item.fields, [...segs, i], p.index(i));
        }
      } else if (f.type === 'stringMap') {
        for (const k of KEYS) out.push({ segments: [...segs, k], rendered: String(p.key(k)) });
      }
    }
  };
  for (const k of KINDS) walk(k.fields, [], fieldPath());
  // A v1 List wraps objects: items[i]. prefixes every path.
  return [...out, ...out.slice(0, 200).map((s) => ({ segments: ['items', 2, ...s.segments], rendered: `items[2].${s.rendered}` }))];
}

describe('formatPath ∘ parsePath', () => {
  const samples = registryPaths();
  it('covers the registry (every kind, map fields included)', () => {
    expect(samples.length).toBeGreaterThan(1000);
  });
  it("MAP_FIELD_NAMES is exactly the registry's stringMap fields", () => {
    const names = new Set<string>();
    const walk = (fields: readonly Field[]): void => {
      for (const f of fields) {
        if (f.type === 'stringMap') names.add(f.name);
        else if (f.type === 'object') walk(f.fields);
        else if (f.type === 'list') walk(f.item.fields);
      }
    };
    for (const k of KINDS) walk(k.fields);
    expect([...MAP_FIELD_NAMES].sort()).toEqual([...names].sort());
  });
  it('renders every registry path back to the same text', () => {
    const wrong = samples.filter((s) => formatPath(parsePath(s.rendered)) !== s.rendered).map((s) => s.rendered);
    expect(wrong).toEqual([]);
  });
  it('parses every registry path to its segments and renders the segments to the path', () => {
    // A map key that is a canonical integer ('0', '12') reads back as a number: the text is the same.
    const integerKey = (s: Sample) => typeof s.segments.at(-1) === 'string' && /^(0|[1-9]\d*)$/.test(s.segments.at(-1) as string);
    const wrong = samples
      .filter((s) => !integerKey(s))
      .filter((s) => JSON.stringify(parsePath(s.rendered)) !== JSON.stringify(s.segments) || formatPath(s.segments) !== s.rendered);
    expect(wrong.map((s) => s.rendered)).toEqual([]);
  });
  it('examples', () => {
    expect(parsePath('metadata.labels[app]')).toEqual(['metadata', 'labels', 'app']);
    expect(formatPath(['metadata', 'labels', 'app'])).toBe('metadata.labels[app]');
    expect(parsePath('metadata.annotations[a[b]]')).toEqual(['metadata', 'annotations', 'a[b]']);
    expect(parsePath('metadata.annotations[x]y].z')).toEqual(['metadata', 'annotations', 'x]y', 'z']);
    expect(parsePath('webhooks[007]')).toEqual(['webhooks', '007']);
    expect(formatPath(['spec', 'params', 'example.com/x'])).toBe('spec.params[example.com/x]');
    expect(formatPath(['webhooks', 0, 'namespaceSelector', 'matchLabels', 'team'])).toBe('webhooks[0].namespaceSelector.matchLabels[team]');
    expect(formatPath([])).toBe('');
  });
});
