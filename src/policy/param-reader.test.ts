import { describe, expect, it } from 'vitest';
import { paramReader, resolveParams } from './params';

/** A small deterministic generator (the same cases every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const KINDS = [
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Secret' },
  { apiVersion: 'example.com/v1', kind: 'Limits' },
] as const;
const NAMES = ['limits', 'allow', 'other', 'x'];
const NAMESPACES = ['', 'a', 'b', 'params'];

function paramRef(r: () => number): unknown {
  const ref: Record<string, unknown> = {};
  const what = r();
  if (what < 0.55) ref.name = pick(r, NAMES);
  else if (what < 0.7) ref.selector = { matchLabels: { tier: pick(r, ['gold', 'silver']) } };
  else if (what < 0.8) Object.assign(ref, { name: pick(r, NAMES), selector: {} });
  else if (what < 0.9) ref.name = 7; // not a string: neither name nor selector
  if (r() < 0.4) ref.namespace = pick(r, NAMESPACES);
  if (r() < 0.5) ref.parameterNotFoundAction = pick(r, ['Deny', 'Allow']);
  return ref;
}

function doc(r: () => number): unknown {
  const k = pick(r, KINDS);
  const ns = pick(r, NAMESPACES);
  return { ...k, metadata: { name: pick(r, NAMES), ...(ns ? { namespace: ns } : {}), labels: { tier: pick(r, ['gold', 'silver']) } } };
}

describe('paramReader', () => {
  it('keeps every object resolveParams finds for the chain’s bindings (random policies, paramRefs, params and requests)', () => {
    let narrowed = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const r = rng(seed);
      const policies = Array.from({ length: 1 + Math.floor(r() * 3) }, (_, i) => ({
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: `p${i}` },
        spec: r() < 0.85 ? { paramKind: pick(r, KINDS) } : {},
      }));
      const bindings = Array.from({ length: 1 + Math.floor(r() * 3) }, (_, i) => ({
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: `b${i}` },
        spec: { policyName: pick(r, policies).metadata.name, ...(r() < 0.9 ? { paramRef: paramRef(r) } : {}) },
      }));
      const documents = Array.from({ length: Math.floor(r() * 30) }, () => doc(r));
      const read = paramReader([...policies, ...bindings]);
      const kept = documents.filter(read);
      if (kept.length < documents.length) narrowed++;
      for (const b of bindings) {
        const p = policies.find((x) => x.metadata.name === b.spec.policyName)!;
        for (const ns of NAMESPACES) {
          const all = resolveParams(p.spec, b.spec, ns, { paramDocuments: documents });
          const some = resolveParams(p.spec, b.spec, ns, { paramDocuments: kept });
          // the same params (the same objects), error and words
          expect(some).toEqual(all);
          expect(some.params.every((x, i) => x === all.params[i])).toBe(true);
        }
      }
    }
    // the cases narrow often enough to mean something
    expect(narrowed).toBeGreaterThan(100);
  });
});
