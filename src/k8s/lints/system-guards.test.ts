/**
 * The guard shapes W03 recognises (system-guards.ts): each is evaluated by the real CEL engine
 * on the control-plane and node requests it claims to keep away (it must be false) and on an
 * ordinary user's request (it must be true), so the table claims no more than the expressions do.
 */
import { describe, expect, it } from 'vitest';
import { useEngine, value } from '../../cel/test-helpers';
import { SKIP_SYSTEM_EXPRESSION } from '../fixes/edits';
import { lint } from './index';
import { conjuncts, normalize, skipsSystemUsers, SYSTEM_GUARD_SHAPES, type SystemClass } from './system-guards';

useEngine();

const request = (username: string, groups: string[]) => ({
  uid: 'u',
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  operation: 'CREATE',
  namespace: 'kube-system',
  userInfo: { username, groups: [...groups, 'system:authenticated'] },
});

/** Representative requests of each class W03 is about. */
const SYSTEM: Record<SystemClass, ReturnType<typeof request>[]> = {
  nodes: [request('system:node:node-1', ['system:nodes'])],
  'control-plane': [request('system:kube-controller-manager', []), request('system:kube-scheduler', []), request('system:apiserver', ['system:masters'])],
  serviceaccounts: [request('system:serviceaccount:kube-system:replicaset-controller', ['system:serviceaccounts', 'system:serviceaccounts:kube-system'])],
};
const alice = request('alice@example.com', ['developers']);

const holds = async (expression: string, req: object) => (await value(expression, { request: req }, 'webhook-matchCondition')) === true;

describe('system guard shapes', () => {
  it('each shape is false for the system requests it claims and true for an ordinary user (real CEL engine)', async () => {
    for (const shape of SYSTEM_GUARD_SHAPES) {
      expect(await holds(shape.expression, alice), shape.expression).toBe(true);
      for (const k of shape.skips)
        for (const req of SYSTEM[k]) expect(await holds(shape.expression, req), `${shape.expression} for ${req.userInfo.username}`).toBe(false);
    }
  });

  it("the quick fix's own expression is recognised as guarding both classes", async () => {
    expect(skipsSystemUsers({ matchConditions: [{ name: 'x', expression: SKIP_SYSTEM_EXPRESSION }] })).toBe(true);
    for (const req of [...SYSTEM.nodes, ...SYSTEM['control-plane']]) expect(await holds(SKIP_SYSTEM_EXPRESSION, req)).toBe(false);
    expect(await holds(SKIP_SYSTEM_EXPRESSION, request('system:serviceaccount:kube-system:replicaset-controller', ['system:serviceaccounts']))).toBe(true);
  });

  it('normalises whitespace, quotes and outer parentheses, and splits a top-level &&', () => {
    expect(normalize(` ( !request.userInfo.username.startsWith( "system:" ) ) `)).toBe("!request.userInfo.username.startsWith('system:')");
    expect(conjuncts(normalize("object.metadata.name != 'a && b' && (!('system:nodes' in request.userInfo.groups))"))).toEqual([
      "object.metadata.name!='a && b'",
      "!('system:nodes'in request.userInfo.groups)",
    ]);
  });

  it('a guard for nodes alone or inside an || is not enough', () => {
    const w = (...expressions: string[]) => ({ matchConditions: expressions.map((expression, i) => ({ name: `c${i}`, expression })) });
    expect(skipsSystemUsers(w("!('system:nodes' in request.userInfo.groups)"))).toBe(false);
    expect(
      skipsSystemUsers(
        w(
          "!('system:nodes' in request.userInfo.groups)",
          "!(request.userInfo.username.startsWith('system:') && !request.userInfo.username.startsWith('system:serviceaccount:'))",
        ),
      ),
    ).toBe(true);
    expect(skipsSystemUsers(w("object.kind == 'Pod' || !request.userInfo.username.startsWith('system:')"))).toBe(false);
    expect(skipsSystemUsers(w("has(object.metadata) && !request.userInfo.username.startsWith('system:')"))).toBe(true);
  });
});

describe('W03 with an equivalent guard', () => {
  const hook = (matchConditions: object[]) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'x' },
    webhooks: [
      {
        name: 'a.b.c',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        clientConfig: { url: 'https://hook.example.com/' },
        failurePolicy: 'Fail',
        namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] },
        matchConditions,
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      },
    ],
  });

  it("is quiet with !request.userInfo.username.startsWith('system:')", () => {
    expect(lint(hook([{ name: 'exclude-system-users', expression: "!request.userInfo.username.startsWith('system:')" }])).map((l) => l.id)).not.toContain(
      'W03',
    );
  });

  it('its fix adds the guard once, and never a second one beside a guard for nodes only', () => {
    const nodesOnly = hook([{ name: 'exclude-system-users', expression: "!('system:nodes' in request.userInfo.groups)" }]);
    const fix = lint(nodesOnly).find((l) => l.id === 'W03')!.fixes![0]!;
    const once = fix.apply(nodesOnly).object as ReturnType<typeof hook>;
    expect(once.webhooks[0]!.matchConditions.map((c) => (c as { name: string }).name)).toEqual(['exclude-system-users', 'exclude-system-users-2']);
    expect(lint(once).map((l) => l.id)).not.toContain('W03');
    expect(fix.apply(once).object).toBe(once);
  });
});
