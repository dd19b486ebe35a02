/**
 * The oracle's `action` (actions.go): the failure action Kyverno v1.19's webhook takes on a failed
 * legacy validate rule, per request, from Kyverno's policy cache and engine response. These are the
 * cases where the overrides by Namespace decide it, as Kyverno's code reads them.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Obj } from '../../src/base/json';
import { ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';
import { decideKyverno } from './oracle';

vi.setConfig({ testTimeout: ORACLE_TEST_TIMEOUT });

const rule = (validate: Obj, kinds = ['ConfigMap']): Obj => ({
  name: 'owner-label',
  match: { any: [{ resources: { kinds } }] },
  validate: { message: 'an owner label is required', pattern: { metadata: { labels: { owner: '?*' } } }, ...validate },
});
const policy = (spec: Obj, r: Obj): Obj => ({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'p' }, spec: { ...spec, rules: [r] } });
const object = (kind: string, namespace?: string): Obj => ({
  apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1',
  kind,
  metadata: { name: 'x', ...(namespace ? { namespace } : {}) },
  ...(kind === 'Deployment' ? { spec: { template: { metadata: {}, spec: { containers: [{ name: 'c', image: 'a' }] } } } } : {}),
});

/** Each request's rule results as `rule status action`. */
async function actions(p: Obj, resources: Obj[]): Promise<string[][]> {
  const answers = await decideKyverno(resources.map((resource) => ({ policy: p, resource })));
  return answers.map((a) => {
    expect(a.error).toBeUndefined();
    return a.results.map((r) => `${r.rule} ${r.status} ${r.action}`);
  });
}

describe('the Kyverno oracle reports the failure action', () => {
  it('overrides by Namespace, policy-level and per rule, wildcards included; the rules Kyverno generates for Pod controllers', async () => {
    const overrides = [{ action: 'Audit', namespaces: ['dev-*', 'qa-?'] }];
    const configMaps = ['prod', 'dev-1', 'qa-1', 'qa-12'].map((ns) => object('ConfigMap', ns));
    const expected = [['owner-label fail Enforce'], ['owner-label fail Audit'], ['owner-label fail Audit'], ['owner-label fail Enforce']];
    expect(await actions(policy({ validationFailureAction: 'Enforce', validationFailureActionOverrides: overrides }, rule({})), configMaps)).toEqual(expected);
    expect(await actions(policy({}, rule({ failureAction: 'Enforce', failureActionOverrides: overrides })), configMaps)).toEqual(expected);
    const pods = policy({ validationFailureAction: 'Enforce', validationFailureActionOverrides: overrides }, rule({}, ['Pod']));
    expect(await actions(pods, [object('Deployment', 'dev-1'), object('Deployment', 'prod')])).toEqual([
      ['autogen-owner-label fail Audit'],
      ['autogen-owner-label fail Enforce'],
    ]);
  });

  it("Enforce only where both the policy cache and the engine say so: a rule's failureAction beside the policy's overrides", async () => {
    // the cache: the policy's override (Audit in dev-*); the engine: the rule's Enforce
    const a = policy(
      { validationFailureAction: 'Audit', validationFailureActionOverrides: [{ action: 'Audit', namespaces: ['dev-*'] }] },
      rule({ failureAction: 'Enforce' }),
    );
    expect(await actions(a, [object('ConfigMap', 'prod'), object('ConfigMap', 'dev-1')])).toEqual([['owner-label fail Enforce'], ['owner-label fail Audit']]);
    // the cache: the policy's override (Enforce in prod); the engine: the rule's Audit
    const b = policy(
      { validationFailureAction: 'Enforce', validationFailureActionOverrides: [{ action: 'Enforce', namespaces: ['prod'] }] },
      rule({ failureAction: 'Audit' }),
    );
    expect(await actions(b, [object('ConfigMap', 'prod')])).toEqual([['owner-label fail Audit']]);
    // an empty namespaces list: every Namespace for the cache, none for the engine
    const c = policy({ validationFailureAction: 'Enforce', validationFailureActionOverrides: [{ action: 'Audit', namespaces: [] }] }, rule({}));
    expect(await actions(c, [object('ConfigMap', 'prod')])).toEqual([['owner-label fail Audit']]);
  });

  it('a cluster-scoped request: the cache has no Namespace, so an override by names does not apply there', async () => {
    const p = policy(
      { validationFailureAction: 'Audit', validationFailureActionOverrides: [{ action: 'Enforce', namespaces: ['*'] }] },
      rule({}, ['Namespace', 'ConfigMap']),
    );
    expect(await actions(p, [object('Namespace'), object('ConfigMap', 'prod')])).toEqual([['owner-label fail Audit'], ['owner-label fail Enforce']]);
  });
});
