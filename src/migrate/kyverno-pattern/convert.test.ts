/** The pattern converter: statuses by construct, and the produced CEL deciding as Kyverno's walk does (real CEL engine). */
import { describe, expect, it } from 'vitest';
import type { Obj } from '../../base/json';
import { useEngine } from '../../cel/test-helpers';
import { convertPatternRule } from './rule';
import { chainOf, vapVerdict } from './test-helpers';

useEngine();

const policy = (rule: Obj, annotations: Obj = {}): Obj => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'p', annotations },
  spec: { validationFailureAction: 'Enforce', rules: [rule] },
});
const podRule = (validate: Obj, extra: Obj = {}): Obj => ({
  name: 'r',
  match: { any: [{ resources: { kinds: ['Pod'] } }] },
  validate: { message: 'no', ...validate },
  ...extra,
});
const pod = (spec: Obj, metadata: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'default', ...metadata }, spec });

async function verdicts(rule: Obj, objects: Obj[], annotations: Obj = {}): Promise<string[]> {
  const p = policy(rule, annotations);
  const c = convertPatternRule(p, rule);
  expect(c.status, c.reason).not.toBe('unsupported');
  const chain = chainOf(c.objects);
  const out: string[] = [];
  for (const o of objects) out.push((await vapVerdict(chain, o)).verdict);
  return out;
}

describe('pattern rules', () => {
  it('a conditional anchor skips the element it does not hold for; an equality anchor checks only what is there', async () => {
    const rule = podRule({ pattern: { spec: { containers: [{ '(image)': '*:latest', imagePullPolicy: 'Always' }] } } });
    const c = (image: string, imagePullPolicy: string) => ({ name: 'c', image, imagePullPolicy });
    expect(
      await verdicts(rule, [
        pod({ containers: [c('a:latest', 'Always')] }),
        pod({ containers: [c('a:latest', 'Never')] }),
        pod({ containers: [c('a:1', 'Never')] }),
      ]),
    ).toEqual(['allow', 'deny', 'allow']);
    const eq = podRule({ pattern: { spec: { '=(hostNetwork)': false } } });
    expect(await verdicts(eq, [pod({ containers: [c('a', 'Always')] }), pod({ containers: [c('a', 'Always')], hostNetwork: true })])).toEqual([
      'allow',
      'deny',
    ]);
  });

  it('operators, ranges and quantities as Kyverno compares them', async () => {
    const rule = podRule({ pattern: { spec: { containers: [{ resources: { limits: { memory: '<= 1Gi' } } }] } } });
    const c = (memory: string) => ({ containers: [{ name: 'c', image: 'a', resources: { limits: { memory } } }] });
    expect(await verdicts(rule, [pod(c('1024Mi')), pod(c('1025Mi')), pod(c('512M'))])).toEqual(['allow', 'deny', 'allow']);
    const range = podRule({ pattern: { spec: { '=(terminationGracePeriodSeconds)': '10-60' } } });
    const t = (n: number) => ({ containers: [{ name: 'c', image: 'a' }], terminationGracePeriodSeconds: n });
    expect(await verdicts(range, [pod(t(10)), pod(t(60)), pod(t(61)), pod(t(9))])).toEqual(['allow', 'allow', 'deny', 'deny']);
  });

  it('negation, existence and anyPattern', async () => {
    const neg = podRule({ pattern: { metadata: { '=(annotations)': { 'X(forbidden)': 'null' } } } });
    const base = { containers: [{ name: 'c', image: 'a' }] };
    expect(await verdicts(neg, [pod(base), pod(base, { annotations: { forbidden: 'y' } })])).toEqual(['allow', 'deny']);
    const any = podRule({ anyPattern: [{ spec: { dnsPolicy: 'None' } }, { metadata: { labels: { trusted: 'yes' } } }] });
    expect(
      await verdicts(any, [pod({ ...base, dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'] } }), pod(base, { labels: { trusted: 'yes' } }), pod(base)]),
    ).toEqual(['allow', 'allow', 'deny']);
    const exist = podRule({ pattern: { spec: { '^(containers)': [{ image: 'nginx*' }] } } });
    expect(
      await verdicts(exist, [
        pod({
          containers: [
            { name: 'a', image: 'x' },
            { name: 'b', image: 'nginx:1' },
          ],
        }),
        pod(base),
      ]),
    ).toEqual(['allow', 'deny']);
  });

  it('a Pod rule also decides Pod controllers as Kyverno autogen does, unless the annotation says none', async () => {
    const rule = podRule({ pattern: { spec: { '=(hostNetwork)': false } } });
    const deploy = (hostNetwork: boolean): Obj => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { hostNetwork, containers: [{ name: 'c', image: 'a' }] } },
      },
    });
    expect(await verdicts(rule, [deploy(false), deploy(true)])).toEqual(['allow', 'deny']);
    expect(await verdicts(rule, [deploy(true)], { 'pod-policies.kyverno.io/autogen-controllers': 'none' })).toEqual(['allow']);
  });
});

