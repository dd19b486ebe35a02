/**
 * The object CEL sees is the one the apiserver builds (src/k8s/typed apiserverObject), on every
 * path: the Kyverno policy library's Role/ClusterRole checks (`object.rules == null || …`) on
 * objects created with `rules: null` — kept null by the typed Role, whose `rules` has no
 * omitempty, so the real apiserver allows them — through the simulator, the policy runner and
 * the CEL editor's inputs. fixtures/kyverno-rules-null.json: the 18 such cases of the external
 * policy suites, each with the kube-apiserver 1.36 admission plugins' own answer (`apiserverResult`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluate } from '../cel';
import { useEngine } from '../cel/test-helpers';
import { loadTypedData } from '../k8s/typed';
import { runValidatingPolicy } from '../policy';
import { admittedInput, toCelInputs, type AdmissionRequest } from '../request';
import { simulate } from './index';

interface KyvernoCase {
  id: string;
  policies: { kind: string; spec: { validations: { expression: string }[] } }[];
  namespace?: unknown;
  request: AdmissionRequest;
  expect: { allowed: boolean };
  apiserverResult: { allowed: boolean };
}

const cases = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'kyverno-rules-null.json'), 'utf8')) as KyvernoCase[];

useEngine();
beforeAll(() => loadTypedData('1.36'));

describe("rules: null reaches CEL as null (the Kyverno library's Role and ClusterRole policies)", () => {
  it('the fixture: 18 cases, each allowed by the apiserver', () => {
    expect(cases).toHaveLength(18);
    for (const c of cases) expect([c.expect.allowed, c.apiserverResult.allowed, (c.request.object as { rules: unknown }).rules]).toEqual([true, true, null]);
  });

  it.each(cases.map((c) => [c.id.split('/').slice(2).join('/'), c] as const))('simulate: %s', async (_, c) => {
    const r = await simulate([...c.policies, ...(c.namespace ? [c.namespace] : [])], { ...c.request, dryRun: false }, { kubernetesVersion: '1.36' });
    expect(r.deniedBy?.message).toBeUndefined();
    expect(r.allowed).toBe(true);
  });

  it.each(cases.map((c) => [c.id.split('/').slice(2).join('/'), c] as const))('the policy runner: %s', async (_, c) => {
    const [policy, ...bindings] = c.policies;
    const r = await runValidatingPolicy({ request: c.request, namespaceObject: c.namespace, policy, bindings, kubernetesVersion: '1.36' }, { evaluate });
    expect(r.errors).toEqual([]);
    expect(r.decision.allowed).toBe(true);
  });

  it("the CEL editor's inputs: the validation is true on the decoded object, an error on the object as typed", async () => {
    const c = cases[0]!;
    const expression = c.policies[0]!.spec.validations[0]!.expression;
    const decoded = await evaluate(expression, 'vap-validation', toCelInputs(await admittedInput({ request: c.request, kubernetesVersion: '1.36' })));
    expect(decoded).toMatchObject({ ok: true, value: true });
    const raw = { ...c.request, object: { ...(c.request.object as object), rules: undefined } };
    const asTyped = await evaluate(expression, 'vap-validation', toCelInputs({ request: raw }));
    expect(asTyped).toMatchObject({ ok: false });
  });
});
