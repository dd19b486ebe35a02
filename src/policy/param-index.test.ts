import { describe, expect, it } from 'vitest';
import { noteSplice, splice } from '../base/splice';
import { paramCandidates } from './param-index';

/** A small deterministic generator (the same lists every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const KINDS = [
  ['v1', 'ConfigMap'],
  ['example.com/v1', 'Limits'],
  ['v1', 'Secret'],
] as const;

function doc(r: () => number, n: number): unknown {
  if (r() < 0.1) return { kind: 'ValidatingAdmissionPolicy', metadata: { name: `p${n}` } };
  const [apiVersion, kind] = KINDS[Math.floor(r() * KINDS.length)]!;
  const ns = r() < 0.2 ? undefined : `ns${Math.floor(r() * 5)}`;
  // names repeat within a namespace: the first in document order must stay the first
  return { apiVersion, kind, metadata: { name: `n${Math.floor(r() * 4)}`, ...(ns ? { namespace: ns } : {}) } };
}

/** What resolveParams reads of every kind, for a list: from the index, and as a filter of the list would give it. */
function readAll(documents: readonly unknown[]) {
  return KINDS.map(([apiVersion, kind]) => {
    const c = paramCandidates(apiVersion, kind, documents);
    return {
      all: c.all,
      namespaced: c.namespaced,
      byNamespace: ['', 'ns0', 'ns1', 'ns2', 'ns3', 'ns4'].map((ns) => c.inNamespace(ns) ?? []),
    };
  });
}

function expected(documents: readonly unknown[]) {
  return KINDS.map(([apiVersion, kind]) => {
    const all = documents.filter((d) => (d as { apiVersion?: string }).apiVersion === apiVersion && (d as { kind?: string }).kind === kind);
    const nsOf = (d: unknown) => (d as { metadata: { namespace?: string } }).metadata.namespace ?? '';
    return {
      all,
      namespaced: all.some((d) => nsOf(d) !== ''),
      byNamespace: ['', 'ns0', 'ns1', 'ns2', 'ns3', 'ns4'].map((ns) => all.filter((d) => nsOf(d) === ns)),
    };
  });
}

describe('paramCandidates', () => {
  it('derives a changed list’s index from the one before as a full build gives it (replaced, appended, removed, inserted objects)', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const r = rng(seed);
      let n = 0;
      let list: unknown[] = Array.from({ length: 40 }, () => doc(r, n++));
      expect(readAll(list)).toEqual(expected(list));
      for (let step = 0; step < 60; step++) {
        const next = [...list];
        const at = Math.floor(r() * next.length);
        const what = r();
        if (what < 0.4) next[at] = doc(r, n++);
        else if (what < 0.6) next.push(doc(r, n++));
        else if (what < 0.8) next.splice(at, 1);
        else next.splice(at, Math.floor(r() * 3), doc(r, n++), doc(r, n++));
        if (r() < 0.1) next.length = 0;
        // as the impact replay's chains say how they were made (base/splice.ts): sometimes, and not always the least that changed
        if (r() < 0.5) {
          const least = splice(list, next);
          const keep = Math.max(0, least.keep - Math.floor(r() * 3));
          noteSplice(next, list, keep, next.length === list.length || r() < 0.5 ? Math.max(0, least.tail - Math.floor(r() * 3)) : least.tail);
        }
        // the same objects, read in both lists' index order
        expect(readAll(next)).toEqual(expected(next));
        list = next;
      }
    }
  });
});
