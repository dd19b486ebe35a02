import { describe, expect, test } from 'vitest';
import { matchLabelSelector, matchResources, matchWebhook, ruleMismatch, type MatchInput } from './matching';
import type { AdmissionRequest } from '../request/model';
import { bindingDetail } from './dispatch';

const podCreate: AdmissionRequest = {
  operation: 'CREATE',
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  name: 'web',
  namespace: 'prod',
};
const deployCreate: AdmissionRequest = {
  operation: 'CREATE',
  kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
  resource: { group: 'apps', version: 'v1', resource: 'deployments' },
  name: 'web',
  namespace: 'prod',
};
const prodNs = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod', labels: { environment: 'prod' } } };
const rule = (r: Record<string, unknown>) => ({ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: '*', ...r });
const mr = (r: Record<string, unknown>) => ({ namespaceSelector: {}, objectSelector: {}, matchPolicy: 'Equivalent', ...r });

describe('rules.go', () => {
  test('operations, wildcard and exact', () => {
    expect(ruleMismatch(rule({ operations: ['CREATE', 'UPDATE'] }), podCreate)).toBeUndefined();
    expect(ruleMismatch(rule({ operations: ['UPDATE'] }), podCreate)).toContain('operation CREATE');
    expect(ruleMismatch(rule({ operations: ['*'] }), { ...podCreate, operation: 'CONNECT' as const })).toBeUndefined();
  });
  test('groups and versions', () => {
    expect(ruleMismatch(rule({ apiGroups: ['apps'] }), deployCreate)).toBeUndefined();
    expect(ruleMismatch(rule({ apiGroups: ['apps'] }), podCreate)).toContain('apiGroup ""');
    expect(ruleMismatch(rule({ apiGroups: [''], apiVersions: ['v1beta1'] }), podCreate)).toContain('apiVersion "v1"');
  });
  test('subresources', () => {
    const status = { ...podCreate, operation: 'UPDATE' as const, subResource: 'status' };
    expect(ruleMismatch(rule({ resources: ['pods'] }), status)).toContain('"pods/status"');
    expect(ruleMismatch(rule({ resources: ['pods/status'] }), status)).toBeUndefined();
    expect(ruleMismatch(rule({ resources: ['*/status'] }), status)).toBeUndefined();
    expect(ruleMismatch(rule({ resources: ['pods/*'] }), status)).toBeUndefined();
    expect(ruleMismatch(rule({ resources: ['*/*'] }), status)).toBeUndefined();
    expect(ruleMismatch(rule({ resources: ['*'] }), status)).toContain('not in');
    // 'pods/*' covers pods itself too (subMatch: sub == "*")
    expect(ruleMismatch(rule({ resources: ['pods/*'] }), podCreate)).toBeUndefined();
    expect(ruleMismatch(rule({ resources: ['*/status'] }), podCreate)).toContain('not in');
  });
  test('scope: namespaces are cluster-scoped even though the request has a namespace', () => {
    const nsCreate: AdmissionRequest = {
      operation: 'CREATE',
      kind: { group: '', version: 'v1', kind: 'Namespace' },
      resource: { group: '', version: 'v1', resource: 'namespaces' },
      name: 'prod',
      namespace: 'prod',
    };
    expect(ruleMismatch(rule({ scope: 'Cluster' }), nsCreate)).toBeUndefined();
    expect(ruleMismatch(rule({ scope: 'Namespaced' }), nsCreate)).toContain('cluster-scoped');
    expect(ruleMismatch(rule({ scope: 'Namespaced' }), podCreate)).toBeUndefined();
    expect(ruleMismatch(rule({ scope: 'Cluster' }), podCreate)).toContain('namespaced');
    expect(ruleMismatch(rule({ scope: 'Namespaced' }), { ...podCreate, namespace: '' })).toContain('cluster-scoped');
  });
  test('requestResource is what is matched (the resource as requested)', () => {
    const r = {
      ...deployCreate,
      requestResource: { group: 'apps', version: 'v1', resource: 'deployments' },
      resource: { group: 'extensions', version: 'v1beta1', resource: 'deployments' },
    };
    expect(ruleMismatch(rule({ apiGroups: ['apps'] }), r)).toBeUndefined();
  });
});

