/**
 * The namespace guard shapes P15 recognises (namespace-guards.ts): wherever one says a namespace
 * is kept away, the real CEL engine finds the expression false for a request in it, so the table
 * claims no more than the expressions do; and it says so of the namespaces it should.
 */
import { describe, expect, it } from 'vitest';
import { useEngine, value } from '../../cel/test-helpers';
import { expressionExcludesNamespace, NAMESPACE_GUARD_SHAPES } from './namespace-guards';

useEngine();

const NAMESPACES = ['kube-system', 'kube-public', 'team-a', 'team-b', 'default', 'web-apps', 'x-system'];

const inputs = (namespace: string) => ({
  request: {
    uid: 'u',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    operation: 'CREATE',
    namespace,
    userInfo: { username: 'alice', groups: ['system:authenticated'] },
  },
  namespaceObject: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
});

describe('namespace guard shapes', () => {
  it('each shape is false for a request in every namespace it says it keeps away, true elsewhere (real CEL engine)', async () => {
    for (const { example, shape } of NAMESPACE_GUARD_SHAPES) {
      expect(expressionExcludesNamespace(example, 'kube-system') || expressionExcludesNamespace(example, 'team-b'), `${example} keeps some away`).toBe(true);
      for (const ns of NAMESPACES) {
        const holds = (await value(example, inputs(ns), 'vap-matchCondition')) === true;
        expect(holds, `${example} in ${ns} (${shape})`).toBe(!expressionExcludesNamespace(example, ns));
      }
    }
  });

  it('reads a conjunct of a longer condition, whatever its spacing and quotes', () => {
    expect(expressionExcludesNamespace(`object.kind == 'Pod' && ( request.namespace != "kube-system" )`, 'kube-system')).toBe(true);
    expect(expressionExcludesNamespace(`request.namespace != 'kube-system' || object.kind == 'Pod'`, 'kube-system')).toBe(false);
    expect(expressionExcludesNamespace(`request.namespace.matches('^team-')`, 'kube-system')).toBe(false);
  });
});
