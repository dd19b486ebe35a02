/**
 * reads (wasm/reads.go) and projectInputs (project.ts): evaluating on inputs cut down to what the
 * expressions read gives exactly what the whole inputs give — values, errors and costs — on the
 * real engine, over expressions that select, test, index, iterate, compare whole objects, use
 * optionals, bind, and reach objects through the policy's variables, and over objects with fields
 * missing, of the wrong type, null, and named like prototype keys.
 */
import { describe, expect, test } from 'vitest';
import { evaluateBatchOnce, reads } from './index';
import { projector, unionReads } from './project';
import type { CelBatchItem, CelContext, CelInputs } from './types';
import { useEngine } from './test-helpers';

useEngine();

const variables = [
  { name: 'images', expression: 'object.spec.containers.map(c, c.image)' },
  { name: 'team', expression: "namespaceObject.metadata.labels.?team.orValue('none')" },
];

const EXPRESSIONS: [string, CelContext][] = [
  ["object.metadata.name.startsWith('deny-')", 'vap-validation'],
  ['has(object.metadata.labels) && object.metadata.labels.app == "web"', 'vap-validation'],
  ['has(object.spec.template.spec.hostNetwork)', 'vap-validation'],
  ["object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))", 'vap-validation'],
  ['object.spec.containers[0].resources.limits.cpu == "500m"', 'vap-validation'],
  ["object.metadata.labels['app.kubernetes.io/name'] == 'x'", 'vap-validation'],
  ["object.metadata.?annotations['team'].orValue('') == ''", 'vap-validation'],
  ['size(object.metadata) > 2', 'vap-validation'],
  ['object == oldObject', 'vap-validation'],
  ['oldObject == null || oldObject.spec == object.spec', 'vap-validation'],
  ['object.spec.replicas <= 5', 'vap-validation'],
  ['object.status.phase == "Running"', 'vap-validation'],
  ["object.metadata.__proto__ == 'p'", 'vap-validation'],
  ['cel.bind(s, object.spec, s.containers.size() > 0)', 'vap-validation'],
  ["object.spec.containers.exists(object, object.name == 'app')", 'vap-validation'],
  ['variables.images.all(i, i != "")', 'vap-validation'],
  ["variables.team != 'none' || object.metadata.namespace == 'default'", 'vap-validation'],
  ["!request.userInfo.username.startsWith('system:')", 'webhook-matchCondition'],
  ["object.metadata.namespace != 'kube-system'", 'vap-matchCondition'],
  ["'team' in namespaceObject.metadata.labels", 'vap-validation'],
  ["object.metadata.name + ' is denied'", 'vap-messageExpression'],
  ['object.spec.containers.filter(c, has(c.resources)).size()', 'vap-auditAnnotation'],
  ['json.marshal(object.metadata.labels)', 'vap-auditAnnotation'],
  ["'at most 3 in ' + request.namespace", 'vap-messageExpression'],
  ["request.operation == 'CREATE' || request.dryRun", 'vap-validation'],
  ['request.?options.orValue(null) == null', 'vap-validation'],
  ['has(request.userInfo.extra) && size(request.userInfo.extra) > 0', 'webhook-matchCondition'],
  ['request.requestKind.kind == request.kind.kind', 'vap-validation'],
  ['size(request) > 3', 'vap-validation'],
  ["authorizer.group('apps').resource('deployments').namespace('team-a').check('get').allowed()", 'vap-validation'],
  ["authorizer.requestResource.check('update').allowed()", 'vap-validation'],
  ["authorizer.serviceAccount('team-a', 'builder').group('').resource('pods').check('create').reason()", 'vap-validation'],
];

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-1',
    namespace: 'team-a',
    labels: { app: 'web', 'app.kubernetes.io/name': 'x' },
    annotations: { team: 'a' },
    managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:spec': {} } }],
  },
  spec: {
    containers: [
      { name: 'app', image: 'registry.example.com/app:1', resources: { limits: { cpu: '500m' } } },
      { name: 'side', image: 'other/side' },
    ],
    replicas: 3,
  },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
};

const OBJECTS: unknown[] = [
  pod,
  { ...pod, metadata: { name: 'deny-0-1' } },
  { ...pod, metadata: 'not a map', spec: null },
  { ...pod, spec: { containers: 'nope', template: { spec: { hostNetwork: true } } } },
  { apiVersion: 'v1', kind: 'Pod', metadata: JSON.parse('{"name":"p","__proto__":"p","labels":{}}') },
  {},
  null,
];

