/** MutatingAdmissionPolicy runs against the real CEL engine, on the Kubernetes documentation examples. */
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { evaluate, loadCel } from '../cel/index';
import { runMutatingPolicy, type MutatingRunInput } from './mutate';
import { runCases } from './cases';
import { apiserverObject, loadTypedData } from '../k8s/typed';

/** An object as the apiserver decodes it (src/k8s/typed): what a run's mutated object is compared with. */
const decoded = <T>(o: T): T => apiserverObject(o, '1.37').object as T;
import * as fx from './fixtures/map';

vi.setConfig({ testTimeout: 30_000 });
const hasWasm = existsSync(new URL('../../public/cel/cel.wasm', import.meta.url));
const cel = { evaluate };

/** A run of the policy on a Pod request; `object` / `oldObject` go into the request. */
const run = (policy: unknown, extra: Partial<MutatingRunInput> & { object?: unknown; oldObject?: unknown } = {}) => {
  const name = String((policy as { metadata: { name: string } }).metadata.name);
  const { object = 'object' in extra ? undefined : fx.myapp(), oldObject, request = fx.podRequest(), ...rest } = extra;
  return runMutatingPolicy(
    {
      policy,
      bindings: [name === 'sidecar-policy.example.com' ? fx.sidecarBinding : fx.bindingFor(name)],
      request: { ...request, object, oldObject },
      namespaceObject: fx.defaultNs,
      ...rest,
    },
    cel,
  );
};

const meshProxyApply = { name: 'mesh-proxy', image: 'mesh/proxy:v1.0.0', args: ['proxy', 'sidecar'], restartPolicy: 'Always' };
const initializer = { name: 'myapp-initializer', image: 'example/initializer:v1.0.0' };