describe('deny conditions', () => {
  const cm = (data: Obj): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data });
  const rule = (conditions: Obj[]): Obj => ({
    name: 'r',
    match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
    validate: { message: 'no', deny: { conditions: { any: conditions } } },
  });

  it('In operators match wildcards both ways, with a constant list of words or a constant key', async () => {
    // a member's wildcard matches the key; the key's own wildcard matches a member
    const words = rule([{ key: '{{ request.object.data.x }}', operator: 'AnyIn', value: ['a*', 'b'] }]);
    expect(await verdicts(words, [cm({ x: 'abc' }), cm({ x: 'b' }), cm({ x: '?' }), cm({ x: 'c' }), cm({ x: 'ba' })])).toEqual([
      'deny',
      'deny',
      'deny',
      'allow',
      'allow',
    ]);
    // a constant key against a list read from the object (Kyverno reads a text value as a word here)
    const key = rule([{ key: 'web', operator: 'AnyNotIn', value: '{{ request.object.data.keys(@) }}' }]);
    expect(await verdicts(key, [cm({ web: '1' }), cm({ 'w*': '1' }), cm({ other: '1' })])).toEqual(['allow', 'allow', 'deny']);
  });

  it('Equals with a constant value keeps the key type switches (durations, quantities, wildcards)', async () => {
    const eq = (value: unknown) => rule([{ key: '{{ request.object.data.x }}', operator: 'Equals', value }]);
    expect(await verdicts(eq('1h'), [cm({ x: '60m' }), cm({ x: '1h1s' })])).toEqual(['deny', 'allow']);
    expect(await verdicts(eq('1Gi'), [cm({ x: '1024Mi' }), cm({ x: '1G' })])).toEqual(['deny', 'allow']);
    expect(await verdicts(eq('k8s.gcr.io/*'), [cm({ x: 'k8s.gcr.io/pause' }), cm({ x: 'registry.k8s.io/pause' })])).toEqual(['deny', 'allow']);
    expect(await verdicts(eq(true), [cm({ x: 'true' })])).toEqual(['allow']);
  });

  it('reads the operation (a CEL string, not dyn) through a default and a list value', async () => {
    // the library's check-routes: `request.operation || 'BACKGROUND'` NotEquals a list is not the operation's own fast path
    const r = { ...rule([{ key: '{{ request.object.data.x }}', operator: 'Equals', value: 'no' }]) };
    r.preconditions = { all: [{ key: "{{ request.operation || 'BACKGROUND' }}", operator: 'NotEquals', value: ['DELETE'] }] };
    expect(await verdicts(r, [cm({ x: 'no' }), cm({ x: 'yes' })])).toEqual(['deny', 'allow']);
  });

  it("reads an UPDATE's old object; a CREATE has none (not found: a default reads nil)", async () => {
    // the library's restrict-node-label-changes, on ConfigMaps: a value may not change once set
    const r = rule([{ key: "{{ request.object.data.x || '' }}", operator: 'NotEquals', value: "{{ request.oldObject.data.x || '' }}" }]);
    r.validate = { ...(r.validate as Obj), allowExistingViolations: false };
    const c = convertPatternRule(policy(r), r);
    expect(c.status, c.reason).toBe('exact');
    const chain = chainOf(c.objects);
    const update = async (from: Obj, to: Obj) => (await vapVerdict(chain, to, 'UPDATE', { oldObject: from })).verdict;
    expect((await vapVerdict(chain, cm({ x: 'a' }))).verdict).toBe('deny');
    expect((await vapVerdict(chain, cm({}))).verdict).toBe('allow');
    expect([await update(cm({ x: 'a' }), cm({ x: 'a' })), await update(cm({ x: 'a' }), cm({ x: 'b' })), await update(cm({ x: 'a' }), cm({}))]).toEqual([
      'allow',
      'deny',
      'deny',
    ]);
    // without a default a CREATE's lookup fails and errs the rule, as in Kyverno (an error denies)
    const bare = rule([{ key: '{{ request.object.data.x }}', operator: 'NotEquals', value: '{{ request.oldObject.data.x }}' }]);
    bare.validate = { ...(bare.validate as Obj), allowExistingViolations: false };
    const cb = convertPatternRule(policy(bare), bare);
    expect((await vapVerdict(chainOf(cb.objects), cm({ x: 'a' }))).verdict).toBe('error');
    // Kyverno's pass over the old object (allowExistingViolations) empties request.oldObject: not converted
    const excused = rule([{ key: '{{ request.object.data.x }}', operator: 'NotEquals', value: '{{ request.oldObject.data.x }}' }]);
    expect(convertPatternRule(policy(excused), excused)).toMatchObject({ status: 'unsupported', reason: expect.stringContaining('old object') });
  });
  it("matches and excludes by subjects as Kyverno reads the request's userInfo (wildcards in names)", async () => {
    const subjects = [
      { kind: 'User', name: 'system:serviceaccount:tekton-pipelines:*' },
      { kind: 'Group', name: 'admin?' },
      { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' },
    ];
    const r: Obj = { ...rule([]), validate: { message: 'no', deny: {} }, exclude: { any: [{ subjects }] } };
    const c = convertPatternRule(policy(r), r);
    expect(c.status, c.reason).toBe('exact');
    const chain = chainOf(c.objects);
    const as = async (username: string, groups: string[] = []) => (await vapVerdict(chain, cm({}), 'CREATE', { userInfo: { username, groups } })).verdict;
    expect([
      await as('system:serviceaccount:tekton-pipelines:controller'),
      await as('jane', ['admins']),
      await as('jane', ['admin']),
      await as('system:serviceaccount:ns:sa'),
      await as('system:serviceaccount:ns:sa2'),
      await as('sa'),
    ]).toEqual(['allow', 'allow', 'deny', 'allow', 'deny', 'deny']);
    // several match.any entries of the same kinds: one without subjects matches every user
    const both: Obj = {
      ...r,
      exclude: undefined,
      match: { any: [{ resources: { kinds: ['ConfigMap'] } }, { resources: { kinds: ['ConfigMap'] }, subjects }] },
    };
    expect(await verdicts(both, [cm({})])).toEqual(['deny']);
    const other: Obj = { ...both, match: { any: [{ resources: { kinds: ['Secret'] } }, { resources: { kinds: ['ConfigMap'] }, subjects }] } };
    expect(convertPatternRule(policy(other), other)).toMatchObject({ status: 'unsupported', reason: expect.stringContaining('several match.any entries') });
    // exclude by bare kinds (any group, no subresource) and operations, as pkg/utils/match CheckKind
    const byKind: Obj = { ...rule([]), validate: { message: 'no', deny: {} }, exclude: { any: [{ resources: { kinds: ['ConfigMap'], names: ['keep'] } }] } };
    const named = (name: string): Obj => ({ ...cm({}), metadata: { name, namespace: 'default' } });
    expect(await verdicts(byKind, [named('keep'), named('other')])).toEqual(['allow', 'deny']);
    // (allowExistingViolations off: an UPDATE from an object that fails too would be let through)
    const byOp: Obj = {
      ...byKind,
      validate: { message: 'no', deny: {}, allowExistingViolations: false },
      exclude: { any: [{ resources: { operations: ['CREATE'] } }] },
    };
    const cop = convertPatternRule(policy(byOp), byOp);
    expect([(await vapVerdict(chainOf(cop.objects), cm({}))).verdict, (await vapVerdict(chainOf(cop.objects), cm({}), 'UPDATE')).verdict]).toEqual([
      'allow',
      'deny',
    ]);
    const grouped: Obj = { ...byKind, exclude: { any: [{ resources: { kinds: ['v1/ConfigMap'] } }] } };
    expect(convertPatternRule(policy(grouped), grouped)).toMatchObject({ status: 'unsupported', reason: expect.stringContaining('bare kinds') });
    // a mutate rule's differential asks as one user: its subjects are not converted
    const mutating: Obj = { ...r, validate: undefined, mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } } };
    expect(convertPatternRule(policy(mutating), mutating)).toMatchObject({ status: 'unsupported', reason: expect.stringContaining('subjects') });
    // roles and cluster roles are the authorizer's: not converted
    const roles: Obj = { ...r, exclude: { any: [{ clusterRoles: ['cluster-admin'] }] } };
    expect(convertPatternRule(policy(roles), roles)).toMatchObject({ status: 'unsupported', reason: expect.stringContaining('clusterRoles') });
  });
});

