/**
 * The Gatekeeper converter's per-rule report: statuses, reasons and nothing dropped. That the
 * as-gatekeeper objects are Gatekeeper's own is tools/gatekeeper-oracle's test.
 */
import { describe, expect, it } from 'vitest';
import { kindOf, nameOf, obj, type Obj } from '../../base/json';
import { parseDocuments } from '../../yaml/index';
import { readFixture } from '../../../fixtures';
import { convertPolicies } from '../index';
import type { GatekeeperRuleResult } from './index';
import { celLiteral } from './standalone';

const yaml = (path: string): Obj => parseDocuments(readFixture('gatekeeper', path)).documents[0]!.object as Obj;
const template = yaml('library/general/requiredlabels/template.yaml');
const constraint = yaml('library/general/requiredlabels/samples/all-must-have-owner/constraint.yaml');
const asGatekeeper = { kubernetesVersion: '1.36', gatekeeper: 'as-gatekeeper' } as const;
const standalone = { kubernetesVersion: '1.36', gatekeeper: 'standalone' } as const;

const regoOnly: Obj = {
  apiVersion: 'templates.gatekeeper.sh/v1',
  kind: 'ConstraintTemplate',
  metadata: { name: 'k8sregoonly' },
  spec: {
    crd: { spec: { names: { kind: 'K8sRegoOnly' } } },
    targets: [{ target: 'admission.k8s.gatekeeper.sh', rego: 'package x\nviolation[{"msg": "m"}] { true }' }],
  },
};

