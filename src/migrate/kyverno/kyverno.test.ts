/**
 * The Kyverno converter's output, field by field, as kyverno v1.19's generator writes it (its
 * decisions are held to Kyverno's engine in tools/kyverno-oracle/oracle.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fixturePath } from '../../../fixtures';
import { isObject, nameOf, obj, type Obj } from '../../base/json';
import { evaluate, loadCel } from '../../cel';
import { runCases } from '../../policy';
import { parseDocuments } from '../../yaml';
import { convertPolicies } from '../index';
import { celAutogen, podToTemplateExpression } from './autogen';
import { importKyvernoTest } from './kyverno-test';
import { kyvernoOnlyNames, nonOptionalOrValue } from './libraries';
import { parseKindSelector } from './match';

const OPTIONS = { kubernetesVersion: '1.36', gatekeeper: 'standalone' } as const;
const load = (...p: string[]): Obj[] =>
  parseDocuments(readFileSync(fixturePath('kyverno', ...p), 'utf8'))
    .documents.map((d) => d.object)
    .filter(isObject);
const byName = (objects: Obj[], name: string) => objects.find((o) => nameOf(o) === name);

const clusterPolicy = (rules: Obj[], extra: Obj = {}): Obj => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'p', ...extra },
  spec: { validationFailureAction: 'Enforce', rules },
});
const celRule = (name: string, match: Obj, more: Obj = {}): Obj => ({
  name,
  match,
  validate: { cel: { expressions: [{ expression: 'object.metadata.name != "x"', message: 'no x' }] } },
  ...more,
});

describe('Kyverno ClusterPolicy validate.cel', () => {
  it('becomes cpol-<name> and its binding, with Pod-controller autogen policies beside it', () => {
    const out = convertPolicies(load('best-practices-cel', 'disallow-latest-tag', 'disallow-latest-tag.yaml'), OPTIONS);
    expect(out.rules).toEqual([
      expect.objectContaining({
        source: expect.objectContaining({ kind: 'ClusterPolicy', name: 'disallow-latest-tag', rule: 'require-and-validate-image-tag' }),
      }),
    ]);
    expect(out.objects.map((o) => `${o.kind}/${nameOf(o)}`)).toEqual([
      'ValidatingAdmissionPolicy/cpol-disallow-latest-tag',
      'ValidatingAdmissionPolicyBinding/cpol-disallow-latest-tag-binding',
      'ValidatingAdmissionPolicy/cpol-disallow-latest-tag-autogen',
      'ValidatingAdmissionPolicyBinding/cpol-disallow-latest-tag-autogen-binding',
      'ValidatingAdmissionPolicy/cpol-disallow-latest-tag-autogen-cronjob',
      'ValidatingAdmissionPolicyBinding/cpol-disallow-latest-tag-autogen-cronjob-binding',
    ]);
    const vap = obj(byName(out.objects, 'cpol-disallow-latest-tag')!.spec);
    expect(vap.matchConstraints).toEqual({
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/ephemeralcontainers'], operations: ['CREATE', 'UPDATE'] }],
    });
    // Audit → Audit + Warn, as BuildValidatingAdmissionPolicyBinding
    expect(obj(byName(out.objects, 'cpol-disallow-latest-tag-binding')!.spec).validationActions).toEqual(['Audit', 'Warn']);
    const cron = obj(byName(out.objects, 'cpol-disallow-latest-tag-autogen-cronjob')!.spec);
    expect(JSON.stringify(cron.validations)).toContain('object.spec.jobTemplate.spec.template.spec.containers');
  });

  it('namespaces become a namespaceSelector; names resourceNames; several rules each their own policy', () => {
    const out = convertPolicies(
      [
        clusterPolicy([
          celRule('a', { any: [{ resources: { kinds: ['ConfigMap'], namespaces: ['prod'], names: ['cm'] } }] }),
          celRule('b', { any: [{ resources: { kinds: ['apps/v1/Deployment'] } }] }),
        ]),
      ],
      OPTIONS,
    );
    expect(out.rules.map((r) => [r.source.rule, r.status])).toEqual([
      ['a', 'exact'],
      ['b', 'exact'],
    ]);
    expect(obj(byName(out.objects, 'cpol-p-a')!.spec).matchConstraints).toEqual({
      resourceRules: [
        { apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE', 'CONNECT', 'DELETE'], resourceNames: ['cm'] },
      ],
      namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['prod'] }] },
    });
    expect(obj(byName(out.objects, 'cpol-p-b-binding')!.spec).validationActions).toEqual(['Deny']);
  });

  it('refuses what Kyverno refuses, in its words, and never drops a rule', () => {
    const out = convertPolicies(
      [
        clusterPolicy([
          celRule('subjects', { any: [{ resources: { kinds: ['Pod'] }, subjects: [{ kind: 'User', name: 'x' }] }] }),
          celRule('wild', { any: [{ resources: { kinds: ['Pod'], names: ['a*'] } }] }),
          { name: 'pattern', match: { any: [{ resources: { kinds: ['Pod'] } }] }, validate: { pattern: { spec: {} } } },
          { name: 'gen', match: { any: [{ resources: { kinds: ['Namespace'] } }] }, generate: { kind: 'ConfigMap' } },
          celRule(
            'lookup',
            { any: [{ resources: { kinds: ['Pod'] } }] },
            { validate: { cel: { expressions: [{ expression: "resource.Get('v1', 'configmaps', 'ns', 'x').data.a == 'b'" }] } } },
          ),
        ]),
      ],
      OPTIONS,
    );
    expect(out.rules.map((r) => [r.source.rule, r.status, r.reason])).toEqual([
      ['subjects', 'unsupported', 'skip generating ValidatingAdmissionPolicy: Roles / ClusterRoles / Subjects in `any/all` is not applicable.'],
      ['wild', 'unsupported', 'skip generating ValidatingAdmissionPolicy: wildcards in resource name is not applicable.'],
      ['pattern', 'exact', undefined],
      ['gen', 'unsupported', 'generate rules create other resources: admission policies cannot'],
      [
        'lookup',
        'unsupported',
        "uses Kyverno-only CEL: spec.rules[4].validate.cel.expressions[0].expression calls resource.Get (Kyverno's resource (Kubernetes API lookups) library)",
      ],
    ]);
    expect(out.rules.every((r) => r.status !== 'unsupported' || r.produced.length === 0)).toBe(true);
  });

  it("states Kyverno's exclude-namespaces translation as a difference", () => {
    const out = convertPolicies(
      [clusterPolicy([celRule('r', { any: [{ resources: { kinds: ['Service'] } }] }, { exclude: { any: [{ resources: { namespaces: ['kube-system'] } }] } })])],
      OPTIONS,
    );
    expect(out.rules[0]!.status).toBe('different');
    expect(obj(obj(out.objects[0]!.spec).matchConstraints).excludeResourceRules).toEqual([
      {
        resourceNames: ['kube-system'],
        apiGroups: [''],
        apiVersions: ['v1'],
        resources: ['namespaces'],
        operations: ['CREATE', 'UPDATE', 'CONNECT', 'DELETE'],
      },
    ]);
  });
});

describe('Kyverno ValidatingPolicy and MutatingPolicy', () => {
  it('ValidatingPolicy → vpol-<name> + binding with its validationActions, and autogen policies', () => {
    const out = convertPolicies(load('best-practices-vpol', 'disallow-latest-tag', 'disallow-latest-tag.yaml'), OPTIONS);
    expect(out.rules).toEqual([
      expect.objectContaining({ status: 'exact', produced: expect.arrayContaining(['ValidatingAdmissionPolicy/vpol-disallow-latest-tag']) }),
    ]);
    expect(obj(byName(out.objects, 'vpol-disallow-latest-tag-binding')!.spec)).toEqual({
      policyName: 'vpol-disallow-latest-tag',
      validationActions: ['Audit'],
    });
    expect(byName(out.objects, 'vpol-disallow-latest-tag-autogen-defaults')).toBeDefined();
  });

  it('a ValidatingPolicy with orValue on a non-optional value is different from 1.37 (cel-go v0.29), not before', () => {
    const vp = load('best-practices-vpol', 'disallow-latest-tag', 'disallow-latest-tag.yaml')[0]!;
    const spec = obj(vp.spec);
    const policy = { ...vp, spec: { ...spec, validations: [{ expression: 'object.spec.containers.all(c, c.ports.orValue([]).size() < 2)' }] } };
    const at137 = convertPolicies([policy], { ...OPTIONS, kubernetesVersion: '1.37' });
    expect(at137.rules[0]!.status).toBe('different');
    expect(at137.rules[0]!.reason).toMatch(/c\.ports\.orValue.*1\.37 apiserver/);
    // a 1.36 apiserver (cel-go v0.26) returns the value, as Kyverno's CEL does
    expect(convertPolicies([policy], OPTIONS).rules[0]!.reason ?? '').not.toMatch(/orValue/);
  });

  it('a ValidatingPolicy calling Kyverno-only libraries is not convertible, naming the call', () => {
    const out = convertPolicies(load('other-vpol', 'advanced-restrict-image-registries', 'advanced-restrict-image-registries.yaml'), OPTIONS);
    expect(out.rules[0]!.status).toBe('unsupported');
    expect(out.rules[0]!.reason).toMatch(/resource\.Get/);
  });

  it("MutatingPolicy → mpol-<name> at the release's MutatingAdmissionPolicy version, with its namespaceSelector", () => {
    const out = convertPolicies(load('other-mpol', 'add-pod-priorityclassname', 'add-pod-priorityclassname.yaml'), OPTIONS);
    expect(out.objects.map((o) => `${o.apiVersion} ${o.kind}/${nameOf(o)}`)).toEqual([
      'admissionregistration.k8s.io/v1 MutatingAdmissionPolicy/mpol-add-pod-priorityclassname',
      'admissionregistration.k8s.io/v1 MutatingAdmissionPolicyBinding/mpol-add-pod-priorityclassname-binding',
    ]);
    // Kyverno's builder drops it; its engine matches it, and so does the apiserver (tools/kyverno-oracle/mutating.test.ts)
    expect(obj(obj(out.objects[0]!.spec).matchConstraints).namespaceSelector).toEqual({
      matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['production'] }],
    });
    expect(out.rules[0]!.status).toBe('exact');
  });

  it('a Pod MutatingPolicy gets autogen policies for the controllers its autogen names (pkg/cel/policies/mpol/autogen)', () => {
    const out = convertPolicies(load('other-mpol', 'always-pull-images', 'always-pull-images.yaml'), OPTIONS);
    expect(out.objects.map((o) => `${o.kind}/${nameOf(o)}`)).toEqual([
      'MutatingAdmissionPolicy/mpol-always-pull-images',
      'MutatingAdmissionPolicyBinding/mpol-always-pull-images-binding',
      'MutatingAdmissionPolicy/mpol-always-pull-images-autogen-cronjobs',
      'MutatingAdmissionPolicyBinding/mpol-always-pull-images-autogen-cronjobs-binding',
      'MutatingAdmissionPolicy/mpol-always-pull-images-autogen-defaults',
      'MutatingAdmissionPolicyBinding/mpol-always-pull-images-autogen-defaults-binding',
    ]);
    const defaults = obj(byName(out.objects, 'mpol-always-pull-images-autogen-defaults')!.spec);
    expect(obj(defaults.matchConstraints).resourceRules).toEqual([
      { apiGroups: ['apps'], apiVersions: ['v1'], resources: ['daemonsets', 'deployments', 'statefulsets'], operations: ['CREATE', 'UPDATE'] },
      { apiGroups: ['batch'], apiVersions: ['v1'], resources: ['jobs'], operations: ['CREATE', 'UPDATE'] },
    ]);
    expect(out.rules[0]!.status).toBe('exact');
    // `controllers: []` turns autogen off
    expect(convertPolicies(load('other-mpol', 'add-image-as-env-var', 'add-image-as-env-var.yaml'), OPTIONS).objects).toHaveLength(2);
  });

  it('a MutatingPolicy ApplyConfiguration is moved under the template as Kyverno rewrites it (its own test case)', () => {
    const input = `Object{
  spec: Object.spec{
    containers: object.spec.containers.map(container, Object.spec.containers{
      name: container.name,
      securityContext: Object.spec.containers.securityContext{
        allowPrivilegeEscalation: false
      }
    })
  }
}`;
    const squash = (s: string) => s.replace(/\s+/g, '');
    expect(squash(podToTemplateExpression(input, 'cronjobs'))).toBe(
      squash(`Object{spec: Object.spec{jobTemplate: Object.spec.jobTemplate{spec: Object.spec.jobTemplate.spec{template: Object.spec.jobTemplate.spec.template{
  spec: Object.spec.jobTemplate.spec.template.spec{
    containers: object.spec.jobTemplate.spec.template.spec.containers.map(container, Object.spec.jobTemplate.spec.template.spec.containers{
      name: container.name,
      securityContext: Object.spec.jobTemplate.spec.template.spec.containers.securityContext{
        allowPrivilegeEscalation: false
      }
    })
  }
}}}}}`),
    );
    // namespaceObject is not the object; metadata other than labels and annotations stays
    expect(podToTemplateExpression("'a' in namespaceObject.metadata.labels && object.metadata.name != ''", 'defaults')).toBe(
      "'a' in namespaceObject.metadata.labels && object.metadata.name != ''",
    );
    expect(podToTemplateExpression('object.metadata.annotations', 'defaults')).toBe('object.spec.template.metadata.annotations');
  });

  it('autogen leaves object.metadata.namespace alone (pkg/cel/autogen replacement)', () => {
    const [g] = celAutogen({
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE'] }] },
      validations: [{ expression: 'object.metadata.namespace != "" && object.metadata.labels.a == "b" && object.spec.x' }],
      autogen: { podControllers: { controllers: ['deployments'] } },
    });
    expect(g!.spec.validations).toEqual([
      { expression: 'object.metadata.namespace != "" && object.spec.template.metadata.labels.a == "b" && object.spec.template.spec.x' },
    ]);
  });
});

describe('policies of one kind and name in the input (two folders of a library)', () => {
  const kinds = (name: string) => ({ any: [{ resources: { kinds: [name] } }] });
  const objects = [
    clusterPolicy([celRule('check-ingress', kinds('Ingress'))]),
    clusterPolicy([celRule('block-flux-v1', kinds('Pod'))]),
    {
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'ValidatingPolicy',
      metadata: { name: 'p' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
        validations: [{ expression: 'true' }],
      },
    },
  ];
  it('are converted apart, the later ones renamed, every rule of them saying so; another kind of that name is no duplicate', () => {
    const out = convertPolicies(objects, OPTIONS);
    expect(out.rules.map((r) => [r.source.kind, r.source.rule, r.source.occurrence, r.status, r.produced[0]])).toEqual([
      ['ClusterPolicy', 'check-ingress', 1, 'exact', 'ValidatingAdmissionPolicy/cpol-p'],
      ['ClusterPolicy', 'block-flux-v1', 2, 'exact', 'ValidatingAdmissionPolicy/cpol-p-2'],
      ['ValidatingPolicy', 'p', undefined, 'exact', 'ValidatingAdmissionPolicy/vpol-p'],
    ]);
    expect(out.rules.map((r) => r.duplicate)).toEqual([
      expect.stringMatching(/^ClusterPolicy p is in the input 2 times \(a cluster holds one.*this is the 1st, its objects named as Kyverno names them$/),
      expect.stringMatching(/this is the 2nd, its objects' names with -2 after the policy's name$/),
      undefined,
    ]);
    const names = out.objects.map(nameOf);
    expect(new Set(names).size).toBe(names.length);
    expect(obj(byName(out.objects, 'cpol-p-2-binding')?.spec).policyName).toBe('cpol-p-2');
  });
  it("a kyverno-test's result on that name is not run on a guess when its policy files do not tell which", () => {
    const test =
      'apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: t}\nresources: [r.yaml]\nresults:\n- {policy: p, kind: Pod, resources: [x], result: pass}\n';
    const imported = importKyvernoTest(
      't/kyverno-test.yaml',
      { 't/kyverno-test.yaml': test, 't/r.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n' },
      convertPolicies(objects, OPTIONS),
    );
    expect(imported.problems.map((p) => p.message)).toEqual([
      "policy 'p' is any of ClusterPolicy p (1), ClusterPolicy p (2), ValidatingPolicy p: the test's policy files do not tell which; not run",
    ]);
    expect(imported.policyCases).toEqual([]);
  });
});

describe('helpers', () => {
  it('Kyverno-only names, not a comprehension variable of the same name', () => {
    expect(kyvernoOnlyNames("object.spec.containers.all(image, image.startsWith('x'))")).toEqual([]);
    expect(kyvernoOnlyNames('image.GetMetadata(c.image).config')).toEqual([{ name: 'image.GetMetadata', library: 'image data (registry lookups)' }]);
    expect(kyvernoOnlyNames("'resource.Get(' + x")).toEqual([]);
    expect(kyvernoOnlyNames('json.unmarshal(object.data.x)').map((n) => n.name)).toEqual(['json.unmarshal']);
  });
  it('orValue on a value that is not optional (Kyverno gives the value, the apiserver fails)', () => {
    expect(nonOptionalOrValue('c.volumeMounts.orValue([]).all(v, v.readOnly)')).toEqual(['c.volumeMounts']);
    expect(nonOptionalOrValue('object.spec.?initContainers.orValue([]) + x[?"a"].orValue(1) + optional.of(1).orValue(2) + l.first().orValue(0)')).toEqual([]);
    expect(nonOptionalOrValue("'a.orValue(b)'")).toEqual([]);
  });
  it('kind selectors as kubeutils.ParseKindSelector', () => {
    expect(parseKindSelector('Pod')).toEqual({ group: '*', version: '*', kind: 'Pod', subresource: '' });
    expect(parseKindSelector('apps/v1/Deployment')).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment', subresource: '' });
    expect(parseKindSelector('v1/Pod')).toEqual({ group: '*', version: 'v1', kind: 'Pod', subresource: '' });
    expect(parseKindSelector('Pod/exec')).toEqual({ group: '*', version: '*', kind: 'Pod', subresource: 'exec' });
  });
  it('imports a kyverno-test: one case per result and resource, on the policy that matches its kind', () => {
    const read = (p: string) => readFileSync(fixturePath('kyverno', ...p.split('/')), 'utf8');
    const base = 'best-practices-vpol/disallow-default-namespace';
    const files = Object.fromEntries(
      [
        `${base}/disallow-default-namespace.yaml`,
        `${base}/.kyverno-test/kyverno-test.yaml`,
        `${base}/.kyverno-test/resource.yaml`,
        `${base}/.kyverno-test/values.yaml`,
      ].map((p) => [p, read(p)]),
    );
    const conversion = convertPolicies(load(...`${base}/disallow-default-namespace.yaml`.split('/')), OPTIONS);
    const imported = importKyvernoTest(`${base}/.kyverno-test/kyverno-test.yaml`, files, conversion);
    expect(imported.problems).toEqual([]);
    expect(imported.policyCases.reduce((n, g) => n + g.cases.length, 0)).toBeGreaterThan(0);
    for (const g of imported.policyCases) expect(conversion.objects.some((o) => nameOf(o) === g.policy)).toBe(true);
  });
  it("a MutatingPolicy's `fail` (the patched object is not the expected file's) is a problem, not a denial", () => {
    const read = (p: string) => readFileSync(fixturePath('kyverno', ...p.split('/')), 'utf8');
    const base = 'psa-mpol/add-psa-labels';
    const test = `${base}/.kyverno-test`;
    const names = [
      `${base}/add-psa-labels.yaml`,
      ...['kyverno-test', 'resource', 'resourcefail', 'patchedResource', 'patchedResourcefail'].map((f) => `${test}/${f}.yaml`),
    ];
    const conversion = convertPolicies(load(...`${base}/add-psa-labels.yaml`.split('/')), OPTIONS);
    const imported = importKyvernoTest(`${test}/kyverno-test.yaml`, Object.fromEntries(names.map((p) => [p, read(p)])), conversion);
    expect(imported.problems.map((p) => p.message)).toEqual([expect.stringMatching(/'fail' for MutatingPolicy 'add-psa-labels' on Namespace 'test-fail'/)]);
    expect(imported.policyCases.flatMap((g) => g.cases.map((c) => c.expect.outcome))).toEqual(['admit']);
  });
  it("a ClusterPolicy mutate rule's `fail` (the patched object is not the expected file's) is a problem too, not a denial", () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-psa-labels}
spec:
  rules:
  - name: add-labels
    match: {any: [{resources: {kinds: [Namespace]}}]}
    mutate: {patchStrategicMerge: {metadata: {labels: {+(pod-security.kubernetes.io/enforce): baseline}}}}
`;
    const files = {
      'p/add-psa-labels.yaml': policy,
      'p/.kyverno-test/kyverno-test.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: add-psa-labels}
policies: [../add-psa-labels.yaml]
resources: [resource.yaml]
results:
- {kind: Namespace, patchedResources: patchedFail.yaml, policy: add-psa-labels, resources: [test-fail], result: fail, rule: add-labels}
- {kind: Namespace, patchedResources: patched.yaml, policy: add-psa-labels, resources: [test], result: pass, rule: add-labels}
`,
      'p/.kyverno-test/resource.yaml':
        'apiVersion: v1\nkind: Namespace\nmetadata: {name: test-fail}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: test}\n',
      'p/.kyverno-test/patchedFail.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: test, labels: {a: b}}\n',
      'p/.kyverno-test/patched.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: test, labels: {pod-security.kubernetes.io/enforce: baseline}}\n',
    };
    const sources = parseDocuments(policy).documents.map((d) => d.object as Obj);
    const imported = importKyvernoTest('p/.kyverno-test/kyverno-test.yaml', files, convertPolicies(sources, OPTIONS));
    expect(imported.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/'fail' for mutate rule 'add-labels' of ClusterPolicy 'add-psa-labels' on Namespace 'test-fail' says the patched object differs/),
    ]);
    expect(imported.policyCases.flatMap((g) => g.cases.map((c) => c.expect.outcome))).toEqual(['admit']);
  });
  it("a resource's own `request.operation` in the values file is the operation of its cases", () => {
    const base = 'openshift/disallow-self-provisioner-binding';
    const names = [`${base}/disallow-self-provisioner-binding.yaml`, ...['kyverno-test', 'resources', 'values'].map((f) => `${base}/.kyverno-test/${f}.yaml`)];
    const files = Object.fromEntries(names.map((p) => [p, readFileSync(fixturePath('kyverno-pattern', ...p.split('/')), 'utf8')]));
    const sources = parseDocuments(files[names[0]!]!).documents.map((d) => d.object as Obj);
    const imported = importKyvernoTest(`${base}/.kyverno-test/kyverno-test.yaml`, files, convertPolicies(sources, OPTIONS));
    expect(imported.problems).toEqual([]);
    const operations = Object.fromEntries(imported.policyCases.flatMap((g) => g.cases.map((c) => [c.name, c.input.request?.operation])));
    expect(operations).toMatchObject({
      'disallow-self-provisioner-binding/check-self-provisioner-binding-no-subject: ClusterRoleBinding self-provisioners fail': 'UPDATE',
      'disallow-self-provisioner-binding/check-self-provisioner-binding-with-subject: ClusterRoleBinding self-provisioners-custom fail': 'CREATE',
    });
  });
  it("a ConfigMap-param rule's cases take their ConfigMap from the test's values (the CLI reads no cluster)", async () => {
    const base = 'other/exclude-namespaces-dynamically';
    const test = `${base}/.kyverno-test`;
    const names = [`${base}/exclude-namespaces-dynamically.yaml`, ...['kyverno-test', 'resource', 'values'].map((f) => `${test}/${f}.yaml`)];
    const read = (p: string) => readFileSync(fixturePath('kyverno-pattern', ...p.split('/')), 'utf8');
    const sources = parseDocuments(read(names[0]!))
      .documents.map((d) => d.object)
      .filter(isObject);
    const conversion = convertPolicies(sources, OPTIONS);
    const imported = importKyvernoTest(`${test}/kyverno-test.yaml`, Object.fromEntries(names.map((p) => [p, read(p)])), conversion);
    const cases = imported.policyCases.flatMap((g) => g.cases);
    expect(cases.length).toBe(4);
    for (const c of cases)
      expect(c.input.params).toEqual({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'namespace-filters', namespace: 'default' },
        data: { exclude: '["default", "test"]' },
      });
    // request.namespace is not imported (the case's own namespace is the request's): said, not dropped
    expect(imported.problems.map((p) => p.message)).toEqual([expect.stringMatching(/values not imported: request\.namespace/)]);
    // with that ConfigMap the produced policy decides the cases as Kyverno did (without it, it denies
    // them all: parameterNotFoundAction Deny); Kyverno's precondition is a validation here, so its
    // skips are admissions, the same admission decision, which their cases expect (admit or skip)
    await loadCel();
    for (const g of imported.policyCases) {
      const policy = byName(conversion.objects, g.policy)!;
      const bindings = conversion.objects.filter((o) => o.kind === 'ValidatingAdmissionPolicyBinding' && obj(o.spec).policyName === g.policy);
      const report = await runCases({ policy, bindings }, g.cases, { evaluate });
      const failures = report.results.filter((r) => !r.pass).flatMap((r) => r.failures);
      expect(failures).toEqual([]);
      const without = await runCases(
        { policy, bindings },
        g.cases.map((c) => ({ ...c, input: { ...c.input, params: undefined } })),
        { evaluate },
      );
      expect(without.results.filter((r) => r.pass).map((r) => r.name)).toEqual(g.cases.filter((c) => c.expect.outcome === 'deny').map((c) => c.name));
    }
  });
});