describe('sort() read as a set', () => {
  it("is an In operator's key or value, its elements' order unread; a list of numbers or of texts only, else an error", async () => {
    const widget = (spec: Obj): Obj => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x', namespace: 'default' }, spec });
    const rule: Obj = {
      name: 'r',
      match: { any: [{ resources: { kinds: ['example.com/v1/Widget'] } }] },
      validate: {
        message: 'no',
        deny: {
          conditions: {
            all: [{ key: '{{ (request.object.spec.a || `[]`) | sort(@) }}', operator: 'AnyNotIn', value: '{{ request.object.spec.b[] | sort(@) }}' }],
          },
        },
      },
    };
    expect(convertPatternRule(policy(rule), rule).status).toBe('exact');
    expect(
      await verdicts(rule, [
        widget({ b: [] }),
        widget({ a: ['y', 'x'], b: [['x'], ['y']] }),
        widget({ a: ['y', 'z'], b: [['x'], ['y']] }),
        widget({ a: [2, 1], b: [[1, 2.0]] }),
        widget({ a: ['x', 1], b: [['x'], [1]] }),
        widget({ a: 'x', b: [['x']] }),
      ]),
    ).toEqual(['allow', 'allow', 'deny', 'allow', 'error', 'error']);
  });
});

describe('request.userInfo', () => {
  it("is the request's user as Kyverno's context holds it (an empty field left out: not found)", async () => {
    const rule: Obj = {
      name: 'r',
      match: { any: [{ resources: { kinds: ['Namespace'] } }] },
      validate: {
        message: 'no',
        deny: {
          conditions: {
            any: [
              {
                key: '{{ request.object.metadata.name }}',
                operator: 'AnyNotIn',
                value: "{{ request.userInfo.groups[?contains(@,':') == `false`][].join('-', [@, '*']) }}",
              },
            ],
          },
        },
      },
    };
    const c = convertPatternRule(policy(rule), rule);
    expect(c.status).toBe('exact');
    const chain = chainOf(c.objects);
    const ns: Obj = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team1-test' } };
    const asked = async (groups: string[]) => (await vapVerdict(chain, ns, 'CREATE', { userInfo: { username: 'u', groups } })).verdict;
    expect(await asked(['system:authenticated', 'team1'])).toBe('allow');
    expect(await asked(['system:authenticated', 'team2'])).toBe('deny');
    // no groups: the field is left out, the filter reads nil, and AnyNotIn of a nil value is false
    expect(await asked([])).toBe('allow');
  });
});

