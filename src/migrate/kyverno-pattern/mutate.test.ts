/** The mutate converter: which constructs convert, and what the produced JSONPatch writes (the Workbench's MAP evaluation). */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../../fixtures';
import { prepareChain } from '../../admission';
import type { Obj } from '../../base/json';
import { evaluate } from '../../cel';
import { useEngine } from '../../cel/test-helpers';
import { parseDocuments } from '../../yaml';
import { convertPolicies } from '../index';
import { runSourceTestCases, sourceTestCases } from '../source-tests';
import { canonical, workbenchMutation } from './mutate-helpers';
import { convertPatternRule } from './rule';

useEngine();

const policy = (rule: Obj): Obj => ({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'p' }, spec: { rules: [rule] } });
const podRule = (mutate: Obj, extra: Obj = {}): Obj => ({ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate, ...extra });
const pod = (spec: Obj, metadata: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'default', ...metadata }, spec });

describe('mutate rules', () => {
  it('names what it does not convert', () => {
    const reason = (mutate: Obj, extra: Obj = {}) => {
      const c = convertPatternRule(policy(podRule(mutate, extra)), podRule(mutate, extra));
      expect(c.status).toBe('unsupported');
      return c.reason;
    };
    expect(reason({ patchStrategicMerge: { metadata: { labels: { '{{ request.object.metadata.name }}': 'a' } } } })).toMatch(/variables/);
    expect(reason({ patchStrategicMerge: { spec: { $patch: 'replace' } } })).toMatch(/\$patch/);
    expect(reason({ patchStrategicMerge: { metadata: { labels: { a: null } } } })).toMatch(/null/);
    expect(reason({ targets: [{ kind: 'Pod' }], patchStrategicMerge: {} })).toMatch(/targets/);
    expect(reason({ foreach: [] })).toMatch(/foreach/);
    expect(reason({ patchesJson6902: '- op: add\n  path: /spec/x/-2\n  value: 1' })).toMatch(/negative index/);
    expect(reason({ patchesJson6902: '- op: remove\n  path: /spec/x/-1' })).toMatch(/negative index/);
    expect(reason({ patchesJson6902: '- op: move\n  from: /a\n  path: /b' })).toMatch(/move/);
  });

  it('adds where absent, merges containers by name under a conditional anchor, and skips the rule when a global anchor fails', async () => {
    const rule = podRule({
      patchStrategicMerge: {
        metadata: { annotations: { '+(a)': 'added' } },
        spec: { containers: [{ '(name)': 'c*', imagePullPolicy: 'Always' }], volumes: [{ '<(emptyDir)': {} }] },
      },
    });
    const c = convertPatternRule(policy(rule), rule);
    expect(c.status, c.reason).toBe('exact');
    expect(c.objects.map((o) => o.kind)).toEqual(['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding']);
    const chain = prepareChain(c.objects);
    const containers = [
      { name: 'c1', image: 'i:1' },
      { name: 'd', image: 'i:1' },
    ];
    const emptyDir = [{ name: 'v', emptyDir: {} }];
    const out = async (o: Obj) => JSON.parse((await workbenchMutation(chain, o, 'CREATE')).outcome) as Obj;
    const applied = await out(pod({ containers, volumes: emptyDir }, { annotations: { b: 'kept' } }));
    expect((applied.metadata as Obj).annotations).toEqual({ a: 'added', b: 'kept' });
    expect(((applied.spec as Obj).containers as Obj[]).map((x) => x.imagePullPolicy)).toEqual(['Always', 'IfNotPresent']);
    const kept = await out(pod({ containers, volumes: emptyDir }, { annotations: { a: 'mine' } }));
    expect((kept.metadata as Obj).annotations).toEqual({ a: 'mine' });
    // no emptyDir volume: the global anchor fails, nothing is patched
    const skipped = await out(pod({ containers, volumes: [{ name: 'v', configMap: { name: 'm' } }] }));
    expect(canonical((skipped.metadata as Obj).annotations ?? {})).toBe('{}');
  });
});

