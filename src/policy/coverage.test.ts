/** Coverage of saved cases, on a small policy with counts checked by hand. */
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { evaluate, loadCel } from '../cel/index';
import { runCases } from './cases';
import { branchPoints, policyCoverage } from './coverage';
import type { PolicyTestCase } from '../request/model';

vi.setConfig({ testTimeout: 30_000 });
const hasWasm = existsSync(new URL('../../public/cel/cel.wasm', import.meta.url));
const cel = { evaluate };

const policy = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'replicas' },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] },
    validations: [
      { expression: "object.spec.replicas <= 5 || object.metadata.name.startsWith('big-')" },
      { expression: 'object.spec.replicas >= 0' },
    ],
  },
};
const binding = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'replicas-b' },
  spec: { policyName: 'replicas', validationActions: ['Deny'] },
};
const deployment = (name: string, replicas: number) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'default' }, spec: { replicas } });
const request = (object: unknown, resource = 'deployments') => ({
  operation: 'CREATE' as const,
  kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
  resource: { group: 'apps', version: 'v1', resource },
  namespace: 'default',
  name: 'x',
  object,
});
const kase = (name: string, outcome: 'admit' | 'deny', object: unknown, resource?: string): PolicyTestCase =>
  ({ name, input: { request: request(object, resource) }, expect: { outcome } }) as unknown as PolicyTestCase;

describe('branch points', () => {
  test('operands of && and ||, conditions of ?:', () => {
    const e = 'a && b || (c ? d : e)';
    const trace = [
      { start: 7, end: 9, from: 0, to: 21 },
      { start: 2, end: 4, from: 0, to: 6 },
      { start: 0, end: 1, from: 0, to: 1 },
      { start: 5, end: 6, from: 5, to: 6 },
      { start: 13, end: 14, from: 11, to: 20 },
      { start: 11, end: 12, from: 11, to: 12 },
      { start: 15, end: 16, from: 15, to: 16 },
      { start: 19, end: 20, from: 19, to: 20 },
    ].map((n) => ({ ...n, ran: true }));
    expect(branchPoints(e, trace).map((b) => [b.operator, e.slice(trace[b.node]!.from, trace[b.node]!.to)])).toEqual([
      ['||', 'a && b'],
      ['||', 'c ? d : e'],
      ['&&', 'a'],
      ['&&', 'b'],
      ['?:', 'c'],
    ]);
  });
});

describe.runIf(hasWasm)('policy coverage (real engine)', () => {
  beforeAll(async () => {
    await loadCel();
  }, 60_000);

  test('counts per validation, branches, nodes and findings', async () => {
    const cases = [kase('small', 'admit', deployment('web', 3)), kase('too big', 'deny', deployment('web', 9)), kase('other resource', 'admit', deployment('web', 1), 'replicasets')];
    const report = await runCases({ policy, bindings: [binding] }, cases, cel, { trace: true });
    const cov = policyCoverage(policy, report.results, cases);
    expect(cov.validations.map((v) => [v.true, v.false, v.error, v.notEvaluated])).toEqual([
      [1, 1, 0, 1],
      [2, 0, 0, 1],
    ]);
    // replicas <= 5: true (small), false (too big); startsWith: false (too big), never true.
    expect(cov.validations[0]!.branches.map((b) => [b.operator, b.true, b.false])).toEqual([
      ['||', 1, 1],
      ['||', 0, 1],
    ]);
    expect(cov.branches).toEqual({ covered: 3, total: 4 });
    expect(cov.validations[1]!.nodes.covered).toBe(cov.validations[1]!.nodes.total);
    expect(cov.findings).toEqual([expect.objectContaining({ code: 'allowed-unmatched', case: 'other resource' })]);
    expect(cov.summary).toBe('1 of 2 validations never failed in any case; 3 of 4 branches (75 %); 16 of 16 nodes (100 %)');
    const allowedOnly = policyCoverage(policy, (await runCases({ policy, bindings: [binding] }, [cases[0]!], cel, { trace: true })).results, [cases[0]!]);
    expect(allowedOnly.findings.map((f) => f.code)).toEqual(['never-denies']);
  });
});
