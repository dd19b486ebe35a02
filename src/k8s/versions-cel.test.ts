/**
 * validate() with the real CEL engine at each target release: an expression using a library
 * is a compile error (Invalid, at the expression's path) one release before the library can
 * be written, and validates from that release on. The first release that accepts each
 * library: k8s.io/apiserver environment/base.go IntroducedVersion + 1 (a release-N apiserver
 * compiles new expressions at compatibility version N-1).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createSyncCompiler, loadCelFor } from '../cel/index';
import { useEngine } from '../cel/test-helpers';
import { validate } from './validate-all';
import { KUBERNETES_VERSIONS, minorOf, type KubernetesVersion } from '../base/releases';

useEngine();
// validate()'s compiles are synchronous: every release's engine generation is loaded first (the 1.38 engine)
beforeAll(async () => {
  for (const release of KUBERNETES_VERSIONS) await loadCelFor(release);
}, 120_000);
const cel = createSyncCompiler();

const FIRST_RELEASE: readonly [library: string, expression: string, first: KubernetesVersion][] = [
  ['IP and CIDR', "isCIDR('10.0.0.0/8')", '1.31'],
  ['format', '!format.dns1123Label().validate(object.metadata.name).hasValue()', '1.32'],
  ['authorizer selectors', "authorizer.group('').resource('pods').labelSelector('a=b').check('list').allowed() || true", '1.32'],
  ['two-variable comprehensions', 'object.metadata.labels.all(k, v, v != "")', '1.33'],
  ['semver', "isSemver('1.2.3')", '1.34'],
  ['lists v3', 'lists.range(2).size() == 2', '1.35'],
  ['Kubernetes lists v1 (includes())', '[1, 2].includes(1)', '1.38'],
];

const G = 'admissionregistration.k8s.io';
const vap = (expression: string) => ({
  apiVersion: `${G}/v1`,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'p' },
  spec: {
    matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
    validations: [{ expression }],
  },
});

const previous = (r: KubernetesVersion): KubernetesVersion => KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.indexOf(r) - 1]!;

describe('CEL libraries per target release, through validate()', () => {
  it.each(FIRST_RELEASE)(
    '%s: %s is a compile error one release before %s and valid from it on',
    (_lib, expression, first) => {
      const before = validate(vap(expression), { cel, kubernetesVersion: previous(first) });
      expect(before.map((e) => `${e.type} ${e.field}`)).toEqual(['Invalid spec.validations[0].expression']);
      expect(before[0]!.message).toMatch(/compilation failed: ERROR: <input>:\d+:\d+: (undeclared reference|found no matching overload)/);
      for (const release of KUBERNETES_VERSIONS.filter((r) => minorOf(r) >= minorOf(first)))
        expect(validate(vap(expression), { cel, kubernetesVersion: release }), release).toEqual([]);
    },
    60_000,
  ); // the first case builds every release's environments

  it('isMask() (CIDR library v1, introduced in 1.38) cannot be written at any target yet: a 1.38 apiserver accepts it from 1.39', () => {
    for (const release of KUBERNETES_VERSIONS) {
      const errs = validate(vap("cidr('10.0.0.0/8').isMask()"), { cel, kubernetesVersion: release });
      expect(
        errs.map((e) => `${e.type} ${e.field}`),
        release,
      ).toEqual(['Invalid spec.validations[0].expression']);
      expect(errs[0]!.message).toMatch(/compilation failed: ERROR: <input>:\d+:\d+: (undeclared reference|found no matching overload)/);
    }
  });

  it('a webhook matchCondition follows the target too', () => {
    const vwc = {
      apiVersion: `${G}/v1`,
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'w' },
      webhooks: [
        {
          name: 'a.example.com',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { url: 'https://a.example.com/' },
          matchConditions: [{ name: 'm', expression: "!format.dns1123Label().validate('x').hasValue()" }],
        },
      ],
    };
    expect(validate(vwc, { cel, kubernetesVersion: '1.31' }).map((e) => e.field)).toEqual(['webhooks[0].matchConditions[0].expression']);
    expect(validate(vwc, { cel })).toEqual([]);
  });
});

describe('which compiler validation.go picks (createCompiler)', () => {
  const variablesX = (expression: string) => validate(vap(expression), { cel }).map((e) => e.message.replace(/\n[\s\S]*/, ''));
  it('a VAP without spec.variables: `variables` is not declared at all (the stateless compiler)', () => {
    expect(variablesX('variables.x == 1')).toEqual([
      `Invalid value: "variables.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')`,
    ]);
  });
  it('a VAP with spec.variables: composed, an unknown variable is an undefined field', () => {
    const withVariable = vap('variables.x == 1');
    withVariable.spec = { ...withVariable.spec, variables: [{ name: 'y', expression: '1' }] } as typeof withVariable.spec;
    expect(validate(withVariable, { cel }).map((e) => e.message.replace(/\n[\s\S]*/, ''))).toEqual([
      `Invalid value: "variables.x == 1": compilation failed: ERROR: <input>:1:10: undefined field 'x'`,
    ]);
  });
});
