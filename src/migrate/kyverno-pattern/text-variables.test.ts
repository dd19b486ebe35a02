/** Variables inside a text and request.namespace in conditions (real CEL engine). */
import { describe, expect, it } from 'vitest';
import type { Obj } from '../../base/json';
import { useEngine } from '../../cel/test-helpers';
import { convertPatternRule } from './rule';
import { chainOf, enforcePolicy, exactVerdicts, vapVerdict } from './test-helpers';

useEngine();

const polex = (namespace: string, exceptions?: unknown): Obj => ({
  apiVersion: 'kyverno.io/v2',
  kind: 'PolicyException',
  metadata: { name: 'x', namespace },
  ...(exceptions === undefined ? {} : { spec: { exceptions } }),
});
// policy-namespace-match-polex-namespace (kyverno/policies other/policy-for-exceptions)
const rule: Obj = {
  name: 'r',
  match: { any: [{ resources: { kinds: ['PolicyException'] } }] },
  validate: {
    message: 'no',
    foreach: [
      {
        list: 'request.object.spec.exceptions[]',
        preconditions: { any: [{ key: '{{element.policyName}}', operator: 'Equals', value: '*/*' }] },
        deny: { conditions: { any: [{ key: '{{ element.policyName}}', operator: 'NotEquals', value: '{{request.namespace}}/*' }] } },
      },
    ],
  },
};

describe('variables inside a text', { timeout: 300_000 }, () => {
  it('prints request.namespace into the text a NotEquals reads as a pattern', async () => {
    expect(
      await exactVerdicts(rule, [
        polex('team-a'),
        polex('team-a', [{ policyName: 'team-a/p' }]),
        polex('team-a', [{ policyName: 'team-b/p' }]),
        polex('team-a', [{ policyName: 'cluster-policy' }]),
      ]),
    ).toEqual(['allow', 'allow', 'deny', 'allow']);
  });

  it('prints several variables, numbers and booleans as Kyverno does; a list errs the rule', async () => {
    const deny = (key: string, value: string): Obj => ({
      name: 'r',
      match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
      validate: { message: 'no', deny: { conditions: { all: [{ key, operator: 'Equals', value }] } } },
    });
    const cm = (data: Obj): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns1', labels: { a: 'x' } }, data });
    const r = deny(
      '{{ request.object.data.k }}',
      '{{request.namespace}}:{{ length(request.object.data) }}-{{ request.object.metadata.labels.a }}{{ request.object.metadata.labels.b || `true` }}',
    );
    const c = convertPatternRule(enforcePolicy(r), r);
    // a label value is a text without braces in every object the apiserver admits
    expect(c.status, c.reason).toBe('exact');
    // a field the converter knows nothing of could be a list or a map
    const data = deny('{{ request.object.data.k }}', 'x-{{ request.object.data.l }}');
    expect(convertPatternRule(enforcePolicy(data), data).reason).toContain('a list, a map');
    const chain = chainOf(c.objects);
    const verdicts: string[] = [];
    for (const o of [cm({ k: 'ns1:1-xtrue' }), cm({ k: 'ns1:1-x' }), cm({ k: 'ns1:2-xtrue', l: 'y' })]) verdicts.push((await vapVerdict(chain, o)).verdict);
    expect(verdicts).toEqual(['deny', 'allow', 'deny']);
    const list = deny('a', 'x-{{ request.object.metadata.labels }}');
    const l = convertPatternRule(enforcePolicy(list), list);
    expect((await vapVerdict(chainOf(l.objects), cm({}))).verdict).toBe('error');
  });

  it('request.namespace only where every request has a namespace, and not on DELETE', () => {
    const on = (kinds: string[], operations?: string[]): Obj => ({
      name: 'r',
      match: { any: [{ resources: { kinds, ...(operations ? { operations } : {}) } }] },
      validate: { message: 'no', deny: { conditions: { all: [{ key: '{{ request.namespace }}', operator: 'Equals', value: 'kube-system' }] } } },
    });
    expect(convertPatternRule(enforcePolicy(on(['Pod'])), on(['Pod'])).status).toBe('exact');
    expect(convertPatternRule(enforcePolicy(on(['Namespace'])), on(['Namespace'])).reason).toContain('cluster-scoped');
    expect(convertPatternRule(enforcePolicy(on(['*'])), on(['*'])).reason).toContain('cluster-scoped');
    expect(convertPatternRule(enforcePolicy(on(['Pod'], ['DELETE'])), on(['Pod'], ['DELETE'])).reason).toContain('DELETE');
  });

  it('prints a label into a quoted text of the query around it, for Pods and their controllers', async () => {
    // metadata-match-regex (kyverno/policies other/metadata-match-regex)
    const r: Obj = {
      name: 'r',
      match: { any: [{ resources: { kinds: ['Pod'] } }] },
      validate: {
        message: 'no',
        deny: {
          conditions: {
            all: [
              {
                key: `{{ regex_match('^v[0-9].[0-9].[0-9]$','{{request.object.metadata.labels."corp.org/version" || 'empty'}}') }}`,
                operator: 'Equals',
                value: false,
              },
            ],
          },
        },
      },
    };
    const c = convertPatternRule(enforcePolicy(r), r);
    expect(c.status, c.reason).toBe('exact');
    const chain = chainOf(c.objects);
    const pod = (labels: Obj): Obj => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default', labels },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
    const deployment = (labels: Obj): Obj => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b', ...labels } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    });
    const out: string[] = [];
    for (const o of [
      pod({ 'corp.org/version': 'v1.2.3' }),
      pod({ 'corp.org/version': 'v1.2' }),
      pod({}),
      deployment({ 'corp.org/version': 'v1.2.3' }),
      deployment({}),
    ])
      out.push((await vapVerdict(chain, o)).verdict);
    expect(out).toEqual(['allow', 'deny', 'deny', 'allow', 'deny']);
  });

  it('a value that may hold a quote, printed into a quoted text, is a difference', () => {
    const r: Obj = {
      name: 'r',
      match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
      validate: {
        message: 'no',
        deny: { conditions: { all: [{ key: "{{ regex_match('^a', '{{ request.object.data.k }}') }}", operator: 'Equals', value: false }] } },
      },
    };
    expect(convertPatternRule(enforcePolicy(r), r).reason).toContain('quote');
    // a variable in a JSON literal or a quoted name: Kyverno reads the printed text otherwise
    const json: Obj = {
      ...r,
      validate: { message: 'no', deny: { conditions: { all: [{ key: '{{ `"{{ request.namespace }}"` }}', operator: 'Equals', value: 'x' }] } } },
    };
    expect(convertPatternRule(enforcePolicy(json), json).status).toBe('unsupported');
  });

  it('keeps nested, escaped and shallow variables out', () => {
    const r = (key: string): Obj => ({
      name: 'r',
      match: { any: [{ resources: { kinds: ['Pod'] } }] },
      validate: { message: 'no', deny: { conditions: { all: [{ key, operator: 'Equals', value: 'x' }] } } },
    });
    for (const key of ['{{ to_upper({{ request.object.metadata.name }}) }}', 'a-\\{{ request.namespace }}', 'a-{{- request.namespace }}'])
      expect(convertPatternRule(enforcePolicy(r(key)), r(key)).status, key).toBe('unsupported');
  });
});