describe('a list holding a constant context variable', () => {
  it("is read by an In operator as Kyverno substitutes it: the variable's list one member, printed by fmt.Sprint", async () => {
    const rule = podRule(
      { deny: { conditions: { any: [{ key: '{{ request.object.metadata.annotations.cap }}', operator: 'AnyIn', value: ['NET_RAW', '{{ caps }}'] }] } } },
      { context: [{ name: 'caps', variable: { value: ['CHOWN', 'KILL'] } }] },
    );
    expect(convertPatternRule(policy(rule), rule).status).toBe('exact');
    const pods = ['NET_RAW', 'CHOWN', '[CHOWN KILL]'].map((cap) => pod({ containers: [{ name: 'c', image: 'i' }] }, { annotations: { cap } }));
    expect(await verdicts(rule, pods)).toEqual(['deny', 'allow', 'deny']);
  });
});

describe('statuses', () => {
  it('names what it does not convert, and a wildcard label key as a difference', () => {
    const p = (r: Obj) => convertPatternRule(policy(r), r);
    const service = (validate: Obj): Obj => ({ name: 'r', match: { any: [{ resources: { kinds: ['Service'] } }] }, validate: { message: 'no', ...validate } });
    expect(p(podRule({ pattern: { spec: {} } }, { context: [{ name: 'x', apiCall: { urlPath: '/api/v1/pods', jmesPath: 'items' } }] }))).toMatchObject({
      status: 'unsupported',
      reason: expect.stringContaining('context'),
    });
    expect(p(service({ deny: { conditions: { any: [{ key: '{{ request.object.spec.x | sort(@) }}', operator: 'Equals', value: 'y' }] } } }))).toMatchObject({
      status: 'unsupported',
      reason: expect.stringContaining('sort()'),
    });
    expect(p(service({ deny: { conditions: { any: [{ key: '{{ request.name }}', operator: 'Equals', value: 'y' }] } } }))).toMatchObject({
      status: 'unsupported',
      reason: expect.stringContaining('request.name'),
    });
    // a field printed into a text: Kyverno prints a list or a map as JSON (text-variables.ts)
    expect(p(service({ deny: { conditions: { any: [{ key: 'x-{{ request.object.spec.x }}', operator: 'Equals', value: 'y' }] } } }))).toMatchObject({
      status: 'different',
      reason: expect.stringContaining('printed into a text'),
    });
    expect(
      p(service({ deny: { conditions: { any: [{ key: '{{ request.object.spec.{{ request.namespace }} }}', operator: 'Equals', value: 'y' }] } } })),
    ).toMatchObject({
      status: 'unsupported',
      reason: expect.stringContaining('inside a text'),
    });
    // a Pod rule's conditions on the object are rewritten under the template for the controllers, as Kyverno's autogen does
    expect(p(podRule({ deny: { conditions: { any: [{ key: '{{ request.object.spec.x }}', operator: 'Equals', value: 'y' }] } } }))).toMatchObject({
      status: 'exact',
    });
    for (const c of [
      { key: "{{ request.object.spec.x || '' }}", operator: 'Equals', value: 'y' },
      { key: '{{ request.object.spec.x }}', operator: 'GreaterThan', value: 3 },
      { key: '{{ request.object.spec.ports[].port | length(@) }}', operator: 'LessThanOrEquals', value: '2' },
      { key: "{{ keys(request.object.spec) | contains(@, 'x') }}", operator: 'Equals', value: false },
    ])
      expect(p(service({ deny: { conditions: { any: [c] } } }))).toMatchObject({ status: 'exact' });
    expect(p(service({ deny: { conditions: { any: [{ key: 'x', operator: 'AnyIn', value: '{{ request.object.spec.x }}' }] } } }))).toMatchObject({
      status: 'different',
      reason: expect.stringContaining('range or a JSON list'),
    });
    const anyIn = { conditions: { any: [{ key: '{{ request.object.spec.type }}', operator: 'AnyIn', value: ['NodePort', 'LoadBalancer'] }] } };
    expect(p(service({ deny: anyIn }))).toMatchObject({ status: 'exact' });
    expect(p(service({ deny: {} }))).toMatchObject({ status: 'exact' });
    // the differential sends no request for a subresource: a rule on a Pod's exec or a Deployment's scale is never called exact
    const exec: Obj = { name: 'r', match: { any: [{ resources: { kinds: ['Pod/exec'], operations: ['CONNECT'] } }] }, validate: { message: 'no', deny: {} } };
    expect(p(exec)).toMatchObject({ status: 'different', reason: expect.stringContaining('pods/exec') });
    expect(p(exec).reason).toContain('not proven exact');
    const scale: Obj = {
      name: 'r',
      match: { any: [{ resources: { kinds: ['Deployment/scale'] } }] },
      validate: { message: 'no', pattern: { spec: { replicas: '<9' } } },
    };
    expect(p(scale)).toMatchObject({ status: 'different', reason: expect.stringContaining('deployments/scale') });
    expect(p(podRule({ pattern: { spec: { '<(x)': 'y' } } }))).toMatchObject({ status: 'unsupported', reason: expect.stringContaining('global anchor') });
    expect(p(podRule({ pattern: { metadata: { '=(labels)': { 'X(team/*)': '*' } } } }))).toMatchObject({
      status: 'different',
      reason: expect.stringContaining('several keys match'),
    });
    expect(p(podRule({ pattern: { spec: { containers: [{ image: '!*:latest' }] } } }))).toMatchObject({ status: 'exact' });
  });
});
