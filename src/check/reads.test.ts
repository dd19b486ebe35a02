/**
 * Every lint rule that reads the workspace declares what it reads (LintRule.reads): the
 * checker's cache key is made of those declarations, so an undeclared read would go stale.
 * Each rule runs on a broad object of each of its kinds with a workspace that records access.
 */
import { describe, expect, it } from 'vitest';
import { LINT_RULES } from '../k8s/lints';
import { withDefaults } from '../k8s/defaults';

const rules = [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }];
const broad = (kind: string) =>
  withDefaults({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name: 'x' },
    spec: {
      policyName: 'x',
      validationActions: ['Deny'],
      paramRef: { name: 'p' },
      matchConstraints: { resourceRules: rules },
      matchResources: {},
      validations: [{ expression: 'true' }],
    },
    webhooks: [
      {
        name: 'x.example.com',
        clientConfig: { service: { name: 's', namespace: 'n' } },
        rules,
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  }) as Record<string, unknown>;

describe('rules that read the workspace declare it', () => {
  it.each(LINT_RULES.map((r) => [r.id, r] as const))('%s', (_id, rule) => {
    for (const kind of rule.kinds) {
      let read = false;
      const ctx = {
        object: broad(kind),
        get workspace() {
          read = true;
          return [
            broad(kind),
            broad(kind.replace(/Binding$/, '')),
            broad(`${kind}Binding`),
            broad('MutatingWebhookConfiguration'),
            broad('MutatingAdmissionPolicy'),
          ];
        },
        kubernetesVersion: '1.36' as const,
      };
      rule.check(ctx);
      if (read) expect(rule.reads, `${rule.id} reads the workspace for ${kind} but declares no reads`).toBeTypeOf('function');
    }
  });
});
