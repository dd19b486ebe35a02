/**
 * Lossless round trip of a maximal configuration: every field the registry knows, of
 * all six kinds, set, plus an unknown field in every object. Import → form edit →
 * export → parse gives back everything, and only the edit differs.
 */
import { describe, expect, it } from 'vitest';
import { apiVersionOf, KINDS, type Field } from '../k8s';
import { serializeDocuments } from '../yaml';
import { parseDocuments } from '../yaml';
import { exportDocs } from './export';
import { createWorkspace } from './workspace';

function sample(f: Field, depth: number): unknown {
  switch (f.type) {
    case 'string':
      return f.enum ? f.enum[f.enum.length - 1] : f.format === 'byte' ? 'Y2EtYnVuZGxl' : f.cel ? `object.metadata.name == '${f.name}'` : `${f.name}-value`;
    case 'integer':
      return f.maximum ? Math.min(f.maximum, 7) : 7;
    case 'boolean':
      return true;
    case 'stringList':
      return f.enum ? [...f.enum].slice(1) : [`${f.name}-a`, '', '*'];
    case 'stringMap':
      return { 'example.com/key': 'v', plain: '', 'needs quoting': 'on' };
    case 'object':
      return f.open ? { anything: { goes: [1, 'two', null] } } : maximal(f.fields, depth + 1);
    case 'list':
      return [maximal(f.item.fields, depth + 1), maximal(f.item.fields, depth + 1)];
  }
}

function maximal(fields: readonly Field[], depth: number): Record<string, unknown> {
  const o: Record<string, unknown> = Object.fromEntries(fields.map((f) => [f.name, sample(f, depth)]));
  o[`x-unknown-${depth}`] = { kept: true, n: 1.5, s: '0123' };
  return o;
}

const objects: Record<string, unknown>[] = KINDS.map((k) => ({ apiVersion: apiVersionOf(k), kind: k.kind, ...maximal(k.fields, 0) }));

describe('maximal round trip', () => {
  it('keeps every field of all six kinds through import, a form edit and export', () => {
    const ws = createWorkspace({ docs: [], selectedId: null });
    const ids = ws.getState().importText(serializeDocuments(objects), 'maximal.yaml');
    expect(ids).toHaveLength(6);
    ws.getState().setField(ids[0], ['metadata', 'labels', 'edited'], 'yes');
    const back = parseDocuments(exportDocs(ws.getState().docs).text).documents.map((d) => d.object);
    const expected = structuredClone(objects);
    (expected[0].metadata as { labels: Record<string, string> }).labels.edited = 'yes';
    expect(back).toEqual(expected);
  });

  it('also through JSON export', () => {
    const ws = createWorkspace({ docs: [], selectedId: null });
    ws.getState().importText(JSON.stringify(objects[4]), 'one.json');
    const back = JSON.parse(exportDocs(ws.getState().docs, { format: 'json' }).text);
    expect(back).toEqual(objects[4]);
  });
});