describe('label selectors', () => {
  test('operators', () => {
    const labels = { env: 'prod', tier: 'web' };
    expect(matchLabelSelector({ matchLabels: { env: 'prod' } }, labels)).toEqual({ ok: true, matches: true, empty: false });
    expect(matchLabelSelector({ matchLabels: { env: 'dev' } }, labels)).toMatchObject({ matches: false });
    expect(matchLabelSelector({ matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'x'] }] }, labels)).toMatchObject({ matches: true });
    expect(matchLabelSelector({ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, labels)).toMatchObject({ matches: false });
    expect(matchLabelSelector({ matchExpressions: [{ key: 'absent', operator: 'NotIn', values: ['prod'] }] }, labels)).toMatchObject({ matches: true });
    expect(matchLabelSelector({ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, labels)).toMatchObject({ matches: true });
    expect(matchLabelSelector({ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, labels)).toMatchObject({ matches: false });
    expect(matchLabelSelector({ matchExpressions: [{ key: 'tier', operator: 'Bogus' }] }, labels)).toMatchObject({ ok: false });
  });
  test('{} selects everything, null selects nothing', () => {
    expect(matchLabelSelector({}, {})).toEqual({ ok: true, matches: true, empty: true });
    expect(matchLabelSelector(null, { a: 'b' })).toEqual({ ok: true, matches: false, empty: false });
  });
});

