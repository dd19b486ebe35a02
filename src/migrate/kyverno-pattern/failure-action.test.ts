/**
 * Failure actions that differ by Namespace (spec.validationFailureActionOverrides,
 * validate.failureActionOverrides): the produced bindings deny where Kyverno's webhook enforces and
 * audit where it audits, decided by the Workbench's admission with the bindings as produced (the
 * differential holds the same against Kyverno: workbench/failure-action-overrides).
 */
import { describe, expect, it } from 'vitest';
import type { Obj } from '../../base/json';
import { prepareChain } from '../../admission';
import { useEngine } from '../../cel/test-helpers';
import { convertPatternRule } from './rule';
import { vapVerdict } from './test-helpers';

useEngine();

const ownerRule = (validate: Obj = {}, kinds = ['ConfigMap']): Obj => ({
  name: 'owner-label',
  match: { any: [{ resources: { kinds } }] },
  validate: { message: 'an owner label is required', pattern: { metadata: { labels: { owner: '?*' } } }, ...validate },
});
const clusterPolicy = (spec: Obj, rule: Obj): Obj => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'require-owner' },
  spec: { ...spec, rules: [rule] },
});
const configMap = (namespace: string): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace } });

/** What the produced objects, bound as produced, answer for an object without the label in each Namespace. */
async function answers(policy: Obj, rule: Obj, namespaces: string[]): Promise<string[]> {
  const c = convertPatternRule(policy, rule);
  expect(c.status, c.reason).toBe('exact');
  const chain = prepareChain(c.objects);
  const out: string[] = [];
  for (const ns of namespaces) out.push((await vapVerdict(chain, configMap(ns))).verdict);
  return out;
}

describe('failure action overrides', () => {
  const namespaces = ['prod', 'dev-1', 'dev-', 'xdev-1', 'qa-1', 'qa-12'];

  it('the policy-level and the per-rule form audit the overridden Namespaces (wildcards as Kyverno matches them) and deny elsewhere', async () => {
    const overrides = [{ action: 'Audit', namespaces: ['dev-*', 'qa-?'] }];
    const expected = ['deny', 'allow', 'allow', 'deny', 'allow', 'deny'];
    expect(
      await answers(clusterPolicy({ validationFailureAction: 'Enforce', validationFailureActionOverrides: overrides }, ownerRule()), ownerRule(), namespaces),
    ).toEqual(expected);
    const rule = ownerRule({ failureAction: 'Enforce', failureActionOverrides: overrides });
    expect(await answers(clusterPolicy({}, rule), rule, namespaces)).toEqual(expected);
  });

  it('an Enforce override of an Audit policy denies only there; the first override that matches decides', async () => {
    const spec = {
      validationFailureAction: 'Audit',
      validationFailureActionOverrides: [
        { action: 'Enforce', namespaces: ['prod'] },
        { action: 'Audit', namespaces: ['*'] },
      ],
    };
    expect(await answers(clusterPolicy(spec, ownerRule()), ownerRule(), namespaces)).toEqual(['deny', 'allow', 'allow', 'allow', 'allow', 'allow']);
    const c = convertPatternRule(clusterPolicy(spec, ownerRule()), ownerRule());
    expect(c.objects.map((o) => `${String(o.kind)}/${String((o.metadata as Obj).name)}`)).toEqual([
      'ValidatingAdmissionPolicy/require-owner-owner-label',
      'ValidatingAdmissionPolicyBinding/require-owner-owner-label',
      'ValidatingAdmissionPolicy/require-owner-owner-label-deny',
      'ValidatingAdmissionPolicyBinding/require-owner-owner-label-deny',
    ]);
  });

  it("a rule's own failureAction beside the policy's overrides: denied only where both Kyverno's cache and its engine enforce", async () => {
    // the cache reads the policy's override (Audit in dev-*), the engine the rule's Enforce: dev-* is audited
    const enforcing = ownerRule({ failureAction: 'Enforce' });
    const spec = { validationFailureAction: 'Audit', validationFailureActionOverrides: [{ action: 'Audit', namespaces: ['dev-*'] }] };
    expect(await answers(clusterPolicy(spec, enforcing), enforcing, ['prod', 'dev-1'])).toEqual(['deny', 'allow']);
    // the cache reads the policy's override (Enforce in prod), the engine the rule's Audit: never denied
    const auditing = ownerRule({ failureAction: 'Audit' });
    const enforceProd = { validationFailureAction: 'Enforce', validationFailureActionOverrides: [{ action: 'Enforce', namespaces: ['prod'] }] };
    expect(await answers(clusterPolicy(enforceProd, auditing), auditing, ['prod', 'dev-1'])).toEqual(['allow', 'allow']);
    // an empty namespaces list: every Namespace for the cache, none for the engine: audited everywhere
    const empty = { validationFailureAction: 'Enforce', validationFailureActionOverrides: [{ action: 'Audit', namespaces: [] }] };
    expect(await answers(clusterPolicy(empty, ownerRule()), ownerRule(), ['prod'])).toEqual(['allow']);
  });

  it('what is not converted, in both forms: a namespaceSelector, Namespaces on cluster-scoped kinds, policy-level overrides in a namespaced Policy', () => {
    const selector = [{ action: 'Audit', namespaceSelector: { matchLabels: { env: 'dev' } } }];
    const atPolicy = convertPatternRule(
      clusterPolicy({ validationFailureAction: 'Enforce', validationFailureActionOverrides: selector }, ownerRule()),
      ownerRule(),
    );
    const rule = ownerRule({ failureAction: 'Enforce', failureActionOverrides: selector });
    const atRule = convertPatternRule(clusterPolicy({}, rule), rule);
    for (const c of [atPolicy, atRule]) expect([c.status, c.reason]).toEqual(['unsupported', expect.stringMatching(/namespaceSelector/)]);

    const nsRule = ownerRule({ failureAction: 'Enforce', failureActionOverrides: [{ action: 'Audit', namespaces: ['dev-*'] }] }, ['Namespace']);
    const cluster = convertPatternRule(clusterPolicy({}, nsRule), nsRule);
    expect([cluster.status, cluster.reason]).toEqual(['unsupported', expect.stringMatching(/cluster-scoped kinds/)]);
    // an override of every Namespace holds for cluster-scoped requests too
    const global = ownerRule({ failureAction: 'Enforce', failureActionOverrides: [{ action: 'Audit' }] }, ['Namespace']);
    const converted = convertPatternRule(clusterPolicy({}, global), global);
    expect(converted.status).toBe('exact');
    expect((converted.objects[1].spec as Obj).validationActions).toEqual(['Audit']);

    const namespaced = { ...clusterPolicy({ validationFailureActionOverrides: [{ action: 'Audit', namespaces: ['dev-*'] }] }, ownerRule()), kind: 'Policy' };
    expect(convertPatternRule(namespaced, ownerRule()).status).toBe('unsupported');
  });
});