const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { team: 'a', 'kubernetes.io/metadata.name': 'team-a' } } };
const REQUESTS = [
  {
    uid: 'a1',
    kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
    resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    operation: 'UPDATE',
    userInfo: { username: 'alice', groups: ['dev'] },
    namespace: 'team-a',
    name: 'web-1',
  },
  {
    uid: 'b2',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    requestKind: { group: '', version: 'v1', kind: 'Pod' },
    operation: 'CREATE',
    userInfo: { username: 'system:serviceaccount:team-a:builder', groups: ['system:serviceaccounts'], extra: { scopes: ['x'] } },
    namespace: 'team-b',
    name: 'p',
    dryRun: true,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', fieldManager: 'kubectl' },
  },
];
const authorizer = {
  rules: [
    { user: 'alice', verb: 'get', group: 'apps', resource: 'deployments', decision: 'allow' as const },
    { user: 'alice', verb: 'update', decision: 'deny' as const, reason: 'read only' },
    { user: 'system:serviceaccount:team-a:builder', decision: 'allow' as const },
  ],
};

const items = (): CelBatchItem[] =>
  EXPRESSIONS.map(([expression, context]) => ({
    expression,
    context,
    options: context.startsWith('vap-') && context !== 'vap-matchCondition' ? { variables } : {},
  }));

describe('reads', () => {
  test('names the paths selected, whole where anything else is done, and the variables’ reads', async () => {
    expect(await reads("object.metadata.name.startsWith('x')", 'vap-validation')).toEqual({
      object: [['metadata', 'name']],
      oldObject: [],
      namespaceObject: [],
      params: [],
      request: [],
    });
    expect((await reads('object == oldObject', 'vap-validation')).oldObject).toBeNull();
    expect((await reads("request.userInfo.username == 'a' && request.namespace != ''", 'vap-validation')).request).toEqual([
      ['userInfo', 'username'],
      ['namespace'],
    ]);
    expect((await reads("authorizer.requestResource.check('get').allowed()", 'vap-validation')).request).toBeNull();
    expect((await reads('object.spec.containers[0].image == ""', 'vap-validation')).object).toEqual([['spec', 'containers']]);
    expect((await reads('variables.team == ""', 'vap-validation', { variables })).namespaceObject).toEqual([['metadata', 'labels']]);
    expect((await reads('object.spec +', 'vap-validation')).object).toBeNull();
  });

  test('evaluation on the projection equals evaluation on the whole inputs, one expression or all at once', async () => {
    const its = items();
    const each = await Promise.all(its.map((it) => reads(it.expression, it.context, it.options)));
    const all = projector(unionReads(each));
    let compared = 0;
    for (const object of OBJECTS)
      for (const [oldObject, request] of [
        [pod, REQUESTS[0]],
        [null, REQUESTS[1]],
        [OBJECTS[2], REQUESTS[0]],
        [pod, REQUESTS[1]],
      ]) {
        const inputs: CelInputs = { object, oldObject, namespaceObject: namespace, request, params: null, authorizer };
        const whole = await evaluateBatchOnce(its, inputs);
        expect(await evaluateBatchOnce(its, all(inputs))).toEqual(whole);
        for (const [i, it] of its.entries()) {
          const alone = projector(each[i]!)(inputs);
          expect(await evaluateBatchOnce([it], alone), `${it.expression} on ${JSON.stringify(object)}`).toEqual(await evaluateBatchOnce([it], inputs));
          compared++;
        }
      }
    expect(compared).toBe(EXPRESSIONS.length * OBJECTS.length * 4);
  }, 120_000);

  test('a projection keeps only what is read', () => {
    const p = projector({
      object: [
        ['metadata', 'name'],
        ['spec', 'containers'],
      ],
      oldObject: [],
      namespaceObject: null,
      params: [],
      request: [['namespace']],
    });
    const out = p({ object: pod, oldObject: pod, namespaceObject: namespace, params: null, request: REQUESTS[0] });
    expect(JSON.parse(JSON.stringify(out))).toEqual({
      object: { metadata: { name: 'web-1' }, spec: { containers: pod.spec.containers } },
      oldObject: {},
      namespaceObject: namespace,
      params: null,
      request: { namespace: 'team-a' },
    });
    // the authorizer's rules only where an expression asks it, which reads the request whole
    expect(p({ object: pod, request: REQUESTS[0], authorizer }).authorizer).toEqual({ rules: [] });
    const asking = projector({ object: [], oldObject: [], namespaceObject: [], params: [], request: null });
    expect(asking({ object: pod, request: REQUESTS[0], authorizer }).authorizer).toBe(authorizer);
  });
});
