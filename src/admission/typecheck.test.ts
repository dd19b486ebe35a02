/**
 * typeCheckPolicy on the real engine and the release's schema asset: built-in kinds (the
 * differential test against kube-controller-manager's own checker is
 * tools/typecheck-oracle/oracle.test.ts), CustomResourceDefinitions of the workspace, the
 * release's asset, and the REST mapping of the release (a resource it does not serve is not checked).
 */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { schemaReleaseFor } from '../cel';
import { KUBERNETES_VERSIONS } from '../base/releases';
import { crdSchemas, typeCheckPolicy, typeCheckPolicyResult, typesToCheck } from './typecheck';
import { ELEMENT, objectFieldsAt, schemaFieldsAt } from './schema-fields';

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
              spec: {
                type: 'object',
                properties: { size: { type: 'integer' }, color: { type: 'string' }, parts: { type: 'array', items: { type: 'string' } } },
              },
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

  it("a typo in a field of a built-in kind: the apiserver's warning at spec.validations[0].expression", async () => {
    const w = await typeCheckPolicy(
      policy(
        [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }],
        [{ expression: 'object.spec.replicass > 1' }, { expression: 'object.spec.replicas > 1' }],
      ),
    );
    expect(w).toEqual([
      {
        fieldRef: 'spec.validations[0].expression',
        warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^\n",
      },
    ]);
  });

  it('custom resources are typed by their CustomResourceDefinition in the workspace (apiVersion, kind and metadata added)', async () => {
    const p = policy(
      [{ apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }],
      [
        { expression: 'object.spec.size < 10' },
        { expression: "object.spec.colour == 'red'" },
        { expression: "object.spec.size == 'big'" },
        { expression: "object.metadata.name.startsWith('w') && object.kind == 'Widget'" },
        { expression: 'object.spec.parts.all(p, p.size() < 5)' },
      ],
    );
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

  it('each release is checked with its own schemas', async () => {
    for (const v of KUBERNETES_VERSIONS) expect(schemaReleaseFor(v)).toBe(v);
    const p = policy([{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }], [{ expression: 'object.spec.replicass > 1' }]);
    const r = await typeCheckPolicyResult(p, { kubernetesVersion: '1.33' });
    expect(r).toMatchObject({ ok: true, schemaRelease: '1.33' });
    expect(r.warnings).toHaveLength(1);
  });

  it('a field a release does not have yet is an undefined field there (PodSpec.resources, from 1.32)', async () => {
    const p = policy([{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }], [{ expression: '!has(object.spec.resources)' }]);
    const at131 = await typeCheckPolicy(p, { kubernetesVersion: '1.31' });
    expect(at131.map((w) => w.fieldRef)).toEqual(['spec.validations[0].expression']);
    expect(at131[0]!.warning).toContain("undefined field 'resources'");
    expect(await typeCheckPolicy(p, { kubernetesVersion: '1.32' })).toEqual([]);
  });

  it('matchConstraints with wildcards only, or no validations: no warnings', async () => {
    expect(await typeCheckPolicy(policy([{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }], [{ expression: 'object.spec.replicass > 1' }]))).toEqual(
      [],
    );
    expect(await typeCheckPolicy({ kind: 'ValidatingAdmissionPolicy', spec: {} })).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
// The typed fields of object for the CEL editor's completion and hover (./schema-fields.ts): the
// kinds typesToCheck resolves, the release's real schema asset, nested lists and maps, several
// kinds merged, a CRD from the workspace, nothing for what has no schema; and every field offered
// type-checks, the others do not.

const deployments = policy([{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }], []);
const widgets = policy([{ apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }], []);
/** The Widget CRD with another spec schema. */
const withSpec = (properties: Record<string, unknown>) => ({
  ...crd,
  spec: {
    ...crd.spec,
    versions: [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } } },
    ],
  },
});
const field = (r: Awaited<ReturnType<typeof objectFieldsAt>>, name: string) => r?.fields.find((f) => f.name === name);

describe('typesToCheck', () => {
  it('resolves exact rules through the release REST mapping, skipping wildcards and subresources, sorted', () => {
    const p = policy(
      [
        { apiGroups: ['apps'], apiVersions: ['v1'], resources: ['replicasets', 'deployments', 'deployments/status'] },
        { apiGroups: [''], apiVersions: ['v1'], resources: ['pods', '*'] },
        { apiGroups: ['*'], apiVersions: ['v1'], resources: ['services'] },
      ],
      [],
    );
    expect(typesToCheck(p)).toEqual([
      { group: '', version: 'v1', kind: 'Pod' },
      { group: 'apps', version: 'v1', kind: 'Deployment' },
      { group: 'apps', version: 'v1', kind: 'ReplicaSet' },
    ]);
    expect(typesToCheck(policy([{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }], []))).toEqual([]);
  });
});

describe('objectFieldsAt (the release schema asset)', () => {
  it('a Deployment spec: replicas is an integer, template a PodTemplateSpec', async () => {
    const r = await objectFieldsAt(deployments, ['spec']);
    expect(r?.kinds).toEqual(['apps/v1 Deployment']);
    expect(r?.types).toEqual([{ kind: 'apps/v1 Deployment', type: 'DeploymentSpec' }]);
    expect(field(r, 'replicas')).toEqual({ name: 'replicas', type: 'integer', kinds: ['apps/v1 Deployment'] });
    expect(field(r, 'template')?.type).toBe('PodTemplateSpec');
    expect(field(r, 'replicass')).toBeUndefined();
  });

  it('walks nested lists to the element type, and maps to their value type', async () => {
    const spec = await objectFieldsAt(deployments, ['spec', 'template', 'spec']);
    expect(field(spec, 'containers')?.type).toBe('[]Container');
    expect(field(spec, 'nodeSelector')?.type).toBe('map[string]string');
    const container = await objectFieldsAt(deployments, ['spec', 'template', 'spec', 'containers', ELEMENT]);
    expect(container?.types[0]?.type).toBe('Container');
    expect(field(container, 'image')?.type).toBe('string');
    expect(field(container, 'ports')?.type).toBe('[]ContainerPort');
    const port = await objectFieldsAt(deployments, ['spec', 'template', 'spec', 'containers', ELEMENT, 'ports', ELEMENT]);
    expect(field(port, 'containerPort')?.type).toBe('integer');
    const label = await objectFieldsAt(deployments, ['metadata', 'labels', ELEMENT]);
    expect(label?.types[0]?.type).toBe('string');
    expect(label?.fields).toEqual([]);
    expect(await objectFieldsAt(deployments, ['spec', 'nosuch'])).toBeUndefined();
  });

  it('as the type checker types them: untyped Quantity maps dropped, date-time strings are timestamps', async () => {
    const resources = await objectFieldsAt(deployments, ['spec', 'template', 'spec', 'containers', ELEMENT, 'resources']);
    expect(resources?.fields.map((f) => f.name)).toEqual(['claims']);
    expect(await objectFieldsAt(deployments, ['spec', 'template', 'spec', 'containers', ELEMENT, 'resources', 'limits'])).toBeUndefined();
    const meta = await objectFieldsAt(deployments, ['metadata']);
    expect(field(meta, 'creationTimestamp')?.type).toBe('timestamp');
    expect(field(meta, 'labels')?.type).toBe('map[string]string');
    expect(field(meta, 'ownerReferences')?.type).toBe('[]OwnerReference');
  });

  it('several kinds: every field says which kinds have it', async () => {
    const p = policy([{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments', 'daemonsets'] }], []);
    const r = await objectFieldsAt(p, ['spec']);
    expect(r?.kinds).toEqual(['apps/v1 DaemonSet', 'apps/v1 Deployment']);
    expect(field(r, 'template')?.kinds).toEqual(['apps/v1 DaemonSet', 'apps/v1 Deployment']);
    expect(field(r, 'replicas')).toEqual({ name: 'replicas', type: 'integer', kinds: ['apps/v1 Deployment'] });
    expect(field(r, 'updateStrategy')?.kinds).toEqual(['apps/v1 DaemonSet']);
  });

  it('a custom resource types object with its CRD schema from the workspace', async () => {
    const p = widgets;
    const spec = await objectFieldsAt(p, ['spec'], { workspace: [crd] });
    expect(spec?.fields.map((f) => [f.name, f.type])).toEqual([
      ['color', 'string'],
      ['parts', '[]string'],
      ['size', 'integer'],
    ]);
    expect((await objectFieldsAt(p, ['spec', 'parts', ELEMENT], { workspace: [crd] }))?.types).toEqual([{ kind: 'example.com/v1 Widget', type: 'string' }]);
    // lists of objects, maps, int-or-string
    const rich = withSpec({
      items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, weight: { type: 'number' } } } },
      tags: { type: 'object', additionalProperties: { type: 'string' } },
      port: { 'x-kubernetes-int-or-string': true },
    });
    expect((await objectFieldsAt(p, ['spec'], { workspace: [rich] }))?.fields.map((f) => [f.name, f.type])).toEqual([
      ['items', '[]object'],
      ['port', 'int-or-string'],
      ['tags', 'map[string]string'],
    ]);
    expect((await objectFieldsAt(p, ['spec', 'items', ELEMENT], { workspace: [rich] }))?.fields.map((f) => [f.name, f.type])).toEqual([
      ['name', 'string'],
      ['weight', 'number'],
    ]);
    // the root as the apiserver publishes a custom resource: kind, apiVersion, metadata an ObjectMeta
    const root = await objectFieldsAt(p, [], { workspace: [crd] });
    expect(root?.fields.map((f) => [f.name, f.type])).toEqual([
      ['apiVersion', 'string'],
      ['kind', 'string'],
      ['metadata', 'ObjectMeta'],
      ['spec', 'object'],
    ]);
    expect(field(await objectFieldsAt(p, ['metadata'], { workspace: [crd] }), 'labels')?.type).toBe('map[string]string');
    // without the CRD in the workspace the resource is unknown: no schema
    expect(await objectFieldsAt(p, ['spec'])).toBeUndefined();
  });

  it('nothing known: wildcards, no matchConstraints, a CRD without schema', async () => {
    expect(await objectFieldsAt(policy([{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }], []), [])).toBeUndefined();
    expect(await objectFieldsAt({ kind: 'ValidatingAdmissionPolicy', spec: {} }, [])).toBeUndefined();
    const bare = { ...crd, spec: { ...crd.spec, versions: [{ name: 'v1', served: true, storage: true }] } };
    expect(await objectFieldsAt(widgets, ['spec'], { workspace: [bare] })).toBeUndefined();
  });

  it('schemaFieldsAt follows $ref chains within the definitions', () => {
    const defs = { A: { type: 'object', properties: { b: { $ref: '#/definitions/B' } } }, B: { type: 'object', properties: { n: { type: 'integer' } } } };
    expect(schemaFieldsAt([{ kind: 'x', schema: { $ref: '#/definitions/A' }, definitions: defs }], ['b'])).toEqual({
      kinds: ['x'],
      types: [{ kind: 'x', type: 'B' }],
      fields: [{ name: 'n', type: 'integer', kinds: ['x'] }],
    });
  });
});

/**
 * The fields offered are the fields the apiserver's type checker accepts (wasm/upstream_typechecking_*.go,
 * the controller's code): every offered field at a few paths type-checks without a warning, and the
 * fields the walk leaves out (untyped Quantity maps, fields no schema has) are undefined.
 */
describe('objectFieldsAt agrees with the type checker', { timeout: 60_000 }, () => {
  useEngine();

  const check = async (p: Record<string, unknown> & { spec: object }, cel: string, path: string[], left: string[], workspace: unknown[] = []) => {
    const at = await objectFieldsAt(p, path, { workspace });
    const names = at!.fields.map((f) => f.name);
    const all = [...names, ...left];
    const withValidations = { ...p, spec: { ...p.spec, validations: all.map((n) => ({ expression: `has(${cel}.${n})` })) } };
    const warned = (await typeCheckPolicy(withValidations, { workspace })).map((w) => all[Number(/validations\[(\d+)\]/.exec(w.fieldRef)![1])]);
    expect(warned).toEqual(left);
  };

  it('a Deployment: metadata, the pod spec, a container, its resources', async () => {
    await check(deployments, 'object.metadata', ['metadata'], ['nosuch']);
    await check(deployments, 'object.spec.template.spec', ['spec', 'template', 'spec'], ['nosuch']);
    await check(deployments, 'object.spec.template.spec.containers[0]', ['spec', 'template', 'spec', 'containers', ELEMENT], ['nosuch']);
    await check(
      deployments,
      'object.spec.template.spec.containers[0].resources',
      ['spec', 'template', 'spec', 'containers', ELEMENT, 'resources'],
      ['limits', 'requests'],
    );
  });

  it('a custom resource: root and metadata as the apiserver publishes them', async () => {
    await check(widgets, 'object', [], ['status'], [crd]);
    await check(widgets, 'object.metadata', ['metadata'], ['nosuch'], [crd]);
    await check(widgets, 'object.spec', ['spec'], ['colour'], [crd]);
  });
});
