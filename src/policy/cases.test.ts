import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { evaluate, loadCel } from '../cel/index';
import { parseDocuments } from '../yaml/index';
import { runCases, toKaptestManifest, type CaseTarget, type PolicyTestCase } from './cases';
import * as fx from './fixtures/vap';
import * as mfx from './fixtures/map';

vi.setConfig({ testTimeout: 30_000 });
const hasWasm = existsSync(new URL('../../public/cel/cel.wasm', import.meta.url));
const cel = { evaluate };

const target: CaseTarget = {
  policy: fx.replicaLimitPolicy,
  bindings: [fx.replicaLimitBindingTest, fx.replicaLimitBindingProd],
  paramDocuments: [fx.replicaLimitTest, fx.replicaLimitProd],
};
const testNs = fx.namespace('default', { environment: 'test' });
const prodNs = fx.namespace('default', { environment: 'prod' });
const denyMessage =
  "ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'replicalimit-binding-test.example.com' denied request: failed expression: object.spec.replicas <= params.maxReplicas";

const cases: PolicyTestCase[] = [
  {
    name: 'test: 3 replicas',
    input: { request: { ...fx.deploymentRequest('a', 'default'), object: fx.deployment('a', 'default', 3) }, namespaceObject: testNs },
    expect: { outcome: 'admit' },
  },
  {
    name: 'test: 4 replicas',
    input: { request: { ...fx.deploymentRequest('a', 'default'), object: fx.deployment('a', 'default', 4) }, namespaceObject: testNs },
    expect: { outcome: 'deny', message: 'failed expression: object.spec.replicas <= params.maxReplicas' },
  },
  {
    name: 'prod: 50 replicas',
    input: { request: { ...fx.deploymentRequest('b', 'default'), object: fx.deployment('b', 'default', 50) }, namespaceObject: prodNs },
    expect: { outcome: 'admit' },
  },
  {
    name: 'full message',
    input: { request: { ...fx.deploymentRequest('a', 'default'), object: fx.deployment('a', 'default', 4) }, namespaceObject: testNs },
    expect: { outcome: 'deny', message: denyMessage },
  },
];

describe.runIf(hasWasm)('runCases (real engine)', () => {
  beforeAll(async () => {
    await loadCel();
  }, 60_000);
  test('all pass', async () => {
    const r = await runCases(target, cases, cel);
    expect(r.results.map((x) => [x.name, x.pass, x.failures])).toEqual(cases.map((c) => [c.name, true, []]));
    expect(r.summary).toEqual({ total: 4, passed: 4, failed: 0 });
  });
  test('wrong expectations fail, with reasons', async () => {
    const wrong: PolicyTestCase[] = [
      { ...cases[0]!, name: 'expects deny', expect: { outcome: 'deny' } },
      { ...cases[1]!, name: 'wrong message', expect: { outcome: 'deny', message: 'nope' } },
      { ...cases[0]!, name: 'expects error', expect: { outcome: 'error' } },
    ];
    const r = await runCases(target, wrong, cel);
    expect(r.summary).toEqual({ total: 3, passed: 0, failed: 3 });
    expect(r.results[0]!.failures).toEqual(['expected deny, got admit']);
    expect(r.results[1]!.failures[0]).toContain('expected message "nope"');
    expect(r.results[2]!.failures).toEqual(['expected an error, got admit without errors']);
  });
  test('error passes on an evaluation error whatever failurePolicy does', async () => {
    const t: CaseTarget = {
      policy: fx.failurePolicyPolicy('Ignore'),
      bindings: [{ metadata: { name: 'b' }, spec: { policyName: 'xyz-policy.example.com', validationActions: ['Deny'] } }],
    };
    const r = await runCases(
      t,
      [
        {
          name: 'e',
          input: { request: { ...fx.deploymentRequest('a', 'default'), object: fx.deployment('a', 'default', 1) }, namespaceObject: testNs },
          expect: { outcome: 'error' },
        },
      ],
      cel,
    );
    expect(r.results[0]!.pass).toBe(true);
    expect(r.results[0]!.actual.outcome).toBe('admit');
  });
  test('warn messages compare with the warning', async () => {
    const t: CaseTarget = { policy: fx.demoPolicy, bindings: [fx.demoBinding(['Warn'])] };
    const r = await runCases(
      t,
      [
        {
          name: 'w',
          input: { request: { ...fx.deploymentRequest('a', 'default'), object: fx.deployment('a', 'default', 9) }, namespaceObject: testNs },
          expect: { outcome: 'warn', message: 'failed expression: object.spec.replicas <= 5' },
        },
      ],
      cel,
    );
    expect(r.results[0]!.failures).toEqual([]);
  });
});