describe('constructs the library differential refuted, now as Kyverno does them', () => {
  const run = async (rule: Obj, o: Obj) => {
    const c = convertPatternRule(policy(rule), rule);
    expect(c.status, c.reason).toBe('exact');
    return JSON.parse((await workbenchMutation(prepareChain(c.objects), o, 'CREATE')).outcome) as Obj;
  };
  const secrets = podRule({ patchStrategicMerge: { spec: { containers: [{ '<(image)': 'corp/*' }], imagePullSecrets: [{ name: 's' }] } } });

  it('a global anchor on a null list passes, as on an empty one', async () => {
    expect((await run(secrets, pod({ containers: null }))).spec).toMatchObject({ imagePullSecrets: [{ name: 's' }] });
  });

  it('drops keyed-list elements with none of their keys (imagePullSecrets: [{}]), patched or not', async () => {
    const c = (image: string) => [{ name: 'c', image }];
    expect((await run(secrets, pod({ containers: c('corp/a'), imagePullSecrets: [{}] }))).spec).toMatchObject({ imagePullSecrets: [{ name: 's' }] });
    expect(((await run(secrets, pod({ containers: c('other/a'), imagePullSecrets: [{}] }))).spec as Obj).imagePullSecrets).toBeUndefined();
  });

  it('does not patch a list element whose name the list repeats (kyaml keeps the unpatched last one)', async () => {
    const rule = podRule({ patchStrategicMerge: { spec: { containers: [{ '(name)': '*', env: [{ name: 'E', value: '1' }] }] } } });
    const twice = { name: 'a', image: 'i' };
    const out = (await run(rule, pod({ containers: [twice, twice, { name: 'b', image: 'i' }] }))).spec as Obj;
    expect((out.containers as Obj[]).map((x) => [x.name, x.env ?? null])).toEqual([
      ['a', null],
      ['b', [{ name: 'E', value: '1' }]],
    ]);
  });

  it("keeps one of a ServiceAccount's secrets per name (first position, last content), its imagePullSecrets as they are", async () => {
    // as the oracle answered for this ServiceAccount
    const rule: Obj = {
      name: 'r',
      match: { any: [{ resources: { kinds: ['ServiceAccount'] } }] },
      mutate: { patchStrategicMerge: { automountServiceAccountToken: false } },
    };
    const sa: Obj = {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'default', namespace: 'default' },
      secrets: [{ name: 'a', namespace: 'x' }, { name: 'a', namespace: 'y' }, { name: 'b' }],
      imagePullSecrets: [{ name: 'c' }, { name: 'c' }, {}],
    };
    const out = await run(rule, sa);
    expect([out.secrets, out.imagePullSecrets, out.automountServiceAccountToken]).toEqual([
      [{ name: 'a', namespace: 'y' }, { name: 'b' }],
      [{ name: 'c' }, { name: 'c' }, {}],
      false,
    ]);
  });

  it('keeps of a keyed list with an element without its key what Kyverno keeps: the last such element, else what stands before an empty one', async () => {
    // as the oracle answered for these ServiceAccounts
    const rule: Obj = {
      name: 'r',
      match: { any: [{ resources: { kinds: ['ServiceAccount'] } }] },
      mutate: { patchStrategicMerge: { automountServiceAccountToken: false } },
    };
    const a = { name: 'a', namespace: '1' };
    const a2 = { name: 'a', namespace: '2' };
    const b = { name: 'b', namespace: '3' };
    const k = { namespace: 'k' };
    const k2 = { namespace: 'k2' };
    const secrets = async (list: Obj[]) =>
      (await run(rule, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' }, secrets: list })).secrets;
    expect(await secrets([a, a2, k])).toEqual([k]);
    expect(await secrets([k, a, k2, {}])).toEqual([k2]);
    expect(await secrets([a, a2, {}, b])).toEqual([a]);
    expect(await secrets([b, a, a2, {}])).toEqual([b, a]);
    // an empty list is stored as none
    expect(await secrets([{}, a])).toBeUndefined();
  });

  it('adds at -1 as Kyverno does: the last element on the way (a list of one map where none), an append at the end', async () => {
    const rule: Obj = {
      name: 'r',
      match: { any: [{ resources: { kinds: ['Pod'] } }] },
      mutate: {
        patchesJson6902:
          '- op: add\n  path: /spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/-1/matchExpressions/-1\n  value: {key: k, operator: Exists}',
      },
    };
    const terms = async (t?: unknown) => {
      const required = t === undefined ? {} : { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: t } };
      const out = await run(rule, pod({ containers: [{ name: 'c', image: 'i' }], affinity: { nodeAffinity: required } }));
      return ((((out.spec as Obj).affinity as Obj).nodeAffinity as Obj).requiredDuringSchedulingIgnoredDuringExecution as Obj).nodeSelectorTerms;
    };
    const e = { key: 'k', operator: 'Exists' };
    const f = { key: 'f', operator: 'Exists' };
    expect(await terms()).toEqual([{ matchExpressions: [e] }]);
    expect(await terms([])).toEqual([{ matchExpressions: [e] }]);
    expect(await terms([{ matchExpressions: [f] }, { matchFields: [f] }])).toEqual([{ matchExpressions: [f] }, { matchFields: [f], matchExpressions: [e] }]);
    expect(await terms([{ matchExpressions: [f] }])).toEqual([{ matchExpressions: [f, e] }]);
  });

  it('excludes by name without an error when the object has no name', async () => {
    const rule: Obj = {
      name: 'r',
      match: { any: [{ resources: { kinds: ['Namespace'] } }] },
      exclude: { any: [{ resources: { names: ['kube-system'] } }] },
      mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } },
    };
    expect((await run(rule, { apiVersion: 'v1', kind: 'Namespace', metadata: {} })).metadata).toEqual({ labels: { a: 'b' } });
  });
});

