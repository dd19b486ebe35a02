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

/** Namespaces the generated params are in: a few, or many (the index folds its changed namespaces past √ of them). */
let namespaces = 5;

function doc(r: () => number, n: number): unknown {
  if (r() < 0.1) return { kind: 'ValidatingAdmissionPolicy', metadata: { name: `p${n}` } };
  const [apiVersion, kind] = KINDS[Math.floor(r() * KINDS.length)]!;
  const ns = r() < 0.2 ? undefined : `ns${Math.floor(r() * namespaces)}`;
  // names repeat within a namespace: the first in document order must stay the first
  return { apiVersion, kind, metadata: { name: `n${Math.floor(r() * 4)}`, ...(ns ? { namespace: ns } : {}) } };
}

const NAMESPACES = () => ['', ...Array.from({ length: namespaces }, (_, i) => `ns${i}`)];

/** What resolveParams reads of every kind, for a list: from the index, and as a filter of the list would give it. */
function readAll(documents: readonly unknown[]) {
  return KINDS.map(([apiVersion, kind]) => {
    const c = paramCandidates(apiVersion, kind, documents);
    return {
      all: c.all,
      namespaced: c.namespaced,
      byNamespace: NAMESPACES().map((ns) => c.inNamespace(ns) ?? []),
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
      byNamespace: NAMESPACES().map((ns) => all.filter((d) => nsOf(d) === ns)),
    };
  });
}

describe('paramCandidates', () => {
  it('derives a changed list’s index from the one before as a full build gives it (replaced, appended, removed, inserted objects)', () => {
    for (let seed = 1; seed <= 60; seed++) {
      namespaces = seed <= 30 ? 5 : 40;
      const r = rng(seed);
      let n = 0;
      let list: unknown[] = Array.from({ length: 40 }, () => doc(r, n++));
      expect(readAll(list)).toEqual(expected(list));
      const history = [list];
      for (let step = 0; step < 60; step++) {
        // mostly a change of the newest list; sometimes of one a few changes back
        if (r() < 0.2) list = history[Math.max(0, history.length - 1 - Math.floor(r() * 4))]!;
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
        // some names looked up (those of earlier lists carried over a change, the others looked for)
        for (const [apiVersion, kind] of KINDS) {
          const c = paramCandidates(apiVersion, kind, next);
          for (const name of ['n0', 'n1', 'n2', 'n3', 'n4'].filter(() => r() < 0.5))
            for (const ns of [undefined, '', 'ns0', 'ns1', 'ns4', 'ns39'])
              expect(c.first(name, ns)).toBe(
                (ns === undefined ? c.all : (c.inNamespace(ns) ?? [])).find((d) => (d as { metadata: { name: string } }).metadata.name === name),
              );
        }
        list = next;
        history.push(next);
        // an index made some changes ago is read as it was (through the newer ones, or with the root moved back to it)
        const earlier = history[Math.max(0, history.length - 1 - Math.floor(r() * 40))]!;
        expect(readAll(earlier)).toEqual(expected(earlier));
      }
    }
  });
});
