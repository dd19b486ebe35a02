/** ValidatingAdmissionPolicy runs against the real CEL engine, on the Kubernetes documentation examples. */
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { evaluate, loadCel, celStatus } from '../cel/index';
import { runValidatingPolicy, type ValidatingRunInput } from './run';
import * as fx from './fixtures/vap';

vi.setConfig({ testTimeout: 30_000 });
const hasWasm = existsSync(new URL('../../public/cel/cel.wasm', import.meta.url));
const cel = { evaluate };
const testNs = fx.namespace('default', { environment: 'test' });
const prodNs = fx.namespace('default', { environment: 'prod' });

function deployRun(
  replicas: number,
  extra: Partial<ValidatingRunInput> & Pick<ValidatingRunInput, 'policy' | 'bindings'>,
): Promise<ReturnType<typeof runValidatingPolicy> extends Promise<infer R> ? R : never> {
  const object = fx.deployment('nginx', 'default', replicas);
  return runValidatingPolicy({ request: { ...fx.deploymentRequest('nginx', 'default'), object }, namespaceObject: testNs, ...extra }, cel);
}

describe.runIf(hasWasm)('ValidatingAdmissionPolicy runs (real engine)', () => {
  beforeAll(async () => {
    await loadCel();
    expect(celStatus().state).toBe('ready');
  }, 60_000);

  describe('basic example (replicas <= 5)', () => {
    test('6 replicas in a test namespace: denied with the failed expression as message, 422 Invalid', async () => {
      const r = await deployRun(6, { policy: fx.demoPolicy, bindings: [fx.demoBinding()] });
      expect(r.outcome).toBe('deny');
      expect(r.decision).toEqual({
        allowed: false,
        message:
          "ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5",
        reason: 'Invalid',
        code: 422,
      });
      expect(r.bindings[0]!.evaluations[0]!.validations[0]).toMatchObject({ evaluation: 'deny', messageSource: 'expression' });
    });
    test('every failing validation is a reason; the first is the one the client sees', async () => {
      const policy = {
        ...fx.demoPolicy,
        spec: {
          ...fx.demoPolicy.spec,
          validations: [
            { expression: 'object.spec.replicas <= 5', message: 'too many replicas' },
            { expression: 'object.spec.replicas >= 0' },
            { expression: "object.metadata.name.startsWith('prod-')", messageExpression: "'name ' + object.metadata.name" },
          ],
        },
      };
      const r = await deployRun(6, { policy, bindings: [fx.demoBinding()] });
      expect(r.denials).toEqual([
        { message: 'too many replicas', binding: 'demo-binding-test.example.com', index: 0, reason: 'Invalid', reported: true },
        { message: 'name nginx', binding: 'demo-binding-test.example.com', index: 2, reason: 'Invalid', reported: false },
      ]);
      expect(r.decision.message).toContain('too many replicas');
      const ok = await deployRun(3, { policy, bindings: [fx.demoBinding()] });
      expect(ok.denials).toEqual([expect.objectContaining({ index: 2, reported: true })]);
      const audit = await deployRun(6, { policy, bindings: [fx.demoBinding(['Audit'])] });
      expect(audit.denials).toEqual([]);
    });
    test('3 replicas: admitted', async () => {
      const r = await deployRun(3, { policy: fx.demoPolicy, bindings: [fx.demoBinding()] });
      expect(r.outcome).toBe('admit');
      expect(r.decision).toEqual({ allowed: true });
    });
    test('a namespace not labelled environment=test: the binding does not apply (skip)', async () => {
      const r = await deployRun(6, { policy: fx.demoPolicy, bindings: [fx.demoBinding()], namespaceObject: prodNs });
      expect(r.outcome).toBe('skip');
      expect(r.bindings[0]!.applies).toBe(false);
      expect(r.bindings[0]!.reason).toContain('namespaceSelector');
    });
    test('a Pod: matchConstraints do not match (skip)', async () => {
      const r = await runValidatingPolicy(
        {
          policy: fx.demoPolicy,
          bindings: [fx.demoBinding()],
          request: {
            operation: 'CREATE',
            kind: { group: '', version: 'v1', kind: 'Pod' },
            resource: { group: '', version: 'v1', resource: 'pods' },
            namespace: 'default',
            name: 'p',
            object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } },
          },
          namespaceObject: testNs,
        },
        cel,
      );
      expect(r.outcome).toBe('skip');
      expect(r.skipReason).toContain('matchConstraints');
    });
  });

  describe('validationActions', () => {
    test('Warn: admitted with the apiserver warning', async () => {
      const r = await deployRun(6, { policy: fx.demoPolicy, bindings: [fx.demoBinding(['Warn'])] });
      expect(r.outcome).toBe('warn');
      expect(r.decision.allowed).toBe(true);
      expect(r.warnings).toEqual([
        "Validation failed for ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com': failed expression: object.spec.replicas <= 5",
      ]);
    });
    test('Audit: admitted, validation_failure audit annotation in Go JSON', async () => {
      const r = await deployRun(6, { policy: fx.demoPolicy, bindings: [fx.demoBinding(['Audit'])] });
      expect(r.outcome).toBe('admit');
      expect(r.auditAnnotations['validation.policy.admission.k8s.io/validation_failure']).toBe(
        '[{"message":"failed expression: object.spec.replicas \\u003c= 5","policy":"demo-policy.example.com","binding":"demo-binding-test.example.com","expressionIndex":0,"validationActions":["Audit"]}]',
      );
    });
    test('Warn + Audit together', async () => {
      const r = await deployRun(6, { policy: fx.demoPolicy, bindings: [fx.demoBinding(['Warn', 'Audit'])] });
      expect(r.outcome).toBe('warn');
      expect(r.warnings).toHaveLength(1);
      expect(Object.keys(r.auditAnnotations)).toEqual(['validation.policy.admission.k8s.io/validation_failure']);
    });
  });

  describe('params (ReplicaLimit)', () => {
    const docs = [fx.replicaLimitTest, fx.replicaLimitProd];
    const bindings = [fx.replicaLimitBindingTest, fx.replicaLimitBindingProd];
    test('test namespace: limit 3 from replica-limit-test, 5 replicas denied', async () => {
      const r = await deployRun(5, { policy: fx.replicaLimitPolicy, bindings, paramDocuments: docs });
      expect(r.outcome).toBe('deny');
      expect(r.decision.message).toBe(
        "ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'replicalimit-binding-test.example.com' denied request: failed expression: object.spec.replicas <= params.maxReplicas",
      );
      expect(r.bindings.map((b) => b.applies)).toEqual([true, false]);
      expect(r.bindings[0]!.params).toMatchObject({ mode: 'name', namespace: 'default' });
    });
    test('prod namespace: limit 100 from replica-limit-prod, 5 replicas admitted', async () => {
      const r = await deployRun(5, { policy: fx.replicaLimitPolicy, bindings, paramDocuments: docs, namespaceObject: prodNs });
      expect(r.outcome).toBe('admit');
      expect(r.bindings.map((b) => b.applies)).toEqual([false, true]);
      expect(r.bindings[1]!.evaluations[0]!.paramName).toBe('replica-limit-prod.example.com');
    });
    test('param missing with parameterNotFoundAction Deny: failed to configure binding', async () => {
      const r = await deployRun(1, { policy: fx.replicaLimitPolicy, bindings, paramDocuments: [] });
      expect(r.outcome).toBe('deny');
      expect(r.decision.message).toBe(
        "ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'replicalimit-binding-test.example.com' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
      );
      expect(r.decision.code).toBe(422);
    });
    test('param missing with parameterNotFoundAction Allow: nothing validated, admitted', async () => {
      const allow = structuredClone(fx.replicaLimitBindingTest);
      allow.spec.paramRef.parameterNotFoundAction = 'Allow';
      const r = await deployRun(50, { policy: fx.replicaLimitPolicy, bindings: [allow], paramDocuments: [] });
      expect(r.outcome).toBe('admit');
      expect(r.bindings[0]!.evaluations).toHaveLength(0);
    });
    test('typed-in params replace the lookup', async () => {
      const r = await deployRun(5, {
        policy: fx.replicaLimitPolicy,
        bindings: [fx.replicaLimitBindingTest],
        params: { maxReplicas: 10 },
        paramDocuments: docs,
      });
      expect(r.outcome).toBe('admit');
      // … and say so: the binding's paramRef would have found replica-limit-test (limit 3: denied).
      const p = r.bindings[0]!.params!;
      expect(p.mode).toBe('typed');
      expect(p.paramRef).toEqual({ by: 'name "replica-limit-test.example.com" in namespace "default"', parameterNotFoundAction: 'Deny' });
      expect(p.overridden).toMatchObject({ mode: 'name', params: [fx.replicaLimitTest] });
      expect(p.detail).toBe(
        `the test input's params override the binding's paramRef (name "replica-limit-test.example.com" in namespace "default"); without them: found ReplicaLimit in namespace "default" named "replica-limit-test.example.com"`,
      );
      const none = await deployRun(5, {
        policy: fx.replicaLimitPolicy,
        bindings: [fx.replicaLimitBindingTest],
        params: { maxReplicas: 10 },
        paramDocuments: [],
      });
      expect(none.bindings[0]!.params!.detail).toMatch(/without them: no params found for policy binding with `Deny` parameterNotFoundAction$/);
    });
    test('selector: one evaluation per selected param', async () => {
      const sel = structuredClone(fx.replicaLimitBindingTest) as unknown as { spec: { paramRef: Record<string, unknown> } };
      sel.spec.paramRef = { selector: {}, namespace: 'default', parameterNotFoundAction: 'Deny' };
      const r = await deployRun(5, { policy: fx.replicaLimitPolicy, bindings: [sel], paramDocuments: docs });
      expect(r.bindings[0]!.evaluations.map((e) => e.paramName)).toEqual(['replica-limit-prod.example.com', 'replica-limit-test.example.com']);
      expect(r.outcome).toBe('deny'); // 5 > 3
    });
  });

  describe('messageExpression', () => {
    const binding = { ...fx.replicaLimitBindingTest, spec: { ...fx.replicaLimitBindingTest.spec, policyName: 'deploy-replica-policy.example.com' } };
    const bindingNamed = { ...binding, metadata: { name: 'demo-binding-test.example.com' } };
    test('the documented denial message', async () => {
      const r = await deployRun(5, { policy: fx.deployReplicaPolicy, bindings: [bindingNamed], paramDocuments: [fx.replicaLimitTest] });
      expect(r.decision.message).toBe(
        "ValidatingAdmissionPolicy 'deploy-replica-policy.example.com' with binding 'demo-binding-test.example.com' denied request: object.spec.replicas must be no greater than 3",
      );
      expect(r.bindings[0]!.evaluations[0]!.validations[0]!.messageSource).toBe('messageExpression');
    });
    const withMessage = (messageExpression: string, message?: string) => {
      const p = structuredClone(fx.deployReplicaPolicy) as unknown as { spec: { validations: Record<string, unknown>[] } };
      p.spec.validations[0]!.messageExpression = messageExpression;
      if (message !== undefined) p.spec.validations[0]!.message = message;
      return p;
    };
    const msg = async (policy: unknown) => {
      const r = await deployRun(5, { policy, bindings: [bindingNamed], paramDocuments: [fx.replicaLimitTest] });
      return r.bindings[0]!.evaluations[0]!.validations[0]!;
    };
    test('trimmed', async () => {
      expect((await msg(withMessage("'  too many  '"))).message).toBe('too many');
    });
    test('erroring messageExpression falls back to message', async () => {
      const v = await msg(withMessage("'x' + object.nope", ' too many replicas '));
      expect(v).toMatchObject({ message: 'too many replicas', messageSource: 'message' });
      expect(v.messageExpression?.rejected).toBe('evaluation error');
    });
    test('multi-line result falls back to message', async () => {
      const v = await msg(withMessage("'a\\nb'", 'static'));
      expect(v).toMatchObject({ message: 'static', messageSource: 'message' });
      expect(v.messageExpression?.rejected).toBe('contains a line break');
    });
    test('blank result without message falls back to the expression', async () => {
      const v = await msg(withMessage("'   '"));
      expect(v).toMatchObject({ message: 'failed expression: object.spec.replicas <= params.maxReplicas', messageSource: 'expression' });
    });
    test('over 5 KiB falls back', async () => {
      const v = await msg(withMessage("'" + 'y'.repeat(5 * 1024 + 1) + "'", 'short'));
      expect(v.message).toBe('short');
      expect(v.messageExpression?.rejected).toContain('5120');
    });
    test('exactly 5 KiB is kept', async () => {
      const v = await msg(withMessage("'" + 'y'.repeat(5 * 1024) + "'", 'short'));
      expect(v.message).toHaveLength(5 * 1024);
    });
  });

  describe('failurePolicy on an erroring expression (object.spec.xyz == params.x)', () => {
    const binding = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'xyz-binding' },
      spec: {
        policyName: 'xyz-policy.example.com',
        validationActions: ['Deny'],
        paramRef: { name: 'replica-limit-test.example.com', namespace: 'default', parameterNotFoundAction: 'Deny' },
      },
    };
    test('Ignore: admitted; the error is reported', async () => {
      const r = await deployRun(1, { policy: fx.failurePolicyPolicy('Ignore'), bindings: [binding], paramDocuments: [fx.replicaLimitTest] });
      expect(r.outcome).toBe('admit');
      expect(r.errors).toEqual(["expression 'object.spec.xyz == params.x' resulted in error: no such key: xyz"]);
    });
    test('Fail: denied with the evaluation error, 422', async () => {
      const r = await deployRun(1, { policy: fx.failurePolicyPolicy('Fail'), bindings: [binding], paramDocuments: [fx.replicaLimitTest] });
      expect(r.outcome).toBe('deny');
      expect(r.decision).toEqual({
        allowed: false,
        message:
          "ValidatingAdmissionPolicy 'xyz-policy.example.com' with binding 'xyz-binding' denied request: expression 'object.spec.xyz == params.x' resulted in error: no such key: xyz",
        reason: 'Invalid',
        code: 422,
      });
    });
    test('Fail with validationActions Warn: the error becomes a warning', async () => {
      const warn = { ...binding, spec: { ...binding.spec, validationActions: ['Warn'] } };
      const r = await deployRun(1, { policy: fx.failurePolicyPolicy('Fail'), bindings: [warn], paramDocuments: [fx.replicaLimitTest] });
      expect(r.outcome).toBe('warn');
    });
  });

  describe('reasons and codes', () => {
    for (const [reason, code] of [
      ['Unauthorized', 401],
      ['Forbidden', 403],
      ['Invalid', 422],
      ['RequestEntityTooLarge', 413],
    ] as const) {
      test(`${reason} → ${code}`, async () => {
        const p = structuredClone(fx.demoPolicy) as unknown as { spec: { validations: Record<string, unknown>[] } };
        p.spec.validations[0]!.reason = reason;
        const r = await deployRun(6, { policy: p, bindings: [fx.demoBinding()] });
        expect(r.decision).toMatchObject({ allowed: false, reason, code });
      });
    }
    test('the first denial wins', async () => {
      const p = structuredClone(fx.demoPolicy) as unknown as { spec: { validations: Record<string, unknown>[] } };
      p.spec.validations = [
        { expression: 'true' },
        { expression: 'false', message: 'first', reason: 'Forbidden' },
        { expression: 'false', message: 'second', reason: 'Unauthorized' },
      ];
      const r = await deployRun(1, { policy: p, bindings: [fx.demoBinding()] });
      expect(r.decision).toMatchObject({ code: 403 });
      expect(r.decision.message).toMatch(/denied request: first$/);
    });
  });

  describe('audit annotations', () => {
    const binding = { ...fx.demoBinding(['Deny']), spec: { policyName: 'demo-policy.example.com', validationActions: ['Deny'] } };
    test('published as <policy>/<key>', async () => {
      const r = await deployRun(128, { policy: fx.auditAnnotationPolicy, bindings: [binding] });
      expect(r.outcome).toBe('admit');
      expect(r.auditAnnotations).toEqual({ 'demo-policy.example.com/high-replica-count': 'Deployment spec.replicas set to 128' });
    });
    test('null value omitted; the validation message comes from messageExpression', async () => {
      const p = structuredClone(fx.auditAnnotationPolicy) as unknown as { spec: { auditAnnotations: Record<string, unknown>[] } };
      p.spec.auditAnnotations[0]!.valueExpression = "object.spec.replicas > 50 ? 'Deployment spec.replicas set to ' + string(object.spec.replicas) : null";
      const r = await deployRun(3, { policy: p, bindings: [binding] });
      expect(r.auditAnnotations).toEqual({});
      expect(r.decision.message).toBe(
        "ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: Deployment spec.replicas set to 3",
      );
    });
  });

  describe('variables and matchConditions', () => {
    const binding = { ...fx.demoBinding(), spec: { policyName: 'image-matches-namespace-environment.policy.example.com', validationActions: ['Deny'] } };
    test('the documented variable composition denial', async () => {
      const r = await runValidatingPolicy(
        {
          policy: fx.imageMatchesNamespacePolicy,
          bindings: [binding],
          request: { ...fx.deploymentRequest('invalid', 'default'), object: fx.deployment('invalid', 'default', 1, 'dev.example.com/nginx') },
          namespaceObject: prodNs,
        },
        cel,
      );
      expect(r.decision.message).toBe(
        "ValidatingAdmissionPolicy 'image-matches-namespace-environment.policy.example.com' with binding 'demo-binding-test.example.com' denied request: only prod images are allowed in namespace default",
      );
      const vars = r.bindings[0]!.evaluations[0]!.variables;
      const app = {
        name: 'app',
        image: 'dev.example.com/nginx',
        imagePullPolicy: 'Always',
        resources: {},
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      };
      expect(vars.map((v) => [v.name, v.value, v.used])).toEqual([
        ['environment', 'prod', true],
        ['exempt', false, true],
        // the containers as the apiserver decodes the Deployment: with their defaults (src/k8s/typed)
        ['containers', [app], true],
        ['containersToCheck', [app], true],
      ]);
    });
    test('prod image admitted', async () => {
      const r = await runValidatingPolicy(
        {
          policy: fx.imageMatchesNamespacePolicy,
          bindings: [binding],
          request: { ...fx.deploymentRequest('ok', 'default'), object: fx.deployment('ok', 'default', 1, 'prod.example.com/nginx') },
          namespaceObject: prodNs,
        },
        cel,
      );
      expect(r.outcome).toBe('admit');
    });
    test('variables are lazy: an erroring variable matters only where it is used', async () => {
      const p = structuredClone(fx.demoPolicy) as unknown as { spec: Record<string, unknown> };
      p.spec.variables = [
        { name: 'replicas', expression: 'object.spec.replicas' },
        { name: 'broken', expression: 'object.spec.nope' },
      ];
      p.spec.validations = [{ expression: 'variables.replicas <= 5' }];
      const ok = await deployRun(3, { policy: p, bindings: [fx.demoBinding()] });
      expect(ok.outcome).toBe('admit');
      const vars = ok.bindings[0]!.evaluations[0]!.variables;
      expect(vars.map((v) => [v.name, v.used, v.ok])).toEqual([
        ['replicas', true, true],
        ['broken', false, false],
      ]);
      expect(vars[1]!.error).toBe("expression 'object.spec.nope' resulted in error: no such key: nope");
      p.spec.validations = [{ expression: 'variables.replicas <= 5' }, { expression: "variables.broken == 'x'" }];
      const bad = await deployRun(3, { policy: p, bindings: [fx.demoBinding()] });
      expect(bad.outcome).toBe('deny');
      expect(bad.decision.message).toContain('no such key: nope');
    });
    const mcBinding = { ...fx.demoBinding(), spec: { policyName: 'demo-policy.example.com', validationActions: ['Deny'] } };
    test('a false matchCondition skips the policy (kubelet request)', async () => {
      const request = { ...fx.deploymentRequest('demo-x', 'default'), userInfo: { username: 'system:node:n1', groups: ['system:nodes'] } };
      const r = await runValidatingPolicy(
        {
          policy: fx.matchConditionsPolicy,
          bindings: [mcBinding],
          request: { ...request, object: fx.deployment('demo-x', 'default', 1) },
          namespaceObject: testNs,
        },
        cel,
      );
      expect(r.outcome).toBe('skip');
      expect(r.bindings[0]!.evaluations[0]!.matchConditions).toMatchObject({ outcome: 'skip', failedCondition: 'exclude-kubelet-requests' });
    });
    test('all true: the validation runs; its `startWith` typo is a compilation error, denied under Fail', async () => {
      const r = await runValidatingPolicy(
        {
          policy: fx.matchConditionsPolicy,
          bindings: [mcBinding],
          request: { ...fx.deploymentRequest('demo-x', 'default'), object: fx.deployment('demo-x', 'default', 1) },
          namespaceObject: testNs,
        },
        cel,
      );
      expect(r.outcome).toBe('deny');
      expect(r.decision.message).toContain("denied request: compilation error: compilation failed: ERROR: <input>:1:31: undeclared reference to 'startWith'");
    });
    test('an erroring matchCondition: Fail denies, Ignore skips; a false one wins over errors', async () => {
      const p = structuredClone(fx.demoPolicy) as unknown as { spec: Record<string, unknown> };
      p.spec.matchConditions = [{ name: 'bad', expression: "object.metadata.labels['missing'] == 'x'" }];
      const fail = await deployRun(1, { policy: p, bindings: [fx.demoBinding()] });
      expect(fail.outcome).toBe('deny');
      expect(fail.decision.message).toBe(
        "ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: expression 'object.metadata.labels['missing'] == 'x'' resulted in error: no such key: missing",
      );
      p.spec.failurePolicy = 'Ignore';
      expect((await deployRun(1, { policy: p, bindings: [fx.demoBinding()] })).outcome).toBe('skip');
      p.spec.failurePolicy = 'Fail';
      p.spec.matchConditions = [...(p.spec.matchConditions as unknown[]), { name: 'no', expression: 'false' }];
      expect((await deployRun(1, { policy: p, bindings: [fx.demoBinding()] })).outcome).toBe('skip');
    });
  });

  describe('inputs a real apiserver would treat differently', () => {
    test('no namespaceObject: noted; a binding namespaceSelector then fails like the apiserver (namespace not found)', async () => {
      const plain = { ...fx.demoBinding(), spec: { policyName: 'demo-policy.example.com', validationActions: ['Deny'] } };
      const r = await deployRun(1, { policy: fx.demoPolicy, bindings: [plain], namespaceObject: undefined });
      expect(r.outcome).toBe('admit');
      expect(r.notes[0]).toContain('no namespaceObject given');
      const s = await deployRun(1, { policy: fx.demoPolicy, bindings: [fx.demoBinding()], namespaceObject: undefined });
      expect(s.decision.message).toBe(
        `ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed to configure binding: namespaces "default" not found`,
      );
    });
    test('matchPolicy Equivalent without a match: noted', async () => {
      const p = structuredClone(fx.demoPolicy) as unknown as { spec: { matchConstraints: { resourceRules: { apiGroups: string[] }[] } } };
      p.spec.matchConstraints.resourceRules[0]!.apiGroups = ['extensions'];
      const r = await deployRun(6, { policy: p, bindings: [fx.demoBinding()] });
      expect(r.outcome).toBe('skip');
      expect(r.notes.some((n) => n.startsWith('matchPolicy Equivalent'))).toBe(true);
    });
  });

  test('runtime cost is summed per evaluation', async () => {
    const r = await deployRun(6, { policy: fx.demoPolicy, bindings: [fx.demoBinding()] });
    expect(r.totalCost).toBeGreaterThan(0);
    expect(r.bindings[0]!.evaluations[0]!.cost).toBe(r.bindings[0]!.evaluations[0]!.validations[0]!.cost);
  });
});
