/**
 * A mutate rule's kyverno-test result compares the object `kyverno test` holds for its policy
 * (src/migrate/kyverno/patch-chain.ts): the mutate policies of the test's files in order, each one on
 * the object the one before left, and in a policy its own rules before the rules autogen made from
 * them. The test's patched files are held to Kyverno's own engine first (tools/kyverno-oracle, each
 * policy on the object the one before patched, as ApplyPoliciesOnResource does), then its cases run
 * on the converted policies.
 */
import { describe, expect, it } from 'vitest';
import { decideKyverno } from '../../../tools/kyverno-oracle/oracle';
import { ORACLE_TEST_TIMEOUT } from '../../../tools/go-oracle.mjs';
import { isObject, nameOf, type Obj } from '../../base/json';
import { evaluate } from '../../cel';
import { useEngine } from '../../cel/test-helpers';
import { parseDocuments } from '../../yaml';
import { convertPolicies } from '../index';
import { runSourceTestCases, sourceTestCases } from '../source-tests';

useEngine();

const docs = (text: string): Obj[] =>
  parseDocuments(text)
    .documents.map((d) => d.object)
    .filter(isObject);

// team-label labels a Deployment; label-order sets the template's label x twice: its Pod rule (for a
// Deployment, the rule autogen makes from it) and its Deployment rule, written in that order
const policies = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: team-label}
spec:
  rules:
  - name: team
    match: {any: [{resources: {kinds: [Deployment]}}]}
    mutate: {patchStrategicMerge: {metadata: {labels: {team: a}}}}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: label-order}
spec:
  rules:
  - name: pod-label
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate: {patchStrategicMerge: {metadata: {labels: {x: pod}}}}
  - name: deploy-label
    match: {any: [{resources: {kinds: [Deployment]}}]}
    mutate: {patchStrategicMerge: {spec: {template: {metadata: {labels: {x: direct}}}}}}
`;
const deployment = (labels: string, template: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web${labels}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web${template}}}
    spec: {containers: [{name: c, image: nginx}]}
`;
const files: Record<string, string> = {
  'p/policies.yaml': policies,
  'p/.kyverno-test/kyverno-test.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: label-order}
policies: [../policies.yaml]
resources: [resource.yaml]
results:
- {kind: Deployment, patchedResources: team.yaml, policy: team-label, resources: [web], result: pass, rule: team}
- {kind: Deployment, patchedResources: both.yaml, policy: label-order, resources: [web], result: pass, rule: autogen-pod-label}
- {kind: Deployment, patchedResources: both.yaml, policy: label-order, resources: [web], result: pass, rule: deploy-label}
`,
  'p/.kyverno-test/resource.yaml': deployment('', ''),
  // the Deployment rule first, the autogen rule after it: x is the Pod rule's
  'p/.kyverno-test/team.yaml': deployment(', labels: {team: a}', ''),
  'p/.kyverno-test/both.yaml': deployment(', labels: {team: a}', ', x: pod'),
};

describe("a mutate rule's object: the test's policies in order, a policy's own rules before autogen's", () => {
  it("the patched files are Kyverno's", { timeout: ORACLE_TEST_TIMEOUT }, async () => {
    const [team, order] = docs(policies);
    let object: unknown = docs(files['p/.kyverno-test/resource.yaml']!)[0];
    const patched: unknown[] = [];
    for (const policy of [team, order]) {
      const [answer] = await decideKyverno([{ policy, resource: object }]);
      expect(answer!.results.every((r) => r.status === 'pass')).toBe(true);
      object = answer!.patched;
      patched.push(object);
    }
    expect(patched).toEqual([docs(files['p/.kyverno-test/team.yaml']!)[0], docs(files['p/.kyverno-test/both.yaml']!)[0]]);
  });

  it('each case runs the policies Kyverno runs before and after its rule, and passes', async () => {
    const sources = docs(policies);
    const conversion = convertPolicies(sources, { kubernetesVersion: '1.36', gatekeeper: 'standalone' });
    expect(conversion.rules.map((r) => r.status)).toEqual(['exact', 'exact', 'exact']);
    const cases = sourceTestCases({ kyverno: ['p/.kyverno-test/kyverno-test.yaml'], gator: [] }, (path) => files[path], sources, conversion);
    expect(cases.problems).toEqual([]);
    const names = (ts: { policy: unknown }[] | undefined) => ts?.map((t) => nameOf(t.policy));
    expect(cases.byRule.flat().map((c) => [c.case.name, names(c.chain?.before), names(c.chain?.after)])).toEqual([
      // alone in its policy: Kyverno compares its policy's object, the one the team rule made
      ['team-label/team: Deployment web pass', undefined, undefined],
      ['label-order/autogen-pod-label: Deployment web pass', ['cpol-team-label', 'cpol-label-order-deploy-label'], []],
      ['label-order/deploy-label: Deployment web pass', ['cpol-team-label'], ['cpol-label-order-pod-label']],
    ]);
    const { runs } = await runSourceTestCases(cases, { evaluate }, '1.36');
    expect(runs.flat().map((r) => [r.name, r.pass, r.why])).toEqual(cases.byRule.flat().map((c) => [c.case.name, true, '']));
  });
});
