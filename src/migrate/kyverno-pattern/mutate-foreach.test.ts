/** Mutate rules with variables: `foreach` per element, variables in a strategic merge, conditions of Pod controllers' rules; what the produced JSONPatch writes. */
import { describe, expect, it, vi } from 'vitest';
import { prepareChain } from '../../admission';
import type { Obj } from '../../base/json';
import { useEngine } from '../../cel/test-helpers';
import { workbenchMutation } from './mutate-helpers';
import { convertPatternRule } from './rule';

useEngine();

// the CEL engine is slow on a loaded machine
vi.setConfig({ testTimeout: 180_000 });

const policy = (rule: Obj, annotations: Obj = {}): Obj => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'p', annotations },
  spec: { rules: [rule] },
});
const rule = (kinds: string[], mutate: Obj, extra: Obj = {}): Obj => ({ name: 'r', match: { any: [{ resources: { kinds } }] }, mutate, ...extra });
const pod = (spec: Obj, metadata: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'default', ...metadata }, spec });
const containers = (...names: string[]) => names.map((name) => ({ name, image: 'i:1' }));

/** The stored object (or `error`) the converted rule gives for `o` on CREATE; the rule must convert exactly. */
async function run(r: Obj, o: Obj, annotations: Obj = {}): Promise<Obj | 'error'> {
  const c = convertPatternRule(policy(r, annotations), r);
  expect(c.status, c.reason).toBe('exact');
  const out = (await workbenchMutation(prepareChain(c.objects), o, 'CREATE')).outcome;
  return out === 'error' ? out : (JSON.parse(out) as Obj);
}

describe('mutate.foreach with patchStrategicMerge', () => {
  const apparmor = rule(['Pod'], {
    foreach: [
      {
        list: 'request.object.spec.[ephemeralContainers, initContainers, containers][]',
        patchStrategicMerge: { metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/{{element.name}}': 'runtime/default' } } },
      },
    ],
  });

  it('adds a key per element, creating the map once', async () => {
    const out = (await run(apparmor, pod({ initContainers: containers('i'), containers: containers('a', 'b') }))) as Obj;
    expect((out.metadata as Obj).annotations).toEqual({
      'container.apparmor.security.beta.kubernetes.io/i': 'runtime/default',
      'container.apparmor.security.beta.kubernetes.io/a': 'runtime/default',
      'container.apparmor.security.beta.kubernetes.io/b': 'runtime/default',
    });
    const kept = (await run(apparmor, pod({ containers: containers('a') }, { annotations: { other: 'x' } }))) as Obj;
    expect((kept.metadata as Obj).annotations).toEqual({ other: 'x', 'container.apparmor.security.beta.kubernetes.io/a': 'runtime/default' });
  });

  const certs = rule(['Pod'], {
    foreach: [
      {
        list: 'request.object.spec.containers',
        patchStrategicMerge: {
          spec: {
            containers: [{ name: '{{ element.name }}', volumeMounts: [{ name: 'certs', mountPath: '/etc/ssl/certs' }] }],
            volumes: [{ name: 'certs', configMap: { name: 'ca' } }],
          },
        },
      },
    ],
  });

  it('merges into every element by name, keeps the list order, and merges the rest of the patch once', async () => {
    const out = (await run(
      certs,
      pod({ containers: [...containers('b', 'a'), { name: 'c', image: 'i', volumeMounts: [{ name: 'v', mountPath: '/v' }] }] }),
    )) as Obj;
    const spec = out.spec as Obj;
    expect((spec.containers as Obj[]).map((c) => [c.name, (c.volumeMounts as Obj[]).map((m) => m.mountPath)])).toEqual([
      ['b', ['/etc/ssl/certs']],
      ['a', ['/etc/ssl/certs']],
      ['c', ['/etc/ssl/certs', '/v']],
    ]);
    expect(spec.volumes).toEqual([{ name: 'certs', configMap: { name: 'ca', defaultMode: 420 } }]);
  });

  it('merges under the template in the rules Kyverno generates for Pod controllers', async () => {
    const deployment: Obj = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: containers('a') } } },
    };
    const out = (await run(certs, deployment)) as Obj;
    const spec = ((out.spec as Obj).template as Obj).spec as Obj;
    expect((spec.containers as Obj[])[0]!.volumeMounts).toEqual([{ name: 'certs', mountPath: '/etc/ssl/certs' }]);
  });
});

