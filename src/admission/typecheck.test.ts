/**
 * typeCheckPolicy on the real engine and the release's schema asset: built-in kinds (the
 * differential test against kube-controller-manager's own checker is
 * tools/typecheck-oracle/oracle.test.ts), CustomResourceDefinitions of the workspace, the
 * release's asset, and the REST mapping of the release (a resource it does not serve is not checked).
 */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { schemaReleaseFor } from '../cel';
import { crdSchemas, typeCheckPolicy, typeCheckPolicyResult } from './typecheck';

const policy = (rules: unknown[], validations: unknown[], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'p' },
  spec: { matchConstraints: { resourceRules: rules.map((r) => ({ operations: ['CREATE'], ...(r as object) })) }, validations, ...extra },
});

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', kind: 'Widget' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' }, parts: { type: 'array', items: { type: 'string' } } } },
            },
          },
        },
      },
      { name: 'v0', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
    ],
  },
};

// The first check of a release parses its schema asset in the engine (a second or more on a loaded machine).
describe('typeCheckPolicy', { timeout: 60_000 }, () => {
  useEngine();

  it('a typo in a field of a built-in kind: the apiserver\'s warning at spec.validations[0].expression', async () => {
    const w = await typeCheckPolicy(policy([{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }], [{ expression: 'object.spec.replicass > 1' }, { expression: 'object.spec.replicas > 1' }]));
    expect(w).toEqual([
      {
        fieldRef: 'spec.validations[0].expression',
        warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^\n",
      },
    ]);
  });

  it('custom resources are typed by their CustomResourceDefinition in the workspace (apiVersion, kind and metadata added)', async () => {
    const p = policy([{ apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }], [
      { expression: 'object.spec.size < 10' },
      { expression: "object.spec.colour == 'red'" },
      { expression: "object.spec.size == 'big'" },
      { expression: "object.metadata.name.startsWith('w') && object.kind == 'Widget'" },
      { expression: 'object.spec.parts.all(p, p.size() < 5)' },
    ]);
    const w = await typeCheckPolicy(p, { workspace: [crd] });
    expect(w.map((x) => x.fieldRef)).toEqual(['spec.validations[1].expression', 'spec.validations[2].expression']);
    expect(w[0]!.warning).toContain("example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'colour'");
    expect(w[1]!.warning).toContain("found no matching overload for '_==_' applied to '(int, string)'");
    // without the CRD the kind is unknown: nothing is checked
    expect(await typeCheckPolicy(p)).toEqual([]);
  });

  it('only served versions of a CRD give schemas', () => {
    expect(crdSchemas([crd]).map((c) => `${c.group}/${c.version}/${c.kind}`)).toEqual(['example.com/v1/Widget']);
  });

  it('each release is checked with its own schemas, or the nearest newer (1.33 → 1.36)', async () => {
    expect(schemaReleaseFor('1.30')).toBe('1.30');
    expect(schemaReleaseFor('1.33')).toBe('1.36');
    expect(schemaReleaseFor('1.37')).toBe('1.37');
    const p = policy([{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }], [{ expression: 'object.spec.replicass > 1' }]);
    const r = await typeCheckPolicyResult(p, { kubernetesVersion: '1.33' });
    expect(r).toMatchObject({ ok: true, schemaRelease: '1.36' });
    expect(r.warnings).toHaveLength(1);
  });

  it('matchConstraints with wildcards only, or no validations: no warnings', async () => {
    expect(await typeCheckPolicy(policy([{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }], [{ expression: 'object.spec.replicass > 1' }]))).toEqual([]);
    expect(await typeCheckPolicy({ kind: 'ValidatingAdmissionPolicy', spec: {} })).toEqual([]);
  });
});