describe.runIf(hasWasm)("admit or skip (orSkip: a Kyverno pattern rule's skip, real engine)", () => {
  beforeAll(async () => {
    await loadCel();
  }, 60_000);
  // replicas <= 5, bound in the Namespaces labelled environment=test: in prod the policy does not apply
  const request = (replicas: number, ns: unknown) => ({
    request: { ...fx.deploymentRequest('a', 'default'), object: fx.deployment('a', 'default', replicas) },
    namespaceObject: ns,
  });
  const admitted = (name: string, input: PolicyTestCase['input']): PolicyTestCase => ({ name, input, expect: { outcome: 'admit', orSkip: true } });
  test('a skip and an admission pass; a denial and a warning still fail', async () => {
    const run = (actions: string[], cs: PolicyTestCase[]) => runCases({ policy: fx.demoPolicy, bindings: [fx.demoBinding(actions)] }, cs, cel);
    const r = await run(['Deny'], [admitted('admitted', request(3, testNs)), admitted('skipped', request(9, prodNs)), admitted('denied', request(9, testNs))]);
    expect(r.results.map((x) => [x.name, x.actual.outcome, x.failures])).toEqual([
      ['admitted', 'admit', []],
      ['skipped', 'skip', []],
      ['denied', 'deny', [expect.stringMatching(/^expected admit or skip, got deny: .*failed expression: object\.spec\.replicas <= 5$/)]],
    ]);
    const warned = await run(['Warn'], [admitted('warned', request(9, testNs))]);
    expect(warned.results[0]!.failures).toEqual(['expected admit or skip, got warn']);
    // without it, `admit` is the policy applying
    const strict = await run(['Deny'], [{ ...admitted('skipped', request(9, prodNs)), expect: { outcome: 'admit' } }]);
    expect(strict.results[0]!.failures).toEqual(['expected admit, got skip']);
  });
  test('kaptest, which has no such test, gets what the run decided (else admit, said)', async () => {
    const target = { policy: fx.demoPolicy, bindings: [fx.demoBinding(['Deny'])] };
    const cs = [admitted('admitted', request(3, testNs)), admitted('skipped', request(9, prodNs))];
    const runs = (await runCases(target, cs, cel)).results;
    const expects = (e: ReturnType<typeof toKaptestManifest>) =>
      (parseDocuments(e.files['kaptest.yaml']!).documents[0]!.object as { vapTestSuites: { tests: { expect: string }[] }[] }).vapTestSuites[0]!.tests.map(
        (t) => t.expect,
      );
    expect(expects(toKaptestManifest(target, cs, runs))).toEqual(['admit', 'skip']);
    const without = toKaptestManifest(target, cs);
    expect(expects(without)).toEqual(['admit', 'admit']);
    expect(without.warnings.filter((w) => w.includes('admit or skip'))).toHaveLength(2);
  });
});

describe.runIf(hasWasm)('a mutating policy that does not apply (real engine)', () => {
  beforeAll(async () => {
    await loadCel();
  }, 60_000);
  // labels the Pod unless it is already labelled: on a labelled Pod the matchCondition skips the policy
  const policy = mfx.jsonPatchPolicy('label.example.com', `[JSONPatch{op: "add", path: "/metadata/labels", value: {"team": "web"}}]`, {
    matchConditions: [{ name: 'unlabelled', expression: '!has(object.metadata.labels)' }],
  });
  const labelled = { ...mfx.myapp(), metadata: { ...mfx.myapp().metadata, labels: { team: 'ops' } } };
  const input = { request: { ...mfx.podRequest(), object: labelled }, namespaceObject: mfx.defaultNs };
  test('admits the object as it came: `admit` with that object passes, with another object or without one it fails', async () => {
    const r = await runCases(
      { policy, bindings: [mfx.bindingFor('label.example.com')] },
      [
        { name: 'unchanged', input, expect: { outcome: 'admit', object: labelled } },
        { name: 'skip', input, expect: { outcome: 'skip' } },
        { name: 'changed', input, expect: { outcome: 'admit', object: { ...labelled, metadata: { ...labelled.metadata, labels: { team: 'web' } } } } },
        { name: 'no object', input, expect: { outcome: 'admit' } },
      ],
      cel,
    );
    expect(r.results.map((x) => [x.name, x.actual.outcome, x.failures])).toEqual([
      ['unchanged', 'skip', []],
      ['skip', 'skip', []],
      ['changed', 'skip', ['the mutated object differs from the expected object']],
      ['no object', 'skip', ['expected admit, got skip']],
    ]);
  });
});

