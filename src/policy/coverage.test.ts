/** Coverage of saved cases, on a small policy with counts checked by hand. */
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { evaluate, loadCel } from '../cel/index';
import { runCases } from './cases';
import { branchPoints, branchTaken, policyCoverage } from './coverage';
import type { PolicyTestCase } from '../request/model';
import type { CelTraceNode } from '../cel/types';

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
    validations: [{ expression: "object.spec.replicas <= 5 || object.metadata.name.startsWith('big-')" }, { expression: 'object.spec.replicas >= 0' }],
  },
};
const binding = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'replicas-b' },
  spec: { policyName: 'replicas', validationActions: ['Deny'] },
};
const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: { replicas },
});
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
    expect(branchPoints(e, trace as CelTraceNode[]).map((b) => [b.operator, e.slice(trace[b.node]!.from, trace[b.node]!.to)])).toEqual([
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
    const cases = [
      kase('small', 'admit', deployment('web', 3)),
      kase('too big', 'deny', deployment('web', 9)),
      kase('other resource', 'admit', deployment('web', 1), 'replicasets'),
    ];
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
    expect(cov.summary).toBe('1 of 2 validations fail in some case; 3 of 4 branches (75 %); 16 of 16 nodes (100 %)');
    expect(cov.validations.map((v) => v.field)).toEqual(['spec.validations[0].expression', 'spec.validations[1].expression']);
    expect(cov.expressions).toEqual([]);
    const allowedOnly = policyCoverage(policy, (await runCases({ policy, bindings: [binding] }, [cases[0]!], cel, { trace: true })).results, [cases[0]!]);
    expect(allowedOnly.findings.map((f) => f.code)).toEqual(['never-denies']);
  });
});

const container = (name: string, image = `registry.local/${name}`) => ({ name, image });
const workload = (name: string, containers: { name: string; image: string }[], spec: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: { ...spec, template: { spec: { containers } } },
});
/** Macros, a matchCondition, a variable and a messageExpression. */
const images = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'images' },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: policy.spec.matchConstraints,
    matchConditions: [{ name: 'not-system', expression: "!object.metadata.name.startsWith('system-')" }],
    variables: [{ name: 'images', expression: 'object.spec.template.spec.containers.map(c, c.image)' }],
    validations: [
      {
        expression: "variables.images.all(i, i.startsWith('registry.local/'))",
        messageExpression: "'bad images: ' + variables.images.filter(i, !i.startsWith('registry.local/')).join(', ')",
      },
      { expression: "object.spec.template.spec.containers.exists_one(c, c.name == 'main')" },
      { expression: '!has(object.spec.paused) || !object.spec.paused' },
    ],
  },
};
const imagesBinding = { ...binding, metadata: { name: 'images-b' }, spec: { policyName: 'images', validationActions: ['Deny'] } };

/** A MutatingAdmissionPolicy: a macro in its matchCondition, && and ?: in its mutation. */
const teamLabel = {
  apiVersion: 'admissionregistration.k8s.io/v1beta1',
  kind: 'MutatingAdmissionPolicy',
  metadata: { name: 'team-label' },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
    matchConditions: [{ name: 'no-mesh', expression: '!object.spec.containers.exists(c, c.name == "mesh")' }],
    mutations: [
      {
        patchType: 'ApplyConfiguration',
        applyConfiguration: {
          expression:
            'Object{metadata: Object.metadata{labels: {"team": has(object.metadata.labels) && "team" in object.metadata.labels ? object.metadata.labels["team"] : "none"}}}',
        },
      },
    ],
  },
};
const teamBinding = {
  apiVersion: 'admissionregistration.k8s.io/v1beta1',
  kind: 'MutatingAdmissionPolicyBinding',
  metadata: { name: 'team-b' },
  spec: { policyName: 'team-label' },
};
const podCase = (name: string, labels: Record<string, string> | undefined, containers: string[]): PolicyTestCase =>
  ({
    name,
    input: {
      request: {
        operation: 'CREATE',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        namespace: 'default',
        name,
        object: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
          spec: { containers: containers.map((c) => container(c)) },
        },
      },
    },
    expect: { outcome: 'admit' },
  }) as unknown as PolicyTestCase;

const byField = (cov: ReturnType<typeof policyCoverage>, field: string) => [...cov.validations, ...cov.expressions].find((e) => e.field === field)!;
const sides = (e: { branches: { operator: string; true: number; false: number }[] }) => e.branches.map((b) => [b.operator, b.true, b.false]);

