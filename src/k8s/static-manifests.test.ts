/**
 * The static manifest loader's rules (static-manifests.ts) on small sets: every problem at once,
 * at its field, in the loader's words; the layout of the exported directories and the
 * AdmissionConfiguration that points the plugins at them. tools/manifest-oracle runs the real
 * loaders on fixtures and requires the same answers.
 */
import { describe, expect, it } from 'vitest';
import { validate } from './validate-all';
import { admissionConfiguration, asManifestErrors, DEFAULT_MANIFEST_BASE, manifestLayout, manifestProblems, manifestSupport } from './static-manifests';

const AR = 'admissionregistration.k8s.io/v1';
const hook = (name: string, clientConfig: Record<string, unknown>) => ({
  name,
  admissionReviewVersions: ['v1'],
  sideEffects: 'None',
  clientConfig,
  rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
});
const vwc = (name: string, ...webhooks: unknown[]) => ({ apiVersion: AR, kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks });
const vap = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: AR,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec: {
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
    validations: [{ expression: 'true' }],
    ...spec,
  },
});
const vapb = (name: string, policyName: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: AR,
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name },
  spec: { policyName, validationActions: ['Deny'], ...spec },
});
const all = () => true;
const at = (problems: ReturnType<typeof manifestProblems>) => problems.map((p) => `${p.index} ${p.field}: ${p.message}`);

describe('manifestProblems', () => {
  it('a valid set has none', () => {
    const objects = [
      vwc('guard.static.k8s.io', hook('a.example.com', { url: 'https://guard.example.com/a' })),
      vap('p.static.k8s.io'),
      vapb('b.static.k8s.io', 'p.static.k8s.io'),
    ];
    expect(manifestProblems(objects, all)).toEqual([]);
  });

  it("reports every problem at once, at its field, in the loader's words", () => {
    const dir = `${DEFAULT_MANIFEST_BASE}/validating-webhooks`;
    const pdir = `${DEFAULT_MANIFEST_BASE}/validating-admission-policies`;
    const objects = [
      vwc('guard', hook('a.example.com', { service: { name: 's', namespace: 'n' } }), hook('b.example.com', {})),
      { ...vap('p.static.k8s.io', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }) },
      vapb('b.static.k8s.io', 'other.static.k8s.io', { paramRef: { name: 'x', parameterNotFoundAction: 'Deny' } }),
      vapb('c.static.k8s.io', 'api-policy'),
      { ...vap('p.static.k8s.io'), apiVersion: 'admissionregistration.k8s.io/v1beta1' },
    ];
    expect(at(manifestProblems(objects, all))).toEqual([
      `2 spec.paramRef: binding "b.static.k8s.io": spec.paramRef is not supported for static manifests`,
      `2 spec.policyName: binding "b.static.k8s.io" references policy "other.static.k8s.io" which does not exist in the manifest directory`,
      `3 spec.policyName: binding "c.static.k8s.io": spec.policyName "api-policy" must end with ".static.k8s.io"`,
      // the second object of a name is written to name-2.yaml, which sorts (and so loads) first
      `4 apiVersion: unsupported resource type *v1beta1.ValidatingAdmissionPolicy`,
      `1 metadata.name: duplicate name "p.static.k8s.io" found in file "${pdir}/p.static.k8s.io.yaml" (previously seen in "${pdir}/p.static.k8s.io-2.yaml")`,
      `1 spec.paramKind: ValidatingAdmissionPolicy "p.static.k8s.io": spec.paramKind is not supported for static manifests`,
      `0 metadata.name: "guard" in file "${dir}/guard.yaml" must have a name ending with ".static.k8s.io"`,
      `0 webhooks[0].clientConfig.service: webhook "a.example.com" in "guard" (file "${dir}/guard.yaml"): clientConfig.service is not supported for static manifests; use clientConfig.url instead`,
      `0 webhooks[1].clientConfig.url: webhook "b.example.com" in "guard" (file "${dir}/guard.yaml"): clientConfig.url is required for static manifests`,
    ]);
  });

  it('only the documents marked static form the set; a binding may name only a policy of the set', () => {
    const objects = [vap('p.static.k8s.io'), vapb('b.static.k8s.io', 'p.static.k8s.io')];
    expect(at(manifestProblems(objects, (i) => i === 1))).toEqual([
      `1 spec.policyName: binding "b.static.k8s.io" references policy "p.static.k8s.io" which does not exist in the manifest directory`,
    ]);
  });

  it('names are unique per plugin directory, policies and bindings apart', () => {
    const objects = [
      vap('x.static.k8s.io'),
      vapb('x.static.k8s.io', 'x.static.k8s.io'),
      vwc('x.static.k8s.io', hook('a.example.com', { url: 'https://a.example.com' })),
    ];
    expect(manifestProblems(objects, all)).toEqual([]);
  });
});

describe('asManifestErrors', () => {
  it("drops the registry's static-suffix rule and makes unknown fields strict decoding errors", () => {
    const o = { ...vap('p.static.k8s.io'), extra: 1 };
    const fields = validate(o, { kubernetesVersion: '1.37' });
    expect(fields.map((e) => `${e.severity ?? 'error'} ${e.field}`)).toEqual(['warning extra', 'error metadata.name']);
    expect(asManifestErrors(o, fields, '1.37')).toEqual([
      expect.objectContaining({ field: 'extra', severity: 'error', message: 'strict decoding error: unknown field "extra"' }),
    ]);
  });
});

describe('layout and AdmissionConfiguration', () => {
  it('one directory per plugin, files by name, read in alphabetical order', () => {
    const objects = [
      vap('b.static.k8s.io'),
      vwc('a.static.k8s.io', hook('a.example.com', { url: 'https://a' })),
      vapb('a.static.k8s.io', 'b.static.k8s.io'),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
    ];
    expect(manifestLayout(objects, all, '/srv/m/').map((e) => [e.index, e.file])).toEqual([
      [2, '/srv/m/validating-admission-policies/a.static.k8s.io.yaml'],
      [0, '/srv/m/validating-admission-policies/b.static.k8s.io.yaml'],
      [1, '/srv/m/validating-webhooks/a.static.k8s.io.yaml'],
    ]);
    expect(admissionConfiguration(manifestLayout(objects, all, '/srv/m'), '/srv/m')).toEqual({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: [
        {
          name: 'ValidatingAdmissionPolicy',
          configuration: {
            apiVersion: 'apiserver.config.k8s.io/v1',
            kind: 'ValidatingAdmissionPolicyConfiguration',
            staticManifestsDir: '/srv/m/validating-admission-policies',
          },
        },
        {
          name: 'ValidatingAdmissionWebhook',
          configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', staticManifestsDir: '/srv/m/validating-webhooks' },
        },
      ],
    });
  });

  it('releases: on by default from 1.37, behind a gate in 1.36, absent before', () => {
    expect(manifestSupport('1.37')).toBeUndefined();
    expect(manifestSupport('1.36')).toMatch(/alpha gate ManifestBasedAdmissionControlConfig/);
    expect(manifestSupport('1.35')).toMatch(/no static manifests/);
  });
});
