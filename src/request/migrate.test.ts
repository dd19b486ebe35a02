import { describe, expect, test } from 'vitest';
import { toTestInput } from './draft';
import { fromCelTestsV1, fromPolicyTestsV1, migrateV1 } from './migrate';
import { readPolicyCase, readSavedTests, toSaved } from './saved';
import { parsePatch, scenarioFailures, toWebhookResponses } from './scenario';

/** As 'admission-workbench/cel-tests/v1' held it (written by the old store/cel-tests.ts). */
const CEL_V1 = {
  version: 1,
  docs: {
    'doc-webhook': {
      inputs: {
        object: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  # a comment the user wrote\n',
        oldObject: '',
        params: '',
        namespaceObject: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: default\n',
        request: {
          operation: 'CREATE',
          group: '',
          version: 'v1',
          kind: 'Pod',
          resource: 'pods',
          subResource: '',
          name: 'web',
          namespace: 'default',
          username: 'alice',
          groups: ['system:authenticated', 'devs'],
          dryRun: false,
        },
        authorizer: [{ verb: 'get', group: '', resource: 'secrets', namespace: '', name: '', decision: 'allow' }],
      },
      cases: {
        'webhooks[0].matchConditions[0].expression': [
          {
            id: 'c1',
            name: 'alice is checked',
            inputs: {
              object: 'kind: Pod\n',
              oldObject: '',
              params: '',
              namespaceObject: '',
              request: {
                operation: 'CREATE',
                group: '',
                version: 'v1',
                kind: 'Pod',
                resource: 'pods',
                subResource: '',
                name: '',
                namespace: '',
                username: 'alice',
                groups: [],
                dryRun: false,
              },
              authorizer: [],
            },
            expect: { error: false, value: 'true' },
          },
          { id: 'c2', name: 'broken', inputs: { object: 'a: [oops' }, expect: { error: true } },
        ],
        'webhooks[1].matchConditions[0].expression': [],
      },
      open: ['webhooks[0].matchConditions[0].expression'],
    },
    'doc-vap': {
      cases: { 'spec.validations[0].expression': [{ id: 'c3', name: 'small', inputs: {}, expect: { error: false, value: '{"a": 1}' } }] },
      open: [],
    },
    broken: 'not an object',
  },
};

/** As 'admission-workbench/policy-tests/v1' held it (written by the old store/policy-tests.ts). */
const POLICY_V1 = {
  byDoc: {
    'doc-vap': {
      request: {
        operation: 'UPDATE',
        group: 'apps',
        version: 'v1',
        resource: 'deployments',
        subResource: '',
        kind: 'Deployment',
        namespace: 'prod',
        name: 'web',
        username: 'jane@example.com',
        groups: 'system:authenticated, devs',
        dryRun: true,
      },
      objectText: 'apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 7\n',
      oldObjectText: 'apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 3\n',
      namespaceText: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: prod\n  labels:\n    env: prod\n',
      paramsText: '',
      authorizerText: 'rules:\n- verb: create\n  resource: deployments\n  decision: deny\n',
    },
    'doc-map': {
      request: {
        operation: 'CREATE',
        group: '',
        version: 'v1',
        resource: 'pods',
        subResource: '',
        kind: 'Pod',
        namespace: 'default',
        name: 'x',
        username: 'u',
        groups: '',
        dryRun: false,
      },
      objectText: 'kind: Pod\n',
      oldObjectText: '',
      namespaceText: '',
      paramsText: '',
      authorizerText: 'rules: [oops',
    },
  },
  cases: {
    'doc-vap': [
      {
        name: 'too many replicas',
        request: {
          uid: '0',
          kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
          resource: { group: 'apps', version: 'v1', resource: 'deployments' },
          operation: 'CREATE',
          namespace: 'prod',
          userInfo: { username: 'jane', groups: ['system:authenticated'] },
          dryRun: false,
        },
        object: { apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 7 } },
        namespaceObject: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } },
        authorizer: { rules: [] },
        expect: { outcome: 'deny', message: 'replicas must be at most 5' },
      },
      { name: 'no request' },
    ],
    'doc-map': [
      {
        name: 'adds a label',
        request: { operation: 'CREATE' },
        object: { kind: 'Pod' },
        expect: { outcome: 'admit', object: { kind: 'Pod', metadata: { labels: { a: 'b' } } } },
      },
    ],
  },
};

