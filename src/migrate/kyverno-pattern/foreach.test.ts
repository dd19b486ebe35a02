/** validate.foreach: lists by JMESPath, elements bound in conditions, preconditions, scope, nesting (real CEL engine), and the mutants' sites. */
import { describe, expect, it } from 'vitest';
import type { Obj } from '../../base/json';
import { useEngine } from '../../cel/test-helpers';
import { foreachSites } from './foreach-sites';
import { mutants } from './mutants';
import { convertPatternRule } from './rule';
import { enforcePolicy, exactVerdicts as verdicts } from './test-helpers';

useEngine();

const policy = enforcePolicy;
const podRule = (foreach: Obj[]): Obj => ({ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, validate: { message: 'no', foreach } });
const pod = (spec: Obj): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'default' }, spec });
const ctr = (name: string, extra: Obj = {}): Obj => ({ name, image: `${name}:1`, ...extra });
const caps = (name: string, drop?: string[]): Obj => ctr(name, drop ? { securityContext: { capabilities: { drop } } } : {});

describe('validate.foreach', { timeout: 300_000 }, () => {
  it('a multi-select list flattened, each element read through `element` in deny conditions', async () => {
    const rule = podRule([
      {
        list: 'request.object.spec.[ephemeralContainers, initContainers, containers][]',
        deny: { conditions: { all: [{ key: 'ALL', operator: 'AnyNotIn', value: '{{ element.securityContext.capabilities.drop[] || `[]` }}' }] } },
      },
    ]);
    expect(
      await verdicts(rule, [
        pod({ containers: [caps('a', ['ALL'])] }),
        pod({ containers: [caps('a', ['ALL'])], initContainers: [caps('i')] }),
        pod({ containers: [caps('a', ['NET_RAW'])] }),
        pod({ containers: [caps('a', ['ALL']), caps('b', ['ALL'])] }),
      ]),
    ).toEqual(['allow', 'deny', 'deny', 'allow']);
  });

  it('preconditions pick the elements; a filter in the list; a missing list passes', async () => {
    const rule = podRule([
      {
        list: "request.object.spec.containers[?name != 'sidecar']",
        preconditions: { all: [{ key: '{{ element.image }}', operator: 'NotEquals', value: 'trusted*' }] },
        deny: { conditions: { any: [{ key: '{{ element.securityContext.privileged || `false` }}', operator: 'Equals', value: true }] } },
      },
      { list: 'request.object.spec.initContainers', pattern: { image: '!*:latest' } },
    ]);
    const priv = (name: string, image: string) => ({ name, image, securityContext: { privileged: true } });
    expect(
      await verdicts(rule, [
        pod({ containers: [priv('sidecar', 'x:1')] }),
        pod({ containers: [priv('a', 'trusted/x:1')] }),
        pod({ containers: [priv('a', 'x:1')] }),
        pod({ containers: [ctr('a')], initContainers: [{ name: 'i', image: 'i:latest' }] }),
      ]),
    ).toEqual(['allow', 'allow', 'deny', 'deny']);
  });

  it('a nested foreach reads the outer element; a pattern on strings validates the resource unless scoped', async () => {
    const nested = podRule([
      {
        list: 'request.object.spec.containers',
        foreach: [{ list: 'element.ports', deny: { conditions: { any: [{ key: '{{ element.containerPort }}', operator: 'LessThan', value: 1024 }] } } }],
      },
    ]);
    expect(
      await verdicts(nested, [
        pod({ containers: [ctr('a', { ports: [{ containerPort: 8080 }] })] }),
        pod({ containers: [ctr('a', { ports: [{ containerPort: 80 }] })] }),
      ]),
    ).toEqual(['allow', 'deny']);
    // the elements are strings (not in scope): the pattern checks the Pod itself, once per element
    const strings = podRule([{ list: 'request.object.spec.containers[].image', pattern: { spec: { '=(hostNetwork)': false } } }]);
    expect(await verdicts(strings, [pod({ containers: [ctr('a')] }), pod({ containers: [ctr('a')], hostNetwork: true }), pod({ containers: [] })])).toEqual([
      'allow',
      'deny',
      'allow',
    ]);
  });

  it('names what it does not convert', () => {
    const p = (f: Obj) => convertPatternRule(policy(podRule([f])), podRule([f]));
    expect(p({ list: 'request.object.spec.containers', context: [{ name: 'x', variable: { value: 1 } }], deny: {} })).toMatchObject({
      status: 'unsupported',
      reason: expect.stringContaining('context'),
    });
    expect(
      p({ list: 'request.object.spec.containers', deny: { conditions: { any: [{ key: '{{ elementIndex }}', operator: 'Equals', value: 0 }] } } }),
    ).toMatchObject({
      status: 'unsupported',
      reason: expect.stringContaining('elementIndex'),
    });
  });

  it('the mutants aim at every list a multi-select names and at the fields read through `element`', () => {
    const sites = foreachSites([
      {
        list: 'request.object.spec.[initContainers, containers][]',
        deny: { conditions: { any: [{ key: '{{ element.image }}', operator: 'Equals', value: 'k8s.gcr.io/*' }] } },
      },
    ]);
    expect(sites).toContainEqual({ spec: { containers: [{ image: 'k8s.gcr.io/*' }] } });
    expect(sites).toContainEqual({ spec: { initContainers: [{ image: 'k8s.gcr.io/*' }] } });
    // the lists emptied, grown, and one element set to hit the condition
    const seed = pod({ containers: [ctr('a'), ctr('b')] });
    const out = mutants([seed], sites, 200, 3).map((m) => (m.spec ?? {}) as Obj);
    const images = (l: unknown) => ((l as Obj[] | undefined) ?? []).map((c) => c.image);
    expect(out.some((s) => Array.isArray(s.containers) && s.containers.length === 0)).toBe(true);
    expect(out.some((s) => (s.containers as Obj[] | undefined)?.length === 3)).toBe(true);
    expect(out.some((s) => images(s.containers).includes('a:1') && images(s.containers).some((i) => String(i).startsWith('k8s.gcr.io/')))).toBe(true);
    expect(out.some((s) => images(s.initContainers).some((i) => String(i).startsWith('k8s.gcr.io/')))).toBe(true);
  });
});
