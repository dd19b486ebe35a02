/**
 * A ClusterPolicy's validate.cel rule converted: its binding's validationActions are the failure
 * action Kyverno v1.19's webhook takes (the oracle's `action`), overrides that apply everywhere
 * included; overrides that make it differ by Namespace are refused, as Kyverno's generator does.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Obj } from '../../src/base/json';
import { convertPolicies } from '../../src/migrate';
import { ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';
import { decideKyverno } from './oracle';

vi.setConfig({ testTimeout: ORACLE_TEST_TIMEOUT });

const policy = (spec: Obj): Obj => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'owner' },
  spec: {
    ...spec,
    rules: [
      {
        name: 'owner-label',
        match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
        validate: { cel: { expressions: [{ expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels", message: 'an owner label' }] } },
      },
    ],
  },
});
const unlabelled: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'prod' } };

/** The converted binding's validationActions, or why the rule was not converted. */
function converted(p: Obj): string[] | string {
  const out = convertPolicies([p], { kubernetesVersion: '1.37', gatekeeper: 'standalone' });
  const rule = out.rules[0]!;
  if (rule.status === 'unsupported') return rule.reason ?? '';
  const binding = out.objects.find((o) => o.kind === 'ValidatingAdmissionPolicyBinding')!;
  return (binding.spec as Obj).validationActions as string[];
}

describe("a validate.cel rule's failure action, converted", () => {
  it("is Kyverno's, an override that applies everywhere included", async () => {
    const cases: Obj[] = [
      { validationFailureAction: 'Enforce' },
      { validationFailureAction: 'Enforce', validationFailureActionOverrides: [{ action: 'Audit' }] },
      { validationFailureAction: 'Audit', validationFailureActionOverrides: [{ action: 'Enforce' }] },
      { validationFailureAction: 'Audit' },
    ];
    for (const spec of cases) {
      const p = policy(spec);
      const [answer] = await decideKyverno([{ policy: p, resource: unlabelled }]);
      expect(answer!.error, JSON.stringify(spec)).toBeUndefined();
      const action = answer!.results[0]!.action;
      expect(converted(p), `${JSON.stringify(spec)}: Kyverno ${action}`).toEqual(action === 'Enforce' ? ['Deny'] : ['Audit', 'Warn']);
    }
  });

  it('is refused where an override makes it differ by Namespace or by its labels', () => {
    expect(converted(policy({ validationFailureAction: 'Enforce', validationFailureActionOverrides: [{ action: 'Audit', namespaces: ['dev-*'] }] }))).toMatch(
      /Namespaces in validationFailureActionOverrides is not applicable/,
    );
    expect(
      converted(
        policy({
          validationFailureAction: 'Enforce',
          validationFailureActionOverrides: [{ action: 'Audit', namespaceSelector: { matchLabels: { env: 'dev' } } }],
        }),
      ),
    ).toMatch(/namespaceSelector/);
  });
});