describe.runIf(hasWasm)('MutatingAdmissionPolicy runs (real engine)', () => {
  beforeAll(async () => {
    await Promise.all([loadCel(), loadTypedData('1.37')]);
  }, 60_000);

  describe('sidecar via ApplyConfiguration', () => {
    test('adds the mesh-proxy init container, merged by name', async () => {
      const r = await run(fx.sidecarApplyConfiguration);
      expect(r.outcome).toBe('admit');
      expect(r.mutated).toBe(true);
      // The documentation page lists mesh-proxy first; structured-merge-diff keeps live-only
      // items in place and adds new keys after them (typed/merge.go visitListItems), so the
      // apiserver's result has it second.
      expect(r.object).toEqual(decoded({ ...fx.myapp(), spec: { ...fx.myapp().spec, initContainers: [initializer, meshProxyApply] } }));
      expect(r.diff).toEqual([{ path: '/spec/initContainers/1', op: 'add', after: meshProxyApply }]);
      const m = r.bindings[0]!.evaluations[0]!.mutations[0]!;
      expect(m.value).toEqual({ spec: { initContainers: [meshProxyApply] } });
      expect(m.listMerges).toEqual([{ path: '/spec/initContainers', mode: 'merge-by-key', keys: ['name'] }]);
      expect(r.reinvocation).toMatchObject({ changesAgain: false });
    });
    test('the matchCondition skips a pod that already has the sidecar', async () => {
      const pod = fx.myapp();
      pod.spec.initContainers.push({ name: 'mesh-proxy', image: 'x' });
      const r = await run(fx.sidecarApplyConfiguration, { object: pod });
      expect(r.outcome).toBe('skip');
      expect(r.mutated).toBe(false);
      expect(r.bindings[0]!.evaluations[0]!.matchConditions).toMatchObject({ outcome: 'skip', failedCondition: 'does-not-already-have-sidecar' });
    });
    test('a pod without initContainers: the matchCondition errors, Fail denies (403, reason Invalid)', async () => {
      const pod = fx.myapp() as Record<string, unknown> & { spec: Record<string, unknown> };
      delete pod.spec.initContainers;
      const r = await run(fx.sidecarApplyConfiguration, { object: pod });
      expect(r.outcome).toBe('deny');
      expect(r.decision).toEqual({
        allowed: false,
        message: `policy 'sidecar-policy.example.com' with binding 'sidecar-policy.example.com' denied request: expression '!object.spec.initContainers.exists(ic, ic.name == "mesh-proxy")' resulted in error: no such key: initContainers`,
        reason: 'Invalid',
        code: 403,
      });
    });
    test('the policy is idempotent under reinvocation even without its matchCondition', async () => {
      const p = structuredClone(fx.sidecarApplyConfiguration) as unknown as { spec: Record<string, unknown> };
      delete p.spec.matchConditions;
      const r = await run(p);
      expect(r.reinvocation).toMatchObject({ changesAgain: false, diff: [] });
    });
  });

  describe('sidecar via JSONPatch', () => {
    const meshProxyPatch = { name: 'mesh-proxy', image: 'mesh-proxy/v1.0.0', restartPolicy: 'Always' };
    test('appends the init container', async () => {
      const r = await run(fx.sidecarJsonPatch);
      expect(r.outcome).toBe('admit');
      expect(r.object).toEqual(decoded({ ...fx.myapp(), spec: { ...fx.myapp().spec, initContainers: [initializer, meshProxyPatch] } }));
      expect(r.bindings[0]!.evaluations[0]!.mutations[0]!.value).toEqual([{ op: 'add', path: '/spec/initContainers/-', value: meshProxyPatch }]);
      expect(r.reinvocation?.changesAgain).toBe(false);
    });
    test('without the matchCondition, reinvocation adds it again: flagged', async () => {
      const p = structuredClone(fx.sidecarJsonPatch) as unknown as { spec: Record<string, unknown> };
      delete p.spec.matchConditions;
      const r = await run(p);
      expect(r.reinvocation?.changesAgain).toBe(true);
      // the second run's patched object is decoded again too: the added container has its defaults
      const proxy = decoded({ ...fx.myapp(), spec: { containers: [meshProxyPatch] } }).spec.containers[0];
      expect(r.reinvocation?.diff).toEqual([{ path: '/spec/initContainers/2', op: 'add', after: proxy }]);
    });
  });

  describe('JSONPatch snippets from the page', () => {
    const escapeKeyPatch = `[
  JSONPatch{
    op: "add",
    path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/environment"),
    value: "test"
  },
]`;
    test('escapeKey: a label with a slash', async () => {
      const pod = fx.myapp() as ReturnType<typeof fx.myapp> & { metadata: { labels?: Record<string, string> } };
      pod.metadata.labels = { app: 'myapp' };
      const r = await run(fx.jsonPatchPolicy('env-label', escapeKeyPatch), { object: pod });
      expect(r.diff).toEqual([{ path: '/metadata/labels/example.com~1environment', op: 'add', after: 'test' }]);
      expect((r.object as typeof pod).metadata.labels).toEqual({ app: 'myapp', 'example.com/environment': 'test' });
    });
    test('add under a missing map fails the patch: JSON Patch error, denied under Fail', async () => {
      const r = await run(fx.jsonPatchPolicy('env-label', escapeKeyPatch));
      expect(r.outcome).toBe('deny');
      expect(r.decision.message).toBe(
        `policy 'env-label' with binding 'env-label-binding' denied request: JSON Patch: add operation does not apply: doc is missing path: "/metadata/labels/example.com~1environment": missing value`,
      );
      expect(r.object).toEqual(decoded(fx.myapp()));
    });
    test('... and admitted unchanged under Ignore, with the error reported', async () => {
      const r = await run(fx.jsonPatchPolicy('env-label', escapeKeyPatch, { failurePolicy: 'Ignore' }));
      expect(r.outcome).toBe('admit');
      expect(r.mutated).toBe(false);
      expect(r.errors[0]).toContain('JSON Patch: add operation does not apply');
    });
    // a Pod field (an unknown one would be gone: the apiserver decodes the Pod into its type)
    const testReplace = `[
  JSONPatch{op: "test", path: "/spec/hostname", value: "Red"},
  JSONPatch{op: "replace", path: "/spec/hostname", value: "Green"}
]`;
    test('test + replace: replaced when the test holds', async () => {
      const pod = { ...fx.myapp(), spec: { ...fx.myapp().spec, hostname: 'Red' } };
      const r = await run(fx.jsonPatchPolicy('color', testReplace), { object: pod });
      expect(r.diff).toEqual([{ path: '/spec/hostname', op: 'replace', before: 'Red', after: 'Green' }]);
    });
    test('test + replace: nothing applied (and no error) when the test fails', async () => {
      const pod = { ...fx.myapp(), spec: { ...fx.myapp().spec, hostname: 'Blue' } };
      const r = await run(fx.jsonPatchPolicy('color', testReplace), { object: pod });
      expect(r.outcome).toBe('admit');
      expect(r.mutated).toBe(false);
      expect(r.errors).toEqual([]);
      expect(r.bindings[0]!.evaluations[0]!.mutations[0]!.testFailed).toEqual({ index: 0, path: '/spec/hostname' });
    });
  });

  describe('default labels via ApplyConfiguration', () => {
    const policy = fx.applyConfigurationPolicy('default-labels', 'Object{metadata: Object.metadata{labels: {"team": "platform", "tier": "web"}}}');
    test('labels merge into the existing map', async () => {
      const pod = { ...fx.myapp(), metadata: { ...fx.myapp().metadata, labels: { app: 'myapp', tier: 'db' } } };
      const r = await run(policy, { object: pod });
      expect((r.object as typeof pod).metadata.labels).toEqual({ app: 'myapp', tier: 'web', team: 'platform' });
      expect(r.diff).toEqual([
        { path: '/metadata/labels/tier', op: 'replace', before: 'db', after: 'web' },
        { path: '/metadata/labels/team', op: 'add', after: 'platform' },
      ]);
    });
    test('mutations see the previous mutation’s output', async () => {
      const p = fx.applyConfigurationPolicy('two-steps', 'Object{metadata: Object.metadata{labels: {"a": "1"}}}');
      (p.spec.mutations as unknown[]).push({
        patchType: 'ApplyConfiguration',
        applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"b": object.metadata.labels["a"] + "2"}}}' },
      });
      const r = await run(p);
      expect((r.object as { metadata: { labels: unknown } }).metadata.labels).toEqual({ a: '1', b: '12' });
    });
    test('a wrong nested type name is the apiserver’s type mismatch', async () => {
      const r = await run(fx.applyConfigurationPolicy('bad', 'Object{metadata: Object.spec{labels: {"a": "1"}}}'));
      expect(r.outcome).toBe('deny');
      expect(r.decision.message).toContain('type mismatch: unexpected type name "Object.spec"');
    });
    test('DELETE: no object, mutations skipped', async () => {
      const r = await run(
        fx.applyConfigurationPolicy('del', 'Object{metadata: Object.metadata{labels: {"a": "1"}}}', {
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['pods'] }] },
        }),
        { request: fx.podRequest('DELETE'), object: undefined, oldObject: fx.myapp() },
      );
      expect(r.outcome).toBe('admit');
      expect(r.bindings[0]!.evaluations[0]!.mutations[0]!.skipped).toContain('DELETE');
    });
  });

  test('saved cases compare the mutated object', async () => {
    const target = { policy: fx.sidecarApplyConfiguration, bindings: [fx.sidecarBinding] };
    const expected = { ...fx.myapp(), spec: { ...fx.myapp().spec, initContainers: [initializer, meshProxyApply] } };
    const r = await runCases(
      target,
      [
        {
          name: 'mutates',
          input: { request: { ...fx.podRequest(), object: fx.myapp() }, namespaceObject: fx.defaultNs },
          expect: { outcome: 'admit', object: expected },
        },
        {
          name: 'wrong object',
          input: { request: { ...fx.podRequest(), object: fx.myapp() }, namespaceObject: fx.defaultNs },
          expect: { outcome: 'admit', object: fx.myapp() },
        },
      ],
      cel,
    );
    expect(r.results.map((x) => x.pass)).toEqual([true, false]);
    expect(r.results[1]!.failures).toEqual(['the mutated object differs from the expected object']);
  });
});
