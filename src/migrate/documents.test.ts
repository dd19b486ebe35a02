import { describe, expect, it } from 'vitest';
import { cloneJson, type Obj } from '../base/json';
import { parseDocuments } from '../yaml';
import { isSourceDocument, rulesOf, SOURCE_KINDS, sourceKindOf } from './documents';
import { sourceProblems } from './source-problems';
import { readFixture } from '../../fixtures';
import CRD_KINDS from './crd-kinds.json';
import CRD_SCHEMAS from './crd-schemas.json';

const fixture = (name: string): Obj[] => parseDocuments(readFixture('migrate', name)).documents.map((d) => d.object as Obj);
const [template, constraint] = fixture('requiredlabels.yaml') as [Obj, Obj];
const [validatingPolicy, clusterPolicy] = fixture('kyverno.yaml') as [Obj, Obj];
const all = [template, constraint, validatingPolicy, clusterPolicy];

const messages = (object: unknown, workspace: readonly unknown[] = all) => sourceProblems(object, workspace).map((e) => `${e.field}: ${e.message}`);

describe('source documents', () => {
  it('recognises the Gatekeeper and Kyverno kinds, and nothing else', () => {
    expect(all.map((o) => sourceKindOf(o)?.kind)).toEqual(['ConstraintTemplate', 'Constraint', 'ValidatingPolicy', 'ClusterPolicy']);
    expect(sourceKindOf({ apiVersion: 'kyverno.io/v1', kind: 'Policy' })?.scope).toBe('Namespaced');
    for (const kind of ['ValidatingPolicy', 'MutatingPolicy', 'NamespacedValidatingPolicy', 'NamespacedMutatingPolicy'])
      expect(isSourceDocument({ apiVersion: 'policies.kyverno.io/v1', kind })).toBe(true);
    expect(isSourceDocument({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy' })).toBe(false);
    expect(isSourceDocument({ apiVersion: 'policies.kyverno.io/v1', kind: 'DeletingPolicy' })).toBe(false);
    expect(isSourceDocument({ apiVersion: 'kyverno.io/v1', kind: 'Test' })).toBe(false);
    expect(SOURCE_KINDS.every((k) => k.source.length > 0)).toBe(true);
  });

  it('knows the kinds from crd-kinds.json, which is crd-schemas.json without the schemas (the generator writes both)', () => {
    expect(CRD_KINDS).toEqual(CRD_SCHEMAS.map(({ schema: _, ...kind }) => kind));
  });

  it('finds nothing wrong in the library documents', () => {
    for (const o of all) expect(messages(o)).toEqual([]);
  });

  it('reports unknown fields as warnings and wrong types and enums as errors, at their paths', () => {
    const vp = cloneJson(validatingPolicy) as { spec: Record<string, unknown> & { validations: Obj[] } };
    vp.spec.validatons = [];
    vp.spec.validations[0]!.expression = 42;
    vp.spec.failurePolicy = 'Sometimes';
    const problems = sourceProblems(vp, all).sort((a, b) => a.field.localeCompare(b.field));
    expect(problems.map((p) => [p.field, p.severity ?? 'error'])).toEqual([
      ['spec.failurePolicy', 'error'],
      ['spec.validations[0].expression', 'error'],
      ['spec.validatons', 'warning'],
    ]);
    expect(problems[1]!.message).toMatch(/must be of type string, not integer/);
    expect(problems[2]!.message).toBe('unknown field "spec.validatons"');
  });

  it('checks a legacy rule and a template by their CRDs', () => {
    const cp = cloneJson(clusterPolicy) as { spec: { rules: Obj[] } };
    (cp.spec.rules[0]!.validate as Obj).cell = {};
    expect(messages(cp)).toEqual(['spec.rules[0].validate.cell: unknown field "spec.rules[0].validate.cell"']);
    const t = cloneJson(template) as { metadata: Obj; spec: Obj };
    t.metadata.name = 'required-labels';
    t.spec.targets = 'admission.k8s.gatekeeper.sh';
    expect(messages(t)).toEqual([
      'spec.targets: Invalid value: "admission.k8s.gatekeeper.sh": must be of type array, not string',
      'metadata.name: Invalid value: "required-labels": must be the lowercase of spec.crd.spec.names.kind ("k8srequiredlabels"): Gatekeeper refuses the template otherwise',
    ]);
  });

  it('says when a constraint has no template, and checks its parameters by the template', () => {
    expect(messages(constraint, [constraint])).toEqual([
      'kind: Invalid value: "K8sRequiredLabels": no ConstraintTemplate in the workspace defines the kind K8sRequiredLabels',
    ]);
    const c = cloneJson(constraint) as { spec: { parameters: { labels: Obj[] }; match: Obj } };
    c.spec.parameters.labels[0]!.key = ['owner'];
    c.spec.match.namespace = ['a'];
    expect(messages(c)).toEqual([
      'spec.match.namespace: unknown field "spec.match.namespace"',
      'spec.parameters.labels[0].key: Invalid value: ["owner"]: must be of type string, not array',
    ]);
    // a template with no parameter schema: the constraint's CRD has no spec.parameters (frameworks' CreateSchema)
    const bare = cloneJson(template) as { spec: { crd: { spec: Obj } } };
    delete bare.spec.crd.spec.validation;
    expect(messages(constraint, [bare, constraint])).toEqual(['spec.parameters: unknown field "spec.parameters"']);
  });

  it('lists the rules of each kind for the form', () => {
    expect(rulesOf(template).map((r) => `${r.name} ${r.type}`)).toEqual(['k8srequiredlabels K8sNativeValidation', 'k8srequiredlabels Rego']);
    expect(rulesOf(constraint)).toEqual([{ name: 'k8srequiredlabels', type: 'constraint', detail: 'enforcementAction: deny' }]);
    expect(rulesOf(validatingPolicy).map((r) => r.name)).toEqual(['spec.validations[0]']);
    expect(rulesOf(clusterPolicy)).toEqual([{ name: 'validate-socket-mounts', type: 'validate.cel', detail: '1 expression(s)' }]);
  });

  it('loses nothing of a document it cannot read: a non-object or a broken one gives no crash', () => {
    expect(sourceProblems({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'x' }, spec: 'no' }, [])).toHaveLength(1);
    expect(sourceProblems('text', [])).toEqual([]);
    expect(rulesOf({ apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', spec: { rules: 'x' } })).toEqual([]);
  });
});