describe('fromCelTestsV1', () => {
  const m = fromCelTestsV1(CEL_V1);
  test('inputs keep their texts (comments too) and their request; every case is kept', () => {
    const d = m['doc-webhook'];
    expect(d.draft!.object).toBe(CEL_V1.docs['doc-webhook'].inputs.object);
    expect(d.draft!.request).toMatchObject({ operation: 'CREATE', username: 'alice', groups: ['system:authenticated', 'devs'], uid: '' });
    expect(d.draft!.authorizer).toEqual([{ verb: 'get', group: '', resource: 'secrets', namespace: '', name: '', decision: 'allow' }]);
    const cases = d.celCases['webhooks[0].matchConditions[0].expression'];
    expect(cases.map((c) => [c.id, c.name, c.expect])).toEqual([
      ['c1', 'alice is checked', { error: false, value: 'true' }],
      ['c2', 'broken', { error: true }],
    ]);
    expect(cases[0].input.request.username).toBe('alice');
    expect(cases[1].input.object).toBe('a: [oops');
    expect(d.open).toEqual(['webhooks[0].matchConditions[0].expression']);
    expect(m['doc-vap'].draft).toBeUndefined();
    expect(m['doc-vap'].celCases['spec.validations[0].expression'][0].name).toBe('small');
    expect(m.broken).toBeUndefined();
  });
  test('not v1 data: nothing', () => {
    expect(fromCelTestsV1(undefined)).toEqual({});
    expect(fromCelTestsV1({ version: 2, docs: {} })).toEqual({});
  });
});

describe('fromPolicyTestsV1', () => {
  const m = fromPolicyTestsV1(POLICY_V1);
  test('inputs: texts kept, groups split, authorizer rules read from their YAML', () => {
    const d = m['doc-vap'].draft!;
    expect(d.request).toMatchObject({ operation: 'UPDATE', group: 'apps', namespace: 'prod', groups: ['system:authenticated', 'devs'], dryRun: true });
    expect(d.object).toBe(POLICY_V1.byDoc['doc-vap'].objectText);
    expect(d.namespaceObject).toBe(POLICY_V1.byDoc['doc-vap'].namespaceText);
    expect(d.authorizer).toEqual([{ verb: 'create', resource: 'deployments', decision: 'deny' }]);
    const { input, errors } = toTestInput(d);
    expect(errors).toEqual([]);
    expect(input.request.oldObject).toMatchObject({ spec: { replicas: 3 } });
    expect(input.namespaceObject).toMatchObject({ metadata: { labels: { env: 'prod' } } });
    expect(m['doc-map'].draft!.authorizer).toEqual([]);
    expect(m['doc-map'].draft!.request.groups).toEqual([]);
  });
  test('cases kept, in the one request model (a case without a request cannot run and is dropped)', () => {
    const old = POLICY_V1.cases['doc-vap'][0] as Record<string, any>;
    expect(m['doc-vap'].policyCases).toEqual([
      {
        name: 'too many replicas',
        input: { request: { ...old.request, object: old.object }, namespaceObject: old.namespaceObject, authorizer: [] },
        expect: { outcome: 'deny', message: 'replicas must be at most 5' },
      },
    ]);
    expect(m['doc-map'].policyCases[0].expect).toEqual({ outcome: 'admit', object: { kind: 'Pod', metadata: { labels: { a: 'b' } } } });
  });
});

describe('migrateV1 and the v2 shape', () => {
  test('both stores into one: a document with both keeps its CEL inputs and all its cases', () => {
    const docs = migrateV1(CEL_V1, POLICY_V1);
    expect(Object.keys(docs).sort()).toEqual(['doc-map', 'doc-vap', 'doc-webhook']);
    expect(docs['doc-vap'].draft!.request.operation).toBe('UPDATE');
    expect(docs['doc-vap'].celCases['spec.validations[0].expression']).toHaveLength(1);
    expect(docs['doc-vap'].policyCases).toHaveLength(1);
    const saved = JSON.parse(JSON.stringify(toSaved({ docs, scenarios: [] })));
    expect(readSavedTests(saved)).toEqual({ docs, scenarios: [] });
  });
  test('v2 reader: unreadable parts dropped, the rest kept', () => {
    const r = readSavedTests({
      version: 2,
      docs: { d: { celCases: { p: [{ name: 'x' }, 7] }, policyCases: [{ name: 'no request' }], open: [1, 'p'] } },
      scenarios: [{ name: 's', webhooks: { 'a.example.com': { response: 'nonsense' } }, expect: { allowed: false, deniedBy: 'guard' } }, null],
    })!;
    expect(r.docs.d.celCases.p).toHaveLength(1);
    expect(r.docs.d.celCases.p[0].expect).toEqual({ error: false, value: 'true' });
    expect(r.docs.d.policyCases).toEqual([]);
    expect(r.docs.d.open).toEqual(['p']);
    expect(r.scenarios).toHaveLength(1);
    expect(r.scenarios[0].webhooks['a.example.com'].response).toBe('allow');
    expect(r.scenarios[0].expect).toEqual({ allowed: false, deniedBy: 'guard' });
    expect(readSavedTests({ version: 1 })).toBeUndefined();
  });
});