describe('Gatekeeper conversion, rule by rule', () => {
  it('as Gatekeeper: the template and its constraint are exact, each naming what it produced', () => {
    const c = convertPolicies([template, constraint], asGatekeeper);
    expect(c.rules.map((r) => [r.source.kind, r.source.name, r.status, r.produced])).toEqual([
      ['ConstraintTemplate', 'k8srequiredlabels', 'exact', ['ValidatingAdmissionPolicy/gatekeeper-k8srequiredlabels']],
      ['K8sRequiredLabels', 'all-must-have-owner', 'exact', ['ValidatingAdmissionPolicyBinding/gatekeeper-k8srequiredlabels-all-must-have-owner']],
    ]);
    expect(c.objects.map((o) => `${kindOf(o)}/${nameOf(o)}`)).toEqual([...c.rules[0]!.produced, ...c.rules[1]!.produced]);
  });

  it('documents of one name (two folders) are converted apart: later copies renamed, every rule says so, every binding names its own policy', () => {
    const other = { ...constraint, spec: { ...obj(constraint.spec), enforcementAction: 'warn' } };
    for (const options of [asGatekeeper, standalone]) {
      const c = convertPolicies([template, constraint, template, other], options);
      const names = c.objects.map((o) => `${kindOf(o)}/${nameOf(o)}`);
      expect(new Set(names).size, names.join(' ')).toBe(names.length);
      const policies = new Set(c.objects.filter((o) => kindOf(o) === 'ValidatingAdmissionPolicy').map(nameOf));
      for (const b of c.objects.filter((o) => kindOf(o) === 'ValidatingAdmissionPolicyBinding')) expect(policies).toContain(obj(b.spec).policyName);
      // each constraint converted under each copy of its template; the 2nd copy's objects end in -2
      expect(c.rules.map((r) => [r.source.kind, r.source.occurrence, !!r.duplicate])).toEqual([
        ['ConstraintTemplate', 1, true],
        ['K8sRequiredLabels', 1, true],
        ['K8sRequiredLabels', 2, true],
        ['ConstraintTemplate', 2, true],
        ['K8sRequiredLabels', 1, true],
        ['K8sRequiredLabels', 2, true],
      ]);
      expect(c.rules[2]!.duplicate).toContain('this is the 2nd');
      expect(c.rules[4]!.duplicate).toContain('its ConstraintTemplate k8srequiredlabels is in the input 2 times: converted for each, this for the 2nd');
    }
    const c = convertPolicies([template, constraint, template, other], asGatekeeper);
    expect(c.objects.map(nameOf)).toEqual([
      'gatekeeper-k8srequiredlabels',
      'gatekeeper-k8srequiredlabels-all-must-have-owner',
      'gatekeeper-k8srequiredlabels-all-must-have-owner-2',
      'gatekeeper-k8srequiredlabels-2',
      'gatekeeper-k8srequiredlabels-2-all-must-have-owner',
      'gatekeeper-k8srequiredlabels-2-all-must-have-owner-2',
    ]);
  });

  it('a Rego-only template is unsupported, says why and keeps the Rego; its constraints are listed', () => {
    const c = convertPolicies(
      [regoOnly, { apiVersion: 'constraints.gatekeeper.sh/v1beta1', kind: 'K8sRegoOnly', metadata: { name: 'r' }, spec: {} }],
      asGatekeeper,
    );
    const [t, k] = c.rules as GatekeeperRuleResult[];
    expect(t!.status).toBe('unsupported');
    expect(t!.reason).toContain('Rego cannot be converted');
    expect(t!.rego).toContain('violation[{"msg": "m"}]');
    expect([k!.source.name, k!.status, k!.reason]).toEqual(['r', 'unsupported', 'its template k8sregoonly is not converted']);
    expect(c.objects).toEqual([]);
  });

  it('a constraint without its template is unsupported, naming the kind', () => {
    const c = convertPolicies([constraint], asGatekeeper);
    expect(c.rules).toEqual([
      {
        source: { kind: 'K8sRequiredLabels', name: 'all-must-have-owner', rule: 'k8srequiredlabels' },
        status: 'unsupported',
        reason: 'no ConstraintTemplate defines the kind K8sRequiredLabels: add the template "k8srequiredlabels" to convert this constraint',
        produced: [],
      },
    ]);
  });

  it('fields Gatekeeper does not read make the rule different, by path', () => {
    const t = structuredClone(template);
    (obj(t.spec).targets as Obj[])[0]!.extra = 1;
    const k = structuredClone(constraint);
    obj(obj(k.spec).match).typo = true;
    const c = convertPolicies([t, k], asGatekeeper);
    expect(c.rules.map((r) => [r.status, r.reason])).toEqual([
      ['different', 'Gatekeeper ignores spec.targets[0].extra: not converted'],
      ['different', 'Gatekeeper ignores spec.match.typo: not converted'],
    ]);
  });

  it('a template Gatekeeper rejects converts nothing, with its reason', () => {
    const t = structuredClone(template);
    const code = obj((obj(t.spec).targets as Obj[])[0]).code as Obj[];
    code[0]!.source = { validations: [{ expression: 'true' }], variables: [{ name: 'anyObject', expression: '1' }] };
    const [r] = convertPolicies([t], asGatekeeper).rules;
    expect(r!.status).toBe('unsupported');
    expect(r!.reason).toContain('"anyObject" is reserved by Gatekeeper');
  });

  it('standalone: one policy and binding per constraint, parameters inlined, match written in; different, saying how', () => {
    const k = structuredClone(constraint);
    obj(k.spec).match = {
      kinds: [{ apiGroups: [''], kinds: ['Namespace'] }],
      excludedNamespaces: ['kube-*'],
      scope: 'Cluster',
      labelSelector: { matchLabels: { a: 'b' } },
    };
    obj(k.spec).enforcementAction = 'warn';
    const c = convertPolicies([template, k], standalone);
    expect(c.rules.map((r) => [r.source.name, r.status, r.produced])).toEqual([
      [
        'k8srequiredlabels',
        'different',
        ['ValidatingAdmissionPolicy/k8srequiredlabels-all-must-have-owner', 'ValidatingAdmissionPolicyBinding/k8srequiredlabels-all-must-have-owner'],
      ],
      [
        'all-must-have-owner',
        'different',
        ['ValidatingAdmissionPolicy/k8srequiredlabels-all-must-have-owner', 'ValidatingAdmissionPolicyBinding/k8srequiredlabels-all-must-have-owner'],
      ],
    ]);
    expect(c.rules[1]!.reason).toContain('the apiserver alone decides');
    const [policy, binding] = c.objects;
    const spec = obj(policy!.spec);
    expect(spec.paramKind).toBeUndefined();
    expect(obj(spec.matchConstraints)).toEqual({
      resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['*'], scope: 'Cluster' }],
    });
    expect((spec.matchConditions as Obj[]).map((m) => m.name)).toEqual(['gatekeeper_match_excluded_namespaces', 'gatekeeper_match_kinds']);
    expect(String((spec.matchConditions as Obj[])[1]!.expression)).toContain('[{"apiGroups": dyn([""]), "kinds": dyn(["Namespace"])}].exists(groupskinds,');
    expect((spec.variables as Obj[])[1]).toEqual({ name: 'params', expression: celLiteral(obj(constraint.spec).parameters) });
    expect(obj(binding!.spec)).toEqual({
      policyName: 'k8srequiredlabels-all-must-have-owner',
      matchResources: { objectSelector: { matchLabels: { a: 'b' } } },
      validationActions: ['Warn'],
    });
  });

  it('celLiteral: ints stay ints, doubles keep a point, members of several types are dyn', () => {
    expect(celLiteral({ a: 1, b: [1.5, 'x'], c: null, d: true, e: 2 ** 40, f: [] })).toBe(
      '{"a": dyn(1), "b": dyn([dyn(1.5), dyn("x")]), "c": dyn(null), "d": dyn(true), "e": dyn(1099511627776), "f": dyn([])}',
    );
    expect(celLiteral('a"\n')).toBe('"a\\"\\n"');
  });

  it('as Gatekeeper: a constraint whose match.scope or match.source its generated binding does not carry is different, saying so', () => {
    const scoped = { ...constraint, spec: { ...obj(constraint.spec), match: { ...obj(obj(constraint.spec).match), scope: 'Cluster', source: 'Generated' } } };
    const c = convertPolicies([template, scoped], asGatekeeper);
    expect(c.rules[1]).toMatchObject({ status: 'different' });
    expect(c.rules[1]!.reason).toMatch(
      /^spec\.match\.scope Cluster: Gatekeeper's webhook matches only cluster-scoped objects .*; spec\.match\.source "Generated"/,
    );
    // scope "*" is every scope: nothing left out
    const any = { ...constraint, spec: { ...obj(constraint.spec), match: { ...obj(obj(constraint.spec).match), scope: '*' } } };
    expect(convertPolicies([template, any], asGatekeeper).rules[1]).toMatchObject({ status: 'exact' });
  });

  it('standalone: an integer past 2^53 is written as it is, a namespaceSelector says how it reads a Namespace update', () => {
    expect(celLiteral(9007199254740993n)).toBe('9007199254740993');
    expect(celLiteral({ n: 9007199254740993n })).toBe('{"n": dyn(9007199254740993)}');
    const selected = { ...constraint, spec: { ...obj(constraint.spec), match: { namespaceSelector: { matchLabels: { team: 'a' } } } } };
    const c = convertPolicies([template, selected], standalone);
    expect(c.rules[1]!.reason).toContain('an update of a Namespace that spec.match.namespaceSelector selected by its old labels only');
  });

  it("standalone: parameters are inlined as the cluster stores the constraint, pruned to the template's schema (none without one)", () => {
    const typo = { ...constraint, spec: { ...obj(constraint.spec), parameters: { ...obj(obj(constraint.spec).parameters), tem: 'red' } } };
    const variablesOf = (c: ReturnType<typeof convertPolicies>) =>
      ((c.objects.find((o) => o.kind === 'ValidatingAdmissionPolicy')!.spec as Obj).variables as Obj[]).find((v) => v.name === 'params')!.expression;
    const pruned = convertPolicies([template, typo], standalone);
    expect(variablesOf(pruned)).toBe(celLiteral(obj(constraint.spec).parameters));
    expect(pruned.rules[1]!.reason).toContain("parameters the template's schema does not declare are left out");
    const bare = structuredClone(template);
    delete obj(obj(obj(bare.spec).crd).spec).validation;
    const none = convertPolicies([bare, typo], standalone);
    expect(variablesOf(none)).toBe('null');
    expect(none.rules[1]!.reason).toContain('spec.parameters not inlined: the template declares no parameter schema');
  });

  it('as Gatekeeper: enforcement actions that give the binding validationActions the apiserver refuses convert nothing, saying why', () => {
    const scoped = (actions: string[]) => ({
      ...constraint,
      spec: {
        ...obj(constraint.spec),
        enforcementAction: 'scoped',
        scopedEnforcementActions: actions.map((action) => ({ action, enforcementPoints: [{ name: 'vap.k8s.io' }] })),
      },
    });
    expect(convertPolicies([template, scoped(['warn', 'deny'])], asGatekeeper).rules[1]).toMatchObject({
      status: 'unsupported',
      reason:
        'Gatekeeper rejects this constraint: its enforcement actions give the binding validationActions ["Warn","Deny"], which the apiserver refuses: Deny and Warn together',
    });
    expect(convertPolicies([template, scoped(['warn', 'warn'])], asGatekeeper).rules[1]).toMatchObject({ status: 'unsupported' });
    expect(convertPolicies([template, scoped(['warn', 'dryrun'])], asGatekeeper).rules[1]).toMatchObject({ status: 'exact' });
  });

  it('standalone: enforcement actions that deny and warn give a binding that denies, saying the warning is not given', () => {
    const both = {
      ...constraint,
      spec: {
        ...obj(constraint.spec),
        enforcementAction: 'scoped',
        scopedEnforcementActions: ['warn', 'deny', 'deny'].map((action) => ({ action, enforcementPoints: [{ name: 'vap.k8s.io' }] })),
      },
    };
    const c = convertPolicies([template, both], standalone);
    const binding = c.objects.find((o) => o.kind === 'ValidatingAdmissionPolicyBinding')!;
    expect((binding.spec as Obj).validationActions).toEqual(['Deny']);
    expect(c.rules[1]!.reason).toContain('the binding denies (the apiserver refuses Deny beside Warn), and gives no warning');
  });
});
