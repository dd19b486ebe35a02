/** A rule's `context` as policy variables, a ConfigMap param and namespaceObject (context.ts), decided with the real CEL engine. */
import { describe, expect, it } from 'vitest';
import type { Obj } from '../../base/json';
import { useEngine } from '../../cel/test-helpers';
import { namespaceIn, worldsOf } from './context-worlds';
import { convertPatternRule } from './rule';
import { chainOf, enforcePolicy, vapVerdict } from './test-helpers';

useEngine();

const policy = enforcePolicy;
const rule = (context: Obj[], deny: Obj, kinds = ['Pod'], extra: Obj = {}): Obj => ({
  name: 'r',
  match: { any: [{ resources: { kinds } }] },
  context,
  validate: { message: 'no', deny: { conditions: deny } },
  ...extra,
});
const pod = (labels: Obj = {}, image = 'a/b:1', namespace = 'default'): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'x', namespace, labels },
  spec: { containers: [{ name: 'c', image }] },
});
const configMap = (data?: Obj): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'platform' }, ...(data ? { data } : {}) });

async function verdicts(r: Obj, cases: { object: Obj; configMap?: Obj; labels?: Record<string, string> }[]): Promise<string[]> {
  const c = convertPatternRule(policy(r), r);
  expect(c.status, c.reason).toBe('exact');
  const out: string[] = [];
  for (const k of cases) {
    const chain = chainOf([...c.objects, ...(k.configMap ? [k.configMap] : [])]);
    const ns = namespaceIn({ namespaceLabels: k.labels ?? {}, namespaceAnnotations: {} }, String((k.object.metadata as Obj).namespace));
    out.push((await vapVerdict(chain, k.object, 'CREATE', { namespace: ns })).verdict);
  }
  return out;
}