describe('scenarios', () => {
  test('webhook responses: allow is the default, a patch is parsed, warnings one a line, a bad patch is reported', () => {
    const r = toWebhookResponses({
      a: { response: 'allow', patch: '', warnings: '' },
      b: { response: 'unavailable', patch: '', warnings: '' },
      c: { response: 'patch', patch: '[{"op":"add","path":"/metadata/labels/x","value":"y"}]', warnings: '' },
      d: { response: 'warnings', patch: '', warnings: 'one\n\n two \n' },
      e: { response: 'patch', patch: '{"op": "add"}', warnings: '' },
    });
    expect(r.responses).toEqual({ b: 'unavailable', c: { patch: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }] }, d: { warnings: ['one', 'two'] } });
    expect(r.errors).toEqual([{ webhook: 'e', message: expect.stringContaining('list of operations') }]);
    expect(parsePatch('[{"op": 1}]')).toEqual({ error: 'operation 0: needs "op" and "path" strings' });
    expect(parsePatch('[oops')).toMatchObject({ error: expect.stringContaining('not JSON') });
  });
  test('expected verdicts', () => {
    expect(scenarioFailures({ allowed: true }, { allowed: true })).toEqual([]);
    expect(scenarioFailures({ allowed: true }, { allowed: false, deniedBy: { name: 'g' } })).toEqual(['expected allowed, got denied']);
    expect(
      scenarioFailures({ allowed: false, deniedBy: 'guard.example.com' }, { allowed: false, deniedBy: { name: 'cfg', webhook: 'guard.example.com' } }),
    ).toEqual([]);
    expect(scenarioFailures({ allowed: false, deniedBy: 'other' }, { allowed: false, deniedBy: { name: 'cfg', webhook: 'guard.example.com' } })).toEqual([
      'expected denied by other, got denied by guard.example.com',
    ]);
  });
});

describe('policy cases saved before the one request model', () => {
  const old = {
    name: 'update by a bot',
    request: {
      uid: '00000000-0000-0000-0000-000000000000',
      operation: 'UPDATE',
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      requestKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      requestResource: { group: 'apps', version: 'v1', resource: 'deployments' },
      name: 'web',
      namespace: 'prod',
      userInfo: { username: 'bot', groups: ['system:serviceaccounts'], extra: { scopes: ['a'] } },
      dryRun: true,
    },
    object: { kind: 'Deployment', spec: { replicas: 2 } },
    oldObject: { kind: 'Deployment', spec: { replicas: 1 } },
    params: { data: { max: '5' } },
    namespaceObject: { kind: 'Namespace', metadata: { name: 'prod' } },
    authorizer: { rules: [{ verb: 'get', decision: 'allow' }] },
    expect: { outcome: 'warn', message: 'm' },
  };
  test('every field lands in the test input: object and oldObject in the request, authorizer rules as a list', () => {
    expect(readPolicyCase(old, 0)).toEqual({
      name: 'update by a bot',
      input: {
        request: { ...old.request, object: old.object, oldObject: old.oldObject },
        params: old.params,
        namespaceObject: old.namespaceObject,
        authorizer: [{ verb: 'get', decision: 'allow' }],
      },
      expect: { outcome: 'warn', message: 'm' },
    });
  });
  test('the new shape reads back as itself', () => {
    const c = readPolicyCase(old, 0)!;
    expect(readPolicyCase(JSON.parse(JSON.stringify(c)), 0)).toEqual(c);
  });
  test('an imported Kyverno skip (admit or skip) reads back as itself; orSkip is kept with admit only', () => {
    const c = readPolicyCase({ ...old, expect: { outcome: 'admit', orSkip: true } }, 0)!;
    expect(c.expect).toEqual({ outcome: 'admit', orSkip: true });
    expect(readPolicyCase(JSON.parse(JSON.stringify(c)), 0)).toEqual(c);
    expect(readPolicyCase({ ...old, expect: { outcome: 'deny', orSkip: true } }, 0)!.expect).toEqual({ outcome: 'deny' });
  });
  test('v2 data of earlier versions (browser storage, share links) keeps its old cases', () => {
    const r = readSavedTests({ version: 2, docs: { d: { celCases: {}, policyCases: [old], open: [] } }, scenarios: [] })!;
    expect(r.docs.d.policyCases[0]!.input.request.object).toEqual(old.object);
  });
});
