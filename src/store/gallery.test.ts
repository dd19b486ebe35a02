/**
 * Every gallery entry opens as documents that a Kubernetes apiserver at the default release
 * accepts (validation with the real CEL engine), and the cases it saves on its policies pass
 * through the real policy runner (src/policy), as the policy test panel runs them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createSyncCompiler, loadCel } from '../cel/index';
import { kindSpecOf } from '../k8s/registry';
import { validate } from '../k8s/validate-all';
import { GALLERY, openGalleryEntry } from './gallery';
import { runPolicyCases } from './policy-run';
import { createTestInputs } from './test-inputs';
import { createWorkspace } from './workspace';

describe('policy gallery', () => {
  beforeAll(async () => {
    await loadCel();
  }, 60_000);

  it('has entries with distinct ids, a page of the Kubernetes documentation each, and cases for every policy', () => {
    expect(GALLERY.length).toBeGreaterThanOrEqual(5);
    expect(new Set(GALLERY.map((e) => e.id)).size).toBe(GALLERY.length);
    for (const e of GALLERY) {
      expect(e.source, e.id).toMatch(/^https:\/\/kubernetes\.io\/docs\//);
      expect(e.yaml, e.id).toContain(e.source);
      expect(Object.values(e.cases).flat().length, e.id).toBeGreaterThanOrEqual(2);
    }
  });

  for (const entry of GALLERY)
    it(`${entry.id}: its documents validate without errors and its saved cases pass`, async () => {
      const ws = createWorkspace({ docs: [], selectedId: null });
      const tests = createTestInputs();
      const ids = openGalleryEntry(entry, ws, tests);
      const docs = ws.getState().docs;
      expect(docs.map((d) => d.id)).toEqual(ids);
      expect(docs.filter((d) => d.error).map((d) => d.error)).toEqual([]);
      const cel = createSyncCompiler();
      const errors = docs
        .filter((d) => kindSpecOf(d.object))
        .flatMap((d) => validate(d.object, { cel }).map((e) => `${String((d.object as { kind: string }).kind)}: ${e.field}: ${e.message}`));
      expect(errors).toEqual([]);

      const withCases = docs.filter((d) => tests.getState().docs[d.id]?.policyCases.length);
      expect(withCases.length).toBe(Object.keys(entry.cases).length);
      expect(ws.getState().selectedId).toBe(withCases[0]!.id);
      for (const policy of withCases) {
        const cases = tests.getState().docs[policy.id]!.policyCases;
        const report = await runPolicyCases(policy, docs, cases);
        expect(report.results.filter((r) => !r.pass).map((r) => `${r.name}: ${r.failures.join('; ')}`)).toEqual([]);
        expect(report.summary.passed).toBe(cases.length);
      }
    });
});