describe('context entries', () => {
  it('a variable: jmesPath with a default (a missing or failing query gives it), a value, a nil query without default errs', { timeout: 600_000 }, async () => {
    const team = rule([{ name: 'team', variable: { jmesPath: 'request.object.metadata.labels.team', default: 'none' } }], {
      any: [{ key: '{{ team }}', operator: 'Equals', value: 'none' }],
    });
    expect(await verdicts(team, [{ object: pod({ team: 'a' }) }, { object: pod() }])).toEqual(['allow', 'deny']);
    const bare = rule([{ name: 'team', variable: { jmesPath: 'request.object.metadata.labels.team' } }], {
      any: [{ key: '{{ team }}', operator: 'Equals', value: 'x' }],
    });
    // without a default a nil value errs the rule (Kyverno: "evaluated to nil"): the request is denied
    expect(await verdicts(bare, [{ object: pod({ team: 'a' }) }, { object: pod({ team: 'x' }) }, { object: pod() }])).toEqual(['allow', 'deny', 'error']);
    const list = rule([{ name: 'ok', variable: { value: ['a/b:1', 'c'] } }], {
      any: [{ key: '{{ request.object.spec.containers[].image }}', operator: 'AnyNotIn', value: '{{ ok }}' }],
    });
    expect(await verdicts(list, [{ object: pod({}, 'a/b:1') }, { object: pod({}, 'd') }])).toEqual(['allow', 'deny']);
    // a list variable is never a text: AnyNotIn reads it as it is, the conversion is exact
    expect(convertPatternRule(policy(list), list).status).toBe('exact');
  });

  it('a variable stored through JSON: an int reads back as a number JMESPath compares with a literal', { timeout: 600_000 }, async () => {
    const n = rule([{ name: 'n', variable: { jmesPath: 'request.object.spec.priority' } }], {
      any: [{ key: '{{ n == `5` }}', operator: 'Equals', value: true }],
    });
    const p = (priority: number) => ({ ...pod(), spec: { ...(pod().spec as Obj), priority } });
    expect(await verdicts(n, [{ object: p(5) }, { object: p(4) }])).toEqual(['deny', 'allow']);
  });

  it('a ConfigMap: the policy param, read as params.data (a value is a wildcard pattern); missing, the policy errs and denies (Kyverno errs)', {
    timeout: 600_000,
  }, async () => {
    const r = rule([{ name: 'cm', configMap: { name: 'cm', namespace: 'platform' } }], {
      all: [
        { key: "{{ cm.data.allowed || '' }}", operator: 'NotEquals', value: '' },
        { key: '{{ request.object.spec.containers[0].image }}', operator: 'NotEquals', value: '{{ cm.data.allowed }}' },
      ],
    });
    const c = convertPatternRule(policy(r), r);
    expect((c.objects[0].spec as Obj).paramKind).toEqual({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect((c.objects[1].spec as Obj).paramRef).toEqual({ name: 'cm', namespace: 'platform', parameterNotFoundAction: 'Deny' });
    expect(
      await verdicts(r, [
        { object: pod({}, 'a/b:1'), configMap: configMap({ allowed: 'a/b:1' }) },
        { object: pod({}, 'a/b:2'), configMap: configMap({ allowed: 'a/b:1' }) },
        { object: pod({}, 'a/b:2'), configMap: configMap({ allowed: 'a/*' }) },
        { object: pod({}, 'a/b:2') },
      ]),
    ).toEqual(['allow', 'deny', 'allow', 'error']);
  });

  it('a ConfigMap the first query does not read: a missing one is a difference, not exact', () => {
    const r = rule([{ name: 'cm', configMap: { name: 'cm', namespace: 'platform' } }], {
      all: [
        { key: '{{ request.object.metadata.name }}', operator: 'Equals', value: 'x' },
        { key: '{{ cm.data.a }}', operator: 'Equals', value: 'b' },
      ],
    });
    const c = convertPatternRule(policy(r), r);
    expect(c.status).toBe('different');
    expect(c.reason).toMatch(/missing ConfigMap/);
  });

  it('a variable picked from texts that start with a word is read as a word by In; one that may start with a digit is not', () => {
    const of = (prefix: string) => {
      const r = rule(
        [{ name: 'v', variable: { jmesPath: `request.object.spec.volumes[?projected].name[?starts_with(@, '${prefix}')] | [0] || ''`, default: '' } }],
        {
          all: [{ key: '{{ request.object.metadata.name }}', operator: 'AnyIn', value: '{{ v }}' }],
        },
      );
      return convertPatternRule(policy(r), r);
    };
    expect(of('kube-api-access-').status).toBe('exact');
    // `1-5…` may be a range, `true…` JSON: Kyverno parses such a value
    expect(of('1-5').status).toBe('different');
    expect(of('true').status).toBe('different');
  });

  it("the request's Namespace: namespaceObject's labels; not for kinds that may be cluster-scoped", { timeout: 600_000 }, async () => {
    const ctx = [{ name: 'exec', apiCall: { urlPath: '/api/v1/namespaces/{{request.namespace}}', jmesPath: "metadata.labels.exec || ''" } }];
    const r = rule(ctx, { any: [{ key: '{{ exec }}', operator: 'Equals', value: 'false' }] });
    expect(await verdicts(r, [{ object: pod(), labels: { exec: 'false' } }, { object: pod(), labels: { exec: 'true' } }, { object: pod() }])).toEqual([
      'deny',
      'allow',
      'allow',
    ]);
    const cluster = rule(ctx, { any: [{ key: '{{ exec }}', operator: 'Equals', value: 'false' }] }, ['Pod', 'Namespace']);
    expect(convertPatternRule(policy(cluster), cluster).reason).toMatch(/cluster-scoped/);
    const uid = rule([{ name: 'u', apiCall: { urlPath: '/api/v1/namespaces/{{request.namespace}}', jmesPath: 'metadata.uid' } }], {
      any: [{ key: '{{ u }}', operator: 'Equals', value: 'x' }],
    });
    expect(convertPatternRule(policy(uid), uid).reason).toMatch(/labels, annotations and name/);
  });

  it('entries native admission does not carry stay unsupported, with the reason', () => {
    const list = rule([{ name: 'pods', apiCall: { urlPath: '/api/v1/pods', jmesPath: 'items | length(@)' } }], {
      any: [{ key: '{{ pods }}', operator: 'GreaterThan', value: 3 }],
    });
    expect(convertPatternRule(policy(list), list)).toMatchObject({ status: 'unsupported', reason: expect.stringMatching(/apiCall "\/api\/v1\/pods"/) });
    const image = rule([{ name: 'img', imageRegistry: { reference: '{{ request.object.spec.containers[0].image }}' } }], {
      any: [{ key: '{{ img.manifest }}', operator: 'Equals', value: 'x' }],
    });
    expect(convertPatternRule(policy(image), image).reason).toMatch(/imageRegistry/);
  });

  it('the differential clusters: the ConfigMap sometimes missing or without data, the keys the rule reads varied', () => {
    const r = rule([{ name: 'cm', configMap: { name: 'cm', namespace: 'platform' } }], {
      any: [{ key: '{{ cm.data.allowed }}', operator: 'Equals', value: 'x' }],
    });
    const c = convertPatternRule(policy(r), r);
    const worlds = worldsOf(r, c.objects, [pod()], {}) ?? [];
    expect(worlds.some((w) => !w.configMap)).toBe(true);
    expect(worlds.some((w) => w.configMap && !w.configMap.data)).toBe(true);
    expect(new Set(worlds.map((w) => (w.configMap?.data as Obj | undefined)?.allowed)).size).toBeGreaterThan(3);
  });
});