describe.runIf(hasWasm)('coverage of macros, matchConditions, messageExpressions, variables and mutations (real engine)', () => {
  beforeAll(async () => {
    await loadCel();
  }, 60_000);

  test('a ValidatingAdmissionPolicy, counted by hand', async () => {
    const cases = [
      kase('good', 'admit', workload('web', [container('main')])),
      kase('bad image', 'deny', workload('web', [container('main'), container('side', 'docker.io/side')])),
      kase('system', 'skip' as 'admit', workload('system-web', [container('main')])),
    ];
    const report = await runCases({ policy: images, bindings: [imagesBinding] }, cases, cel, { trace: true });
    expect(report.results.map((r) => r.run.outcome)).toEqual(['admit', 'deny', 'skip']);
    const cov = policyCoverage(images, report.results, cases);
    // By hand. matchCondition: true in good and bad image, false in system (no branch point: `!` is not one).
    expect(byField(cov, 'spec.matchConditions[0].expression')).toMatchObject({ true: 2, false: 1, error: 0, notEvaluated: 0, branches: [] });
    // The variable: used, evaluated where the validations ran (good, bad image); map(c, f) has no predicate.
    expect(byField(cov, 'spec.variables[0].expression')).toMatchObject({ true: 0, false: 0, notEvaluated: 1, branches: [] });
    // validation 0, all(i, startsWith): good → true at its one image; bad image → true at
    // 'registry.local/main', then false at 'docker.io/side': true in both cases, false in one.
    expect(cov.validations.map((v) => [v.true, v.false, v.error, v.notEvaluated])).toEqual([
      [1, 1, 0, 1],
      [2, 0, 0, 1],
      [2, 0, 0, 1],
    ]);
    expect(sides(cov.validations[0]!)).toEqual([['all', 2, 1]]);
    // messageExpression (evaluated for every validation, as the apiserver's message filter does):
    // filter(i, !startsWith): good keeps 0 of 1 (false); bad image keeps 1 of 2 (true and false).
    expect(sides(byField(cov, 'spec.validations[0].messageExpression'))).toEqual([['filter', 1, 2]]);
    // validation 1, exists_one(c, c.name == 'main'): good counts 1 of 1 (true); bad image 1 of 2 (true and false).
    expect(sides(cov.validations[1]!)).toEqual([['exists_one', 2, 1]]);
    // validation 2: !has(paused) true in both (left true twice, never false); the right operand never ran.
    expect(sides(cov.validations[2]!)).toEqual([
      ['||', 2, 0],
      ['||', 0, 0],
    ]);
    // the right operand's nodes never ran: `!_`, object.spec.paused, object.spec, object
    expect(cov.validations[2]!.nodes.total - cov.validations[2]!.nodes.covered).toBe(4);
    // branch sides: all 2/2, filter 2/2, exists_one 2/2, || 1/4 → 7 of 10
    expect(cov.branches).toEqual({ covered: 7, total: 10 });
    expect(cov.summary).toMatch(/^1 of 3 validations fail in some case; 7 of 10 branches \(70 %\); /);
    expect(cov.findings).toEqual([]);
  });

  test('a MutatingAdmissionPolicy, counted by hand', async () => {
    const cases = [podCase('labelled', { team: 'a' }, ['app']), podCase('unlabelled', undefined, ['app']), podCase('mesh', undefined, ['app', 'mesh'])];
    const report = await runCases({ policy: teamLabel, bindings: [teamBinding] }, cases, cel, { trace: true });
    expect(report.results.map((r) => r.run.outcome)).toEqual(['admit', 'admit', 'skip']);
    const cov = policyCoverage(teamLabel, report.results, cases);
    expect(cov.kind).toBe('MutatingAdmissionPolicy');
    expect(cov.validations).toEqual([]);
    // exists(c, c.name == "mesh"): false over [app] twice; in mesh false at app, then true at mesh.
    expect(sides(byField(cov, 'spec.matchConditions[0].expression'))).toEqual([['exists', 1, 3]]);
    // ?: condition true (labelled), false (unlabelled); && left: has() true, false; right: `in` true only.
    const m = byField(cov, 'spec.mutations[0].applyConfiguration.expression');
    expect(m).toMatchObject({ notEvaluated: 1, error: 0 });
    expect(sides(m).sort()).toEqual([
      ['&&', 1, 0],
      ['&&', 1, 1],
      ['?:', 1, 1],
    ]);
    expect(cov.branches).toEqual({ covered: 7, total: 8 });
    // mesh expects admit but the policy did not apply: it cannot catch anything
    expect(cov.findings.map((f) => [f.code, f.case])).toEqual([['allowed-unmatched', 'mesh']]);
    expect(cov.summary).toMatch(/^7 of 8 branches \(87 %\); /);
  });

  test('runs of other kinds count as cases (extra)', async () => {
    const cases = [kase('good', 'admit', workload('web', [container('main')]))];
    const report = await runCases({ policy: images, bindings: [imagesBinding] }, cases, cel, { trace: true });
    const r = await evaluate('!has(object.spec.paused) || !object.spec.paused', 'vap-validation', { object: { spec: { paused: true } } }, { trace: true });
    const cov = policyCoverage(images, report.results, cases, [
      { name: 'CEL case', samples: [{ field: 'spec.validations[2].expression', outcome: 'false', trace: r.trace }] },
    ]);
    expect(cov.cases).toBe(2);
    expect(cov.validations[2]).toMatchObject({ true: 1, false: 1, notEvaluated: 0 });
    expect(sides(cov.validations[2]!)).toEqual([
      ['||', 1, 1],
      ['||', 0, 1],
    ]);
  });

  test('macro predicates: both sides of every iteration (the engine counts them, not only the last)', async () => {
    const sidesOf = async (e: string) => {
      const r = await evaluate(e, 'vap-variable', {}, { trace: true });
      return branchPoints(e, r.trace!).map((p) => [p.operator, e.slice(r.trace![p.node]!.from, r.trace![p.node]!.to), branchTaken(p, r.trace!)]);
    };
    expect(await sidesOf('[1, 2, 3].map(x, x > 1, x * 2)')).toEqual([['map', 'x > 1', { true: true, false: true }]]);
    expect(await sidesOf('[1, 2, 3].map(x, x * 2)')).toEqual([]);
    expect(await sidesOf('[1, 2, 3].all(x, x > 0)')).toEqual([['all', 'x > 0', { true: true, false: false }]]);
    // true at the first element, false at the second (cel-go's state keeps only that last value)
    expect(await sidesOf('[1, 2, 3].all(x, x < 2)')).toEqual([['all', 'x < 2', { true: true, false: true }]]);
    expect(await sidesOf('[1, 2, 3].exists(x, x == 2)')).toEqual([['exists', 'x == 2', { true: true, false: true }]]);
    // nested: the inner predicate over every outer element; && operands inside a body likewise
    expect(await sidesOf('[[1], [2, 3]].all(l, l.exists(y, y == 1))')).toEqual([
      ['all', 'l.exists(y, y == 1)', { true: true, false: true }],
      ['exists', 'y == 1', { true: true, false: true }],
    ]);
    expect(await sidesOf('[1, 2].all(x, x > 0 && x < 2)')).toEqual([
      ['all', 'x > 0 && x < 2', { true: true, false: true }],
      ['&&', 'x > 0', { true: true, false: false }],
      ['&&', 'x < 2', { true: true, false: true }],
    ]);
    expect(await sidesOf('[1, 2, 3].exists(x, x > 5)')).toEqual([['exists', 'x > 5', { true: false, false: true }]]);
    expect(await sidesOf('[].exists(x, x > 5)')).toEqual([['exists', 'x > 5', { true: false, false: false }]]);
    expect(await sidesOf('{"a": 1, "b": 2}.filter(k, k == "a")')).toEqual([['filter', 'k == "a"', { true: true, false: true }]]);
    expect(await sidesOf('[1, 2].exists_one(x, (x == 3))')).toEqual([['exists_one', 'x == 3', { true: false, false: true }]]);
    // the two-variable macros (index i, value v) and transformList's filter
    expect(await sidesOf('[5, 6].existsOne(i, v, v > i + 5)')).toEqual([['existsOne', 'v > i + 5', { true: false, false: true }]]);
    expect(await sidesOf('[6, 7].all(i, v, v > i + 5)')).toEqual([['all', 'v > i + 5', { true: true, false: false }]]);
    expect(await sidesOf('[5, 6].transformList(i, v, v > 5, v * 2)')).toEqual([['transformList', 'v > 5', { true: true, false: true }]]);
    expect(await sidesOf('[5, 6].transformList(i, v, v * 2)')).toEqual([]);
  });
});
