/**
 * `applyRules: One`: Kyverno stops at the first rule of a policy that applies to a request, so a
 * later rule is not evaluated there (the oracle shows it); the converter calls such a later rule's
 * conversion different, its policy applying whatever the earlier rules did.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Obj } from '../../src/base/json';
import { convertPolicies } from '../../src/migrate';
import { ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';
import { decideKyverno } from './oracle';

vi.setConfig({ testTimeout: ORACLE_TEST_TIMEOUT });

const labelRule = (label: string): Obj => ({
  name: `label-${label}`,
  match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
  validate: { message: `a ${label} label`, pattern: { metadata: { labels: { [label]: '?*' } } } },
});
const policy = (applyRules?: string): Obj => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'labels' },
  spec: { validationFailureAction: 'Enforce', ...(applyRules ? { applyRules } : {}), rules: [labelRule('a'), labelRule('b')] },
});
const labelledA: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'd', labels: { a: '1' } } };

describe('applyRules One', () => {
  it('Kyverno evaluates no rule after one that applied; the later rule converts as different', async () => {
    const [one, all] = await decideKyverno([
      { policy: policy('One'), resource: labelledA },
      { policy: policy(), resource: labelledA },
    ]);
    expect(one!.results.map((r) => `${r.rule} ${r.status}`)).toEqual(['label-a pass']);
    expect(all!.results.map((r) => `${r.rule} ${r.status}`)).toEqual(['label-a pass', 'label-b fail']);
    const statuses = (p: Obj) => convertPolicies([p], { kubernetesVersion: '1.37', gatekeeper: 'standalone' }).rules.map((r) => `${r.source.rule} ${r.status}`);
    expect(statuses(policy('One'))).toEqual(['label-a exact', 'label-b different']);
    expect(statuses(policy())).toEqual(['label-a exact', 'label-b exact']);
  });
});