describe('matchResources (matching.go)', () => {
  const input: MatchInput = { request: { ...podCreate, object: { metadata: { labels: { app: 'web' } } } }, namespaceObject: prodNs };
  test('resourceRules match and the matched rule is reported', () => {
    const r = matchResources(mr({ resourceRules: [rule({ apiGroups: ['apps'] }), rule({ apiGroups: [''], resources: ['pods'] })] }), input);
    expect(r).toMatchObject({ matches: true, matchedRule: 1 });
  });
  test('excludeResourceRules win', () => {
    const r = matchResources(mr({ resourceRules: [rule({})], excludeResourceRules: [rule({ resources: ['pods'] })] }), input);
    expect(r.matches).toBe(false);
    expect(r.reason).toContain('excludeResourceRules[0]');
  });
  test('resourceNames', () => {
    expect(matchResources(mr({ resourceRules: [rule({ resourceNames: ['web'] })] }), input).matches).toBe(true);
    const r = matchResources(mr({ resourceRules: [rule({ resourceNames: ['api'] })] }), input);
    expect(r.matches).toBe(false);
    expect(r.reason).toContain('resourceNames');
  });
  test('empty resourceRules (a binding) match everything', () => {
    expect(matchResources(mr({}), input).matches).toBe(true);
  });
  test('namespaceSelector uses the namespace object labels', () => {
    expect(matchResources(mr({ namespaceSelector: { matchLabels: { environment: 'prod' } } }), input).matches).toBe(true);
    const r = matchResources(mr({ namespaceSelector: { matchLabels: { environment: 'test' } } }), input);
    expect(r.matches).toBe(false);
    expect(r.steps[0]).toMatchObject({ check: 'namespaceSelector', passed: false });
  });
  test('namespaceSelector without the namespace object: the apiserver 404s, only when the rules match', () => {
    const noNs = { ...input, namespaceObject: undefined };
    const r = matchResources(mr({ namespaceSelector: { matchLabels: { environment: 'prod' } }, resourceRules: [rule({})] }), noNs);
    expect(r).toMatchObject({ matches: false, error: 'namespaces "prod" not found' });
    const r2 = matchResources(mr({ namespaceSelector: { matchLabels: { environment: 'prod' } }, resourceRules: [rule({ apiGroups: ['apps'] })] }), noNs);
    expect(r2.error).toBeUndefined();
    expect(r2.matches).toBe(false);
  });
  test('cluster-scoped requests are never exempted by namespaceSelector', () => {
    const node: MatchInput = {
      request: { operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'nodes' }, kind: { group: '', version: 'v1', kind: 'Node' }, name: 'n1' },
    };
    expect(matchResources(mr({ namespaceSelector: { matchLabels: { environment: 'prod' } } }), node).matches).toBe(true);
  });
  test('a Namespace create is selected by its own labels', () => {
    const nsCreate: MatchInput = {
      request: {
        operation: 'CREATE',
        resource: { group: '', version: 'v1', resource: 'namespaces' },
        kind: { group: '', version: 'v1', kind: 'Namespace' },
        name: 'prod',
        namespace: 'prod',
        object: prodNs,
      },
    };
    expect(matchResources(mr({ namespaceSelector: { matchLabels: { environment: 'prod' } } }), nsCreate).matches).toBe(true);
    expect(matchResources(mr({ namespaceSelector: { matchLabels: { environment: 'dev' } } }), nsCreate).matches).toBe(false);
  });
  test('objectSelector: object or oldObject labels', () => {
    expect(matchResources(mr({ objectSelector: { matchLabels: { app: 'web' } } }), input).matches).toBe(true);
    expect(matchResources(mr({ objectSelector: { matchLabels: { app: 'db' } } }), input).matches).toBe(false);
    const del: MatchInput = { request: { ...podCreate, operation: 'DELETE', oldObject: { metadata: { labels: { app: 'db' } } } }, namespaceObject: prodNs };
    expect(matchResources(mr({ objectSelector: { matchLabels: { app: 'db' } } }), del).matches).toBe(true);
  });
  test('Equivalent: honest about equivalents not tried; Exact: not flagged', () => {
    const eq = matchResources(mr({ resourceRules: [rule({ apiGroups: ['extensions'] })] }), input);
    expect(eq).toMatchObject({ matches: false, equivalentNotChecked: true });
    const ex = matchResources(mr({ matchPolicy: 'Exact', resourceRules: [rule({ apiGroups: ['extensions'] })] }), input);
    expect(ex.matches).toBe(false);
    expect(ex.equivalentNotChecked).toBeUndefined();
  });
});

describe('webhooks (ShouldCallHook)', () => {
  const wh = (r: Record<string, unknown>) => ({ name: 'w.example.com', namespaceSelector: {}, objectSelector: {}, matchPolicy: 'Equivalent', ...r });
  const input: MatchInput = { request: { ...podCreate, object: { metadata: { labels: { app: 'web' } } } }, namespaceObject: prodNs };
  test('rules decide', () => {
    expect(matchWebhook(wh({ rules: [rule({ resources: ['pods'] })] }), input)).toMatchObject({ matches: true, matchedRule: 0 });
    expect(matchWebhook(wh({ rules: [rule({ resources: ['deployments'] })] }), input).matches).toBe(false);
  });
  test('no rules match nothing', () => {
    expect(matchWebhook(wh({ rules: [] }), input).matches).toBe(false);
  });
  test('admission configuration is exempt', () => {
    const req: AdmissionRequest = {
      operation: 'CREATE',
      kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicy' },
      resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies' },
    };
    expect(matchWebhook(wh({ rules: [rule({})] }), { request: req }).matches).toBe(false);
  });
});

describe('bindingDetail (the binding line says "applies" once)', () => {
  test('the reason without the verdict it repeats', () => {
    expect(bindingDetail({ applies: true, reason: 'applies' })).toBe('');
    expect(bindingDetail({ applies: true, reason: 'applies, but no params were found: nothing to validate (x)' })).toBe(
      'no params were found: nothing to validate (x)',
    );
    expect(bindingDetail({ applies: false, reason: 'matchResources: no rule matches' })).toBe('matchResources: no rule matches');
  });
});
