import { describe, expect, it } from 'vitest';
import type { Obj } from '../../base/json';
import { useEngine } from '../../cel/test-helpers';
import { conditionSites } from './condition-sites';
import { mutants } from './mutants';
import { leafHolds, reachingResources, satisfy, satisfyLeaf, violateLeaf } from './reach';
import { convertPatternRule } from './rule';
import { chainOf, enforcePolicy, vapVerdict } from './test-helpers';

useEngine();

const policy = enforcePolicy;

describe('resources built to reach a Kyverno rule', () => {
  it('reads a leaf as its operators do', () => {
    expect(leafHolds('!*:latest', 'app:1.0')).toBe(true);
    expect(leafHolds('!*:latest', 'app:latest')).toBe(false);
    expect(leafHolds('>=2Gi', '2048Mi')).toBe(true);
    expect(leafHolds('<4', 4)).toBe(false);
    expect(leafHolds('1-5', 3)).toBe(true);
    expect(leafHolds('1!-5', 3)).toBe(false);
    expect(leafHolds('a | b', 'b')).toBe(true);
    expect(leafHolds('?*', '')).toBe(false);
    for (const p of ['!*:latest', '>=2Gi', '<4', '1-5', '?*', 'true', 'Always | IfNotPresent', '>0 & <10']) {
      expect(leafHolds(p, satisfyLeaf(p)), p).toBe(true);
      expect(leafHolds(p, violateLeaf(p)), p).toBe(false);
    }
  });

  it('satisfies anchors: conditions and equality held, negations left out', () => {
    expect(satisfy({ metadata: { labels: { '(app)': 'web*', 'X(debug)': '*', 'team-*': '?*' } }, spec: { '=(hostNetwork)': false } })).toEqual({
      metadata: { labels: { app: 'weba', 'team-a': 'aa' } },
      spec: { hostNetwork: false },
    });
  });

  it('builds objects of the kinds the rule matches (a Pod rule: its controllers) that pass and fail it', async () => {
    const rule: Obj = {
      name: 'no-latest',
      match: { any: [{ resources: { kinds: ['Pod'], namespaces: ['team-*'] } }] },
      validate: { message: 'no latest', pattern: { spec: { containers: [{ image: '!*:latest' }] } } },
    };
    const made = reachingResources(policy(rule), rule);
    expect(new Set(made.map((o) => o.kind))).toEqual(
      new Set(['Pod', 'Deployment', 'DaemonSet', 'Job', 'StatefulSet', 'ReplicaSet', 'ReplicationController', 'CronJob']),
    );
    const chain = chainOf(convertPatternRule(policy(rule), rule).objects);
    const pods = made.filter((o) => o.kind === 'Pod');
    expect(pods.every((p) => (p.metadata as Obj).namespace === 'team-a')).toBe(true);
    const verdicts = await Promise.all(pods.map((p) => vapVerdict(chain, p)));
    expect(verdicts.every((v) => v.reached)).toBe(true);
    expect(new Set(verdicts.map((v) => v.verdict))).toEqual(new Set(['allow', 'deny']));
  });

  it('sets each alternative of a condition: every kind reaches with the apiVersion it needs', () => {
    const rule: Obj = {
      name: 'removed',
      match: { any: [{ resources: { kinds: ['batch/*/CronJob', 'policy/*/PodDisruptionBudget'] } }] },
      preconditions: { all: [{ key: '{{request.object.apiVersion}}', operator: 'AnyIn', value: ['batch/v1beta1', 'policy/v1beta1'] }] },
      validate: { message: 'removed', deny: {} },
    };
    const made = reachingResources(policy(rule), rule).map((o) => `${o.apiVersion}/${o.kind}`);
    expect(made).toEqual(expect.arrayContaining(['batch/v1beta1/CronJob', 'policy/v1beta1/PodDisruptionBudget']));
  });

  it('names objects out of the rule exclude and holds its preconditions', async () => {
    const rule: Obj = {
      name: 'replicas',
      match: { any: [{ resources: { kinds: ['Deployment'], names: ['web-*'], selector: { matchLabels: { tier: 'web' } } } }] },
      exclude: { any: [{ resources: { names: ['web-a'] } }] },
      preconditions: { all: [{ key: '{{ request.object.metadata.labels.stage }}', operator: 'Equals', value: 'prod' }] },
      validate: { message: 'replicas', pattern: { spec: { replicas: '>1' } } },
    };
    const made = reachingResources(policy(rule), rule);
    const chain = chainOf(convertPatternRule(policy(rule), rule).objects);
    const verdicts = await Promise.all(made.map((p) => vapVerdict(chain, p)));
    expect(verdicts.filter((v) => v.reached).map((v) => v.verdict)).toEqual(expect.arrayContaining(['allow', 'deny']));
    expect(made.every((o) => (o.metadata as Obj).name === 'web-a-reach' && ((o.metadata as Obj).labels as Obj).tier === 'web')).toBe(true);
  });

  it('mutates objects whose metadata a condition reads as a leaf (metadata set to a word) without failing', () => {
    const seed: Obj = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' } };
    expect(() => mutants([seed], [{ metadata: 'ownerReferences' }], 100)).not.toThrow();
  });

  it('leaves out an object the apiserver would not decode (a label that is a number): Kyverno never sees it', async () => {
    const rule: Obj = {
      name: 'labelled',
      match: { any: [{ resources: { kinds: ['Deployment'] } }] },
      validate: { message: 'labelled', pattern: { metadata: { labels: { team: '?*' } } } },
    };
    const chain = chainOf(convertPatternRule(policy(rule), rule).objects);
    const deployment = (team: unknown): Obj => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', labels: { team } }, spec: {} });
    expect((await vapVerdict(chain, deployment('a'))).verdict).toBe('allow');
    expect((await vapVerdict(chain, deployment(5))).verdict).toBe('invalid');
  });

  it('aims at the elements of a list a condition flattens, and at a key looked for as a text and as a map', () => {
    const sites = conditionSites({
      all: [
        { key: '{{ length(request.object.spec.containers[].livenessProbe.exec.command[] || `[]`) }}', operator: 'GreaterThan', value: 0 },
        { key: "{{ request.object.spec.volumes[?contains(keys(@), 'emptyDir')] || `[]` | length(@) }}", operator: 'GreaterThanOrEquals', value: 1 },
      ],
    });
    expect(sites).toContainEqual({ spec: { containers: [{ livenessProbe: { exec: { command: ['0'] } } }] } });
    expect(sites).toContainEqual({ spec: { volumes: [{ emptyDir: {} }] } });
    expect(sites).toContainEqual({ spec: { volumes: [{ emptyDir: 'x' }] } });
  });
});