describe('toKaptestManifest', () => {
  const exported = toKaptestManifest(target, [
    ...cases.slice(0, 2),
    {
      name: 'typed param',
      input: {
        request: { ...fx.deploymentRequest('c', 'default'), object: fx.deployment('c', 'default', 2) },
        params: { metadata: { name: 'limit-2' }, maxReplicas: 2 },
      },
      expect: { outcome: 'admit' },
    },
    {
      name: 'warned',
      input: { request: { ...fx.deploymentRequest('d', 'default'), object: fx.deployment('d', 'default', 9) } },
      expect: { outcome: 'warn', message: denyMessage },
    },
    {
      name: 'update',
      input: {
        request: { ...fx.deploymentRequest('a', 'default', 'UPDATE'), object: fx.deployment('a', 'default', 2), oldObject: fx.deployment('a', 'default', 1) },
      },
      expect: { outcome: 'admit' },
    },
  ]);
  const doc = (name: string) => {
    const p = parseDocuments(exported.files[name]!);
    expect(p.errors).toEqual([]);
    return p.documents.map((d) => d.object);
  };
  test('manifest: version, files and one suite for the policy', () => {
    const [m] = doc('kaptest.yaml') as Record<string, unknown>[];
    expect(m).toMatchObject({ version: 'v1alpha1', policies: ['policy.yaml'], resources: ['resources.yaml'] });
    const suites = m!.vapTestSuites as { policy: string; tests: Record<string, unknown>[] }[];
    expect(suites).toHaveLength(1);
    expect(suites[0]!.policy).toBe('replicalimit-policy.example.com');
    const tests = suites[0]!.tests;
    // kaptest has no paramRef: the param the binding resolves for the case (test namespace → the test limit) is in the test
    expect(tests[0]).toEqual({
      object: { group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'default', name: 'a' },
      param: { namespace: 'default', name: 'replica-limit-test.example.com' },
      userInfo: { name: 'alice', groups: ['system:authenticated'] },
      expect: 'admit',
    });
    expect(tests[1]).toMatchObject({ expect: 'deny', deniedMessage: 'failed expression: object.spec.replicas <= params.maxReplicas' });
    expect(tests[2]).toMatchObject({ param: { name: 'limit-2' }, expect: 'admit' });
    expect(tests[3]).toMatchObject({ expect: 'deny', deniedMessage: 'failed expression: object.spec.replicas <= params.maxReplicas' });
    expect(tests[4]!.oldObject).toBeDefined();
  });
  test('resources: objects (renamed on a clash), namespace, typed param with the paramKind', () => {
    const res = doc('resources.yaml') as { kind?: unknown; metadata?: { name?: unknown } }[];
    const names = res.map((r) => `${String(r.kind)}/${String(r.metadata?.name)}`);
    expect(names).toEqual([
      'Deployment/a',
      'Namespace/default',
      'ReplicaLimit/replica-limit-test.example.com',
      'Deployment/a-2',
      'Deployment/c',
      'ReplicaLimit/limit-2',
      'Deployment/d',
      'Deployment/a-3',
      'Deployment/a-4',
    ]);
    expect(res.find((r) => r.kind === 'ReplicaLimit' && r.metadata?.name === 'limit-2')).toMatchObject({ apiVersion: 'rules.example.com/v1', maxReplicas: 2 });
    expect(exported.warnings.some((w) => w.includes('renamed to "a-2"'))).toBe(true);
    expect(exported.warnings.some((w) => w.startsWith('warned: exported as deny'))).toBe(true);
  });
  test('policy file round-trips', () => {
    expect(doc('policy.yaml')).toEqual([fx.replicaLimitPolicy]);
  });
});
