import { describe, expect, test } from 'vitest';
import { TEMPLATES } from '../k8s/templates';
import { toCelInputs } from './cel-inputs';
import { defaultDraftFor } from './defaults';
import { emptyRequestDraft, toDraft, toTestInput } from './draft';
import { expectedValue, passes, sameValue } from './expect';
import type { TestInputDraft } from './model';
import { REQUEST_TEMPLATES, templateById } from './templates';

describe('defaultDraftFor', () => {
  test('a webhook: CREATE of its first resource with a minimal object of that kind', () => {
    const d = defaultDraftFor(TEMPLATES.ValidatingWebhookConfiguration());
    expect(d.request).toMatchObject({ operation: 'CREATE', group: '', version: 'v1', resource: 'pods', kind: 'Pod' });
    const { input, errors } = toTestInput(d);
    expect(errors).toEqual([]);
    expect(input.request.object).toMatchObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'example', namespace: 'default' } });
    expect(input.request.oldObject).toBeUndefined();
    expect(input.namespaceObject).toMatchObject({ kind: 'Namespace', metadata: { name: 'default' } });
  });
  test('a policy with paramKind: params with the keys its expressions read', () => {
    const d = defaultDraftFor(TEMPLATES.ValidatingAdmissionPolicy());
    expect(d.request).toMatchObject({ group: 'apps', resource: 'deployments', kind: 'Deployment' });
    const { input } = toTestInput(d);
    expect(input.params).toMatchObject({ kind: 'ConfigMap', data: { maxReplicas: '5' } });
    expect(input.request.object).toMatchObject({ apiVersion: 'apps/v1', spec: { replicas: 3 } });
  });
  test('apiGroups "*": the group of the resource; UPDATE-only rules: an oldObject too; cluster-scoped: no namespace', () => {
    const d = defaultDraftFor({ webhooks: [{ rules: [{ operations: ['UPDATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['deployments'] }] }] });
    expect(d.request).toMatchObject({ operation: 'UPDATE', group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(d.oldObject).toContain('kind: Deployment');
    const ns = defaultDraftFor({
      spec: { matchConstraints: { resourceRules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'] }] } },
    });
    expect(ns.request).toMatchObject({ operation: 'DELETE', kind: 'Namespace', namespace: '' });
    expect(ns.object).toBe('');
    expect(toTestInput(ns).input.namespaceObject).toBeUndefined();
  });
  test('stable while the rules are the same', () => {
    expect(defaultDraftFor(TEMPLATES.ValidatingWebhookConfiguration())).toBe(defaultDraftFor(TEMPLATES.ValidatingWebhookConfiguration()));
  });
});

describe('toTestInput', () => {
  const base = defaultDraftFor(TEMPLATES.ValidatingWebhookConfiguration());
  test('a YAML error is reported at its line and the text kept; the same draft gives the same object', () => {
    const d: TestInputDraft = { ...base, object: 'a: [oops' };
    const r = toTestInput(d);
    expect(r.errors[0]).toMatchObject({ field: 'object', line: 1 });
    expect(r.input.request.object).toBeUndefined();
    expect(toTestInput(d)).toBe(r);
    expect(d.object).toBe('a: [oops');
  });
  test('texts the operation does not read are neither sent nor checked', () => {
    const d: TestInputDraft = { ...base, request: { ...base.request, operation: 'DELETE' }, object: 'a: [oops', oldObject: 'kind: Pod\n' };
    const r = toTestInput(d);
    expect(r.errors).toEqual([]);
    expect(r.input.request.object).toBeUndefined();
    expect(r.input.request.oldObject).toEqual({ kind: 'Pod' });
    const c = toTestInput({ ...d, request: { ...d.request, operation: 'CREATE' } });
    expect(c.errors.map((e) => e.field)).toEqual(['object']);
    expect(c.input.request.oldObject).toBeUndefined();
  });
  test('two documents: the first is used and the second reported', () => {
    const r = toTestInput({ ...base, params: 'a: 1\n---\nb: 2\n' });
    expect(r.input.params).toEqual({ a: 1 });
    expect(r.errors[0]).toMatchObject({ field: 'params', message: '2 documents: only the first is used' });
  });
  test('the request: user, uid, groups, subresource, dryRun; empty authorizer cells mean any', () => {
    const r = toTestInput({
      ...base,
      request: { ...emptyRequestDraft(), subResource: 'status', uid: 'u-1', groups: ['g1', 'g2'], dryRun: true },
      authorizer: [{ verb: 'get', group: '', resource: 'pods', decision: 'allow' }],
    });
    expect(r.input.request).toMatchObject({
      subResource: 'status',
      dryRun: true,
      userInfo: { username: 'alice@example.com', uid: 'u-1', groups: ['g1', 'g2'] },
    });
    expect(r.input.authorizer).toEqual([{ verb: 'get', resource: 'pods', decision: 'allow' }]);
  });
});

describe('toCelInputs', () => {
  test('one frozen object per input; absent values are null; request without object / oldObject', () => {
    const { input } = toTestInput(defaultDraftFor(TEMPLATES.ValidatingWebhookConfiguration()));
    const c = toCelInputs(input);
    expect(toCelInputs(input)).toBe(c);
    expect(Object.isFrozen(c)).toBe(true);
    expect(c.oldObject).toBeNull();
    expect(c.object).toMatchObject({ kind: 'Pod' });
    expect(c.request).toMatchObject({ operation: 'CREATE', kind: { kind: 'Pod' }, userInfo: { username: 'alice@example.com' } });
    expect(c.request).not.toHaveProperty('object');
    expect(c.authorizer).toEqual({ rules: [] });
  });
});

describe('templates', () => {
  test('the six requests, each converting back and forth without loss', () => {
    expect(REQUEST_TEMPLATES.map((t) => t.id)).toEqual([
      'create-pod',
      'update-deployment-replicas',
      'delete-namespace',
      'pods-exec',
      'kubelet-lease',
      'controller-create-replicaset',
    ]);
    for (const t of REQUEST_TEMPLATES) {
      const { input, errors } = toTestInput(toDraft(t.input));
      expect(errors, t.id).toEqual([]);
      expect(input.request, t.id).toEqual({ ...t.input.request, dryRun: false });
      expect(input.namespaceObject, t.id).toEqual(t.input.namespaceObject);
    }
    expect(templateById('pods-exec')!.input.request).toMatchObject({ operation: 'CONNECT', subResource: 'exec', kind: { kind: 'PodExecOptions' } });
  });
});

describe('expectations', () => {
  test('values and errors', () => {
    expect(expectedValue('true')).toEqual({ value: true });
    expect(passes({ error: false, value: 'true' }, { ok: true, value: true })).toBe(true);
    expect(passes({ error: false, value: 'true' }, { ok: true, value: false })).toBe(false);
    expect(passes({ error: false, value: '{"a": [1, "x"]}' }, { ok: true, value: { a: [1, 'x'] } })).toBe(true);
    expect(passes({ error: false, value: 'a: [1, x]' }, { ok: true, value: { a: [1, 'x'] } })).toBe(true);
    expect(passes({ error: false, value: 'hello' }, { ok: true, value: 'hello' })).toBe(true);
    expect(passes({ error: true }, { ok: false })).toBe(true);
    expect(passes({ error: true }, { ok: true, value: true })).toBe(false);
    expect(passes({ error: false, value: '9007199254740993' }, { ok: true, value: '9007199254740993' })).toBe(true);
    expect(sameValue({ a: 1, b: [2] }, { b: [2], a: 1 })).toBe(true);
    expect(sameValue({ a: 1 }, { a: '1' })).toBe(false);
  });
});
