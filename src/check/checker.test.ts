/**
 * The memoised checker gives what a from-scratch run gives, after any edit anywhere: the
 * lints' cache key is what their rules declare they read (reads.ts), so findings across
 * documents (G03, G04, P01, P02, P07, P15) follow edits of other documents.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../base/random';
import { checkObject, createChecker } from '.';
import { binding, checkedData as data, map, mwc, randomDoc, rules, vap } from './test-helpers';

const ids = (lints: readonly { id: string }[]) => lints.map((l) => l.id).sort();

describe('cross-document findings follow edits of other documents', () => {
  it('G03: a ValidatingAdmissionPolicy loses it when the overlapping MAP moves to other resources', () => {
    const checker = createChecker();
    const v = vap('v');
    const before = [v, map('m', ['pods'])];
    expect(ids(checker.check(v, before).lints)).toContain('G03');
    const after = [v, map('m', ['configmaps'])];
    expect(ids(checker.check(v, after).lints)).not.toContain('G03');
    expect(data(v, after, checker.check(v, after))).toEqual(data(v, after, checkObject(v, after)));
  });

  it('G04: a MutatingAdmissionPolicy gets it when a mutating webhook starts covering its resources', () => {
    const checker = createChecker();
    const m = map('m', ['pods']);
    expect(ids(checker.check(m, [m, mwc('h', ['configmaps'])]).lints)).not.toContain('G04');
    expect(ids(checker.check(m, [m, mwc('h', ['pods'])]).lints)).toContain('G04');
  });

  it('P15: a binding gets it when its policy widens to pods, and loses it when the policy excludes kube-system', () => {
    const checker = createChecker();
    const b = binding('ValidatingAdmissionPolicyBinding', 'b', 'v');
    expect(ids(checker.check(b, [b, vap('v', ['configmaps'])]).lints)).not.toContain('P15');
    expect(ids(checker.check(b, [b, vap('v', ['pods'])]).lints)).toContain('P15');
    const excluded = vap('v', ['pods']);
    excluded.spec.matchConstraints = {
      resourceRules: rules(['pods']),
      namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] },
    } as never;
    expect(ids(checker.check(b, [b, excluded]).lints)).not.toContain('P15');
  });

  it('an edit that changes nothing a rule reads keeps the memoised findings', () => {
    const checker = createChecker();
    const v = vap('v');
    const first = checker.check(v, [v, map('m'), mwc('h')]).lints;
    // the webhook configuration is read by no VAP rule; the MAP's mutations are not read by G03
    const other = map('m');
    other.spec.mutations = [];
    expect(checker.check(v, [v, other, mwc('h2', ['secrets'])]).lints).toBe(first);
  });
});

describe('freshness (property): incremental results equal a from-scratch run after every edit', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('seed %i: 150 random edits across 6 documents', (seed) => {
    const r = seededRandom(seed); // seeded: a failure reproduces
    const checker = createChecker();
    let docs: unknown[] = Array.from({ length: 6 }, () => randomDoc(r));
    for (let step = 0; step < 150; step++) {
      const i = Math.floor(r() * docs.length);
      docs = docs.slice();
      docs[i] = randomDoc(r); // replace one document (new kind, name, scope or params)
      for (const o of docs) {
        const incremental = checker.check(o, docs, { kubernetesVersion: '1.36' });
        const fresh = checkObject(o, docs, { kubernetesVersion: '1.36' });
        expect({ step, ...(data(o, docs, incremental) as object) }).toEqual({ step, ...(data(o, docs, fresh) as object) });
      }
    }
  });
});
