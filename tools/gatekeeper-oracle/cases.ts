/**
 * Inputs for the Gatekeeper oracle test: every template of fixtures/gatekeeper (the library's
 * templates with CEL code) with the constraints of its samples, and hand-written ones for what the
 * library does not exercise (other enforcement actions, selectors, long names, v1beta1, the CEL
 * source's optional fields, unknown fields and input Gatekeeper rejects).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isObject, type Obj } from '../../src/base/json';
import { parseDocuments } from '../../src/yaml/index';
import { fixturePath, fixtureTree } from '../../fixtures';

export interface OracleCase {
  name: string;
  template: Obj;
  constraints: Obj[];
  /** A library template (must convert exactly). */
  library?: boolean;
}

const objectsOf = (path: string): Obj[] =>
  parseDocuments(readFileSync(path, 'utf8'))
    .documents.map((d) => d.object)
    .filter(isObject);

export const GATEKEEPER_FIXTURES = fixturePath('gatekeeper');

export function libraryCases(): OracleCase[] {
  const files = fixtureTree('gatekeeper');
  return files
    .filter((f) => f.endsWith('/template.yaml'))
    .map((f) => {
      const dir = f.slice(0, -'template.yaml'.length);
      const constraints = files
        .filter((c) => c.startsWith(`${dir}samples/`) && /\/constraint\d*\.yaml$/.test(c))
        .flatMap((c) => objectsOf(join(GATEKEEPER_FIXTURES, c)));
      return { name: dir.replace(/\/$/, ''), template: objectsOf(join(GATEKEEPER_FIXTURES, f))[0]!, constraints, library: true };
    });
}

const template = (kind: string, source: unknown, extra: { apiVersion?: string; targets?: unknown[]; spec?: Obj } = {}): Obj => ({
  apiVersion: extra.apiVersion ?? 'templates.gatekeeper.sh/v1',
  kind: 'ConstraintTemplate',
  metadata: { name: kind.toLowerCase() },
  spec: {
    crd: { spec: { names: { kind } } },
    targets: extra.targets ?? [{ target: 'admission.k8s.gatekeeper.sh', code: [{ engine: 'K8sNativeValidation', source }] }],
    ...extra.spec,
  },
});

const constraint = (kind: string, name: string, spec: Obj): Obj => ({ apiVersion: 'constraints.gatekeeper.sh/v1beta1', kind, metadata: { name }, spec });

const simple = { validations: [{ expression: 'has(variables.anyObject.metadata.labels)', message: 'labels' }] };

export const HAND_CASES: OracleCase[] = [
  {
    name: 'every source field, enforcement actions and selectors',
    template: template('K8sEverything', {
      validations: [
        { expression: 'variables.params.max >= size(variables.anyObject.spec.containers)', messageExpression: '"too many: " + string(variables.count)' },
        { expression: 'true' },
      ],
      failurePolicy: 'Ignore',
      matchCondition: [{ name: 'pods-only', expression: 'request.kind.kind == "Pod"' }],
      variables: [{ name: 'count', expression: 'size(variables.anyObject.spec.containers)' }],
    }),
    constraints: [
      constraint('K8sEverything', 'warn-one', { enforcementAction: 'warn', parameters: { max: 2 } }),
      constraint('K8sEverything', 'dryrun-one', { enforcementAction: 'dryrun', match: { labelSelector: { matchLabels: { a: 'b' } } } }),
      constraint('K8sEverything', 'selectors', {
        match: {
          labelSelector: {
            matchExpressions: [
              { key: 'tier', operator: 'In', values: ['web'] },
              { key: 'x', operator: 'Exists', values: [] },
            ],
          },
          namespaceSelector: { matchLabels: { team: 'a' } },
          namespaces: ['prod-*'],
          excludedNamespaces: ['kube-*'],
          kinds: [{ apiGroups: [''], kinds: ['Pod'] }],
        },
      }),
      constraint('K8sEverything', 'scoped-vap', {
        enforcementAction: 'scoped',
        scopedEnforcementActions: [
          { action: 'warn', enforcementPoints: [{ name: 'vap.k8s.io' }] },
          { action: 'deny', enforcementPoints: [{ name: 'validation.gatekeeper.sh' }] },
          { action: 'dryrun', enforcementPoints: [{ name: '*' }] },
        ],
      }),
      // Gatekeeper writes this binding; the apiserver refuses Deny beside Warn
      constraint('K8sEverything', 'scoped-warn-and-deny', {
        enforcementAction: 'scoped',
        scopedEnforcementActions: [
          { action: 'warn', enforcementPoints: [{ name: 'vap.k8s.io' }] },
          { action: 'deny', enforcementPoints: [{ name: 'vap.k8s.io' }] },
        ],
      }),
      constraint('K8sEverything', 'scoped-webhook-only', {
        enforcementAction: 'scoped',
        scopedEnforcementActions: [{ action: 'deny', enforcementPoints: [{ name: 'validation.gatekeeper.sh' }] }],
      }),
      constraint('K8sEverything', 'bogus-action', { enforcementAction: 'block' }),
      constraint('K8sEverything', `long-${'x'.repeat(240)}`, {}),
      constraint('K8sEverything', `dots-${'y'.repeat(222)}.-.z-tail`, {}),
      constraint('K8sEverything', 'empty-selector', { match: { labelSelector: {} } }),
    ],
  },
  {
    name: 'v1beta1 template',
    template: template('K8sOldApi', simple, { apiVersion: 'templates.gatekeeper.sh/v1beta1' }),
    constraints: [constraint('K8sOldApi', 'c', {})],
  },
  {
    name: 'unknown fields (Gatekeeper drops them)',
    template: template('K8sUnknown', { ...simple, validations: [{ ...simple.validations[0], reason: 'Forbidden' }], auditAnnotations: [] }),
    constraints: [constraint('K8sUnknown', 'c', { match: { kinds: [{ kinds: ['Pod'] }], typo: true }, extra: 1 })],
  },
  { name: 'generateVAP false', template: template('K8sNoVap', { ...simple, generateVAP: false }), constraints: [] },
  // generateVAP as a string: schema.Source refuses the code ("unrecognized type: bool")
  { name: 'generateVAP a string', template: template('K8sStringVap', { ...simple, generateVAP: 'false' }), constraints: [] },
  { name: 'reserved variable', template: template('K8sReserved', { ...simple, variables: [{ name: 'params', expression: '1' }] }), constraints: [] },
  {
    name: 'reserved match condition prefix',
    template: template('K8sReservedMc', { ...simple, matchCondition: [{ name: 'gatekeeper_internal_x', expression: 'true' }] }),
    constraints: [],
  },
  { name: 'bad failurePolicy', template: template('K8sBadFp', { ...simple, failurePolicy: 'Sometimes' }), constraints: [] },
  {
    name: 'Rego only',
    template: template('K8sRegoOnly', null, {
      targets: [{ target: 'admission.k8s.gatekeeper.sh', rego: 'package k8sregoonly\nviolation[{"msg": "no"}] { true }\n' }],
    }),
    constraints: [constraint('K8sRegoOnly', 'c', {})],
  },
  {
    name: 'two targets',
    template: template('K8sTwoTargets', null, {
      targets: [
        { target: 'a', code: [{ engine: 'K8sNativeValidation', source: simple }] },
        { target: 'b', code: [{ engine: 'K8sNativeValidation', source: simple }] },
      ],
    }),
    constraints: [],
  },
];
