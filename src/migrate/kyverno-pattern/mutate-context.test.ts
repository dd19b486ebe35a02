/** A mutate rule's `context` (context.ts) and a namespaceSelector: what the produced MutatingAdmissionPolicy writes (the Workbench's MAP evaluation). */
import { describe, expect, it } from 'vitest';
import type { Obj } from '../../base/json';
import { prepareChain } from '../../admission';
import { useEngine } from '../../cel/test-helpers';
import { withSelectorLabels } from './context-worlds';
import { workbenchMutation } from './mutate-helpers';
import { convertPatternRule } from './rule';

useEngine();

const policy = (rule: Obj): Obj => ({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'p' }, spec: { rules: [rule] } });
const namespace = (labels: Record<string, string>): Obj => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'team', labels: { ...labels, 'kubernetes.io/metadata.name': 'team' } },
});
const deployment: Obj = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', namespace: 'team' },
  spec: { selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
};

describe('mutate rules with context', () => {
  // copy-namespace-labels (kyverno/policies): the request's own Namespace through an apiCall
  const owner: Obj = {
    name: 'owner',
    match: { any: [{ resources: { kinds: ['Deployment'], operations: ['CREATE'] } }] },
    context: [
      { name: 'owner', apiCall: { urlPath: '/api/v1/namespaces/{{ request.object.metadata.namespace }}', jmesPath: "metadata.labels.owner || 'empty'" } },
    ],
    mutate: { patchStrategicMerge: { metadata: { labels: { owner: '{{ owner }}' } } } },
  };

  it("copies a label of the request's Namespace (namespaceObject), its default where the label is missing", async () => {
    const c = convertPatternRule(policy(owner), owner);
    expect(c.status, c.reason).toBe('exact');
    const chain = prepareChain(c.objects);
    const labels = async (ns: Obj) => ((JSON.parse((await workbenchMutation(chain, deployment, 'CREATE', [ns])).outcome) as Obj).metadata as Obj).labels;
    expect(await labels(namespace({ owner: 'ana' }))).toEqual({ owner: 'ana' });
    expect(await labels(namespace({}))).toEqual({ owner: 'empty' });
  });

  // copy-namespace-labels' other rule: every label of the Namespace, merged into the object's (a null removes its key)
  const all: Obj = {
    name: 'all',
    match: { any: [{ resources: { kinds: ['Deployment'], operations: ['CREATE'] } }] },
    context: [
      {
        name: 'alllabels',
        apiCall: {
          urlPath: '/api/v1/namespaces/{{ request.object.metadata.namespace }}',
          jmesPath: 'metadata.labels | merge(@, {"kubernetes.io/metadata.name":null})',
        },
      },
    ],
    mutate: { patchStrategicMerge: { metadata: { labels: '{{ alllabels }}' } } },
  };

  it("merges the Namespace's labels into the object's, key by key (kyaml's merge of a map), a null removing its key", async () => {
    const c = convertPatternRule(policy(all), all);
    expect(c.status, c.reason).toBe('exact');
    const chain = prepareChain(c.objects);
    const labels = async (own: Record<string, string> | undefined, ns: Obj) => {
      const d = { ...deployment, metadata: { ...(deployment.metadata as Obj), ...(own ? { labels: own } : {}) } };
      return ((JSON.parse((await workbenchMutation(chain, d, 'CREATE', [ns])).outcome) as Obj).metadata as Obj).labels;
    };
    expect(await labels({ app: 'a', team: 'old', 'kubernetes.io/metadata.name': 'x' }, namespace({ team: 'new' }))).toEqual({ app: 'a', team: 'new' });
    expect(await labels(undefined, namespace({ team: 'new' }))).toEqual({ team: 'new' });
    // `null` in the multi-select is the field named null: the Namespace's label of that name
    expect(await labels({ app: 'a' }, namespace({ null: 'n' }))).toEqual({ app: 'a', null: 'n', 'kubernetes.io/metadata.name': 'n' });
  });

  it('refuses context beside a foreach other than removals per element, and context it has no data for', () => {
    const withList = { ...owner, mutate: { foreach: [{ list: 'request.object.spec.template.spec.containers', patchStrategicMerge: {} }] } };
    // Kyverno would load the entry inside the foreach, on the object as the elements before left it
    expect(convertPatternRule(policy(withList), withList).reason).toMatch(/context a foreach would load/);
    const loaded = { ...withList, preconditions: { all: [{ key: '{{ owner }}', operator: 'NotEquals', value: '' }] } };
    expect(convertPatternRule(policy(loaded), loaded).reason).toMatch(/context beside a foreach other than removals/);
    const nodes = { ...owner, context: [{ name: 'n', apiCall: { urlPath: '/api/v1/nodes/x', jmesPath: 'metadata.labels' } }] };
    expect(convertPatternRule(policy(nodes), nodes).status).toBe('unsupported');
  });

  // backup-all-volumes (velero): a variable joining the PVC volumes' names
  const backup: Obj = {
    name: 'backup',
    match: { any: [{ resources: { kinds: ['Pod'] } }] },
    context: [{ name: 'volumes', variable: { jmesPath: "join(',',request.object.spec.volumes[?persistentVolumeClaim].name)" } }],
    mutate: { patchStrategicMerge: { metadata: { annotations: { 'backup.velero.io/backup-volumes': '{{ volumes }}' } } } },
  };

  it("joins the PVC volumes' names (go-jmespath's join), an empty text for none", async () => {
    const c = convertPatternRule(policy(backup), backup);
    expect(c.status, c.reason).toBe('exact');
    const chain = prepareChain(c.objects);
    const annotations = async (volumes: Obj[]) => {
      const pod: Obj = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: 'default' },
        spec: { containers: [{ name: 'c', image: 'i' }], volumes },
      };
      return ((JSON.parse((await workbenchMutation(chain, pod, 'CREATE')).outcome) as Obj).metadata as Obj).annotations;
    };
    const pvc = (name: string): Obj => ({ name, persistentVolumeClaim: { claimName: name } });
    expect(await annotations([pvc('a'), { name: 'e', emptyDir: {} }, pvc('b')])).toEqual({ 'backup.velero.io/backup-volumes': 'a,b' });
    expect(await annotations([{ name: 'e', emptyDir: {} }])).toEqual({ 'backup.velero.io/backup-volumes': '' });
  });

  it("gives the differential's clusters the labels a namespaceSelector asks, in three of four", () => {
    const rule = { match: { any: [{ resources: { kinds: ['Pod'], namespaceSelector: { matchLabels: { backup: 'true' } } } }] } };
    const worlds = withSelectorLabels(rule, undefined, 4) ?? [];
    expect(worlds.map((w) => w.namespaceLabels.backup)).toEqual(['true', 'true', 'true', 'other']);
    expect(withSelectorLabels({ match: { any: [{ resources: { kinds: ['Pod'] } }] } }, undefined)).toBeUndefined();
  });
});