// every fixture policy converted and its cases run through the CEL engine: minutes on a loaded 2-core runner (the foreach conversions' CEL is large)
describe('the fixture policies against their own kyverno-tests', { timeout: 900_000 }, () => {
  it('the converted policies give the patched resources the tests expect', async () => {
    const root = fixturePath('kyverno-mutate');
    const files: Record<string, string> = {};
    const walk = (d: string): void => {
      for (const e of readdirSync(d)) {
        const p = join(d, e);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.ya?ml$/.test(e)) files[relative(root, p)] = readFileSync(p, 'utf8');
      }
    };
    walk(root);
    const tests = Object.keys(files).filter((f) => f.endsWith('kyverno-test.yaml'));
    expect(tests.length).toBeGreaterThan(3);
    let ran = 0;
    for (const test of tests) {
      const policyFile = Object.keys(files).find((f) => f.startsWith(test.split('/.kyverno-test/')[0]!) && !f.includes('.kyverno-test'))!;
      const sources = parseDocuments(files[policyFile]!).documents.map((d) => d.object as Obj);
      const conversion = convertPolicies(sources, { kubernetesVersion: '1.36', gatekeeper: 'standalone' });
      // as `convert` runs them: a rule's object is its whole policy's, the policy's other rules run around it (kyverno/patch-chain.ts)
      const cases = sourceTestCases({ kyverno: [test], gator: [] }, (path) => files[path], sources, conversion);
      expect(cases.problems).toEqual([]);
      const { runs } = await runSourceTestCases(cases, { evaluate }, '1.36');
      // Kyverno's skip of a mutate rule imports as admit with the object unchanged, which a run where the
      // converted policy does not apply at all (its preconditions false) passes too (src/policy/cases.ts)
      expect(
        runs
          .flat()
          .filter((r) => !r.pass)
          .map((r) => `${r.name}: ${r.why}`),
      ).toEqual([]);
      ran += runs.flat().length;
    }
    expect(ran).toBeGreaterThan(5);
  });
});