describe('mutate.foreach with patchesJson6902', () => {
  const sizeLimit = rule(['Pod'], {
    foreach: [
      {
        list: 'request.object.spec.volumes[]',
        preconditions: { all: [{ key: "{{element.emptyDir.sizeLimit || ''}}", operator: 'Equals', value: '' }] },
        patchesJson6902: '- path: "/spec/volumes/{{elementIndex}}/emptyDir/sizeLimit"\n  op: add\n  value: 100Mi',
      },
    ],
  });

  it("patches each element where its conditions hold, at the element's index", async () => {
    const volumes = [
      { name: 'a', emptyDir: {} },
      { name: 'b', emptyDir: { sizeLimit: '1Gi' } },
      { name: 'c', configMap: { name: 'm' } },
    ];
    const out = (await run(sizeLimit, pod({ containers: containers('x'), volumes }))) as Obj;
    expect((out.spec as Obj).volumes).toEqual([
      { name: 'a', emptyDir: { sizeLimit: '100Mi' } },
      { name: 'b', emptyDir: { sizeLimit: '1Gi' } },
      // Kyverno's add creates the missing map on its way
      { name: 'c', configMap: { name: 'm', defaultMode: 420 }, emptyDir: { sizeLimit: '100Mi' } },
    ]);
  });

  it('refuses variables printed into the YAML text', () => {
    const r = rule(['Pod'], {
      foreach: [
        {
          list: 'request.object.spec.containers',
          patchesJson6902: '- op: add\n  path: /spec/containers/{{elementIndex}}/env/-\n  value: {name: I, value: "{{element.image}}"}',
        },
      ],
    });
    expect(convertPatternRule(policy(r), r).reason).toMatch(/YAML text/);
  });
});

describe('variables in a patchStrategicMerge', () => {
  const term = (value: string) => ({
    weight: 1,
    podAffinityTerm: { topologyKey: 'k', labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: [value] }] } },
  });
  const affinity = rule(['Deployment'], {
    patchStrategicMerge: {
      spec: {
        template: {
          spec: {
            '+(affinity)': {
              podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [term('{{request.object.spec.template.metadata.labels.app}}')] },
            },
          },
        },
      },
    },
  });
  const deployment = (labels: Obj, spec: Obj = {}): Obj => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'default' },
    spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: containers('a'), ...spec } } },
  });

  it('writes the value the variable reads', async () => {
    const out = (await run(affinity, deployment({ app: 'web' }))) as Obj;
    expect((((out.spec as Obj).template as Obj).spec as Obj).affinity).toEqual({
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [term('web')] },
    });
  });

  it('errs when the variable does not resolve, even where the patch adds nothing', async () => {
    expect(await run(affinity, deployment({ other: 'web' }))).toBe('error');
    expect(await run(affinity, deployment({ other: 'web' }, { affinity: {} }))).toBe('error');
  });
});

describe("conditions of a Pod rule's generated rules", () => {
  it("read the template's fields, as Kyverno rewrites them", async () => {
    const r = rule(
      ['Pod'],
      { patchStrategicMerge: { spec: { terminationGracePeriodSeconds: 50 } } },
      {
        preconditions: { all: [{ key: '{{request.object.spec.terminationGracePeriodSeconds || `0` }}', operator: 'GreaterThan', value: 50 }] },
      },
    );
    const deployment = (seconds: number): Obj => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: containers('a'), terminationGracePeriodSeconds: seconds } },
      },
    });
    const seconds = (o: Obj | 'error') => (((o as Obj).spec as Obj).template as Obj & { spec: Obj }).spec.terminationGracePeriodSeconds;
    expect(seconds(await run(r, deployment(90)))).toBe(50);
    expect(seconds(await run(r, deployment(30)))).toBe(30);
  });
});

describe('conditions', () => {
  it('read the quoted identifier `""` at the top as not found (Kyverno has no such variable)', async () => {
    const r = rule(
      ['ConfigMap'],
      { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } },
      {
        preconditions: { all: [{ key: '{{request.object.metadata.annotations.inject || ""}}', operator: 'Equals', value: 'enabled' }] },
      },
    );
    const cm = (annotations: Obj): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', annotations } });
    expect(((await run(r, cm({ inject: 'enabled' }))) as Obj & { metadata: Obj }).metadata.labels).toEqual({ a: 'b' });
    expect(((await run(r, cm({}))) as Obj & { metadata: Obj }).metadata.labels).toBeUndefined();
  });

  it('take a list literal as never text for an In operator', () => {
    const r = rule(
      ['Pod'],
      { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } },
      {
        preconditions: { any: [{ key: 'k', operator: 'AnyNotIn', value: '{{ request.object.spec.tolerations[].key || `[]` }}' }] },
      },
    );
    expect(convertPatternRule(policy(r), r).status).toBe('exact');
  });
});
