/**
 * The store's problems follow edits of other documents (G03, G04, P15 read other documents'
 * matchConstraints and webhook rules), group identical findings, and tell kinds that are not
 * checked apart. Store functions only; the real core underneath.
 */
import { describe, expect, it } from 'vitest';
import { docFromObject, withObject, type WorkspaceDoc } from './documents';
import { docProblems, groupProblems, type Problem } from './problems';

const rules = (resources: string[]) => [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources }];
const vap = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'v' }, spec: { matchConstraints: { resourceRules: rules(['pods']) }, validations: [{ expression: 'true' }] } };
const map = (resources: string[]) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingAdmissionPolicy',
  metadata: { name: 'm' },
  spec: { matchConstraints: { resourceRules: rules(resources) }, reinvocationPolicy: 'Never', mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }] },
});
const mwc = (resources: string[]) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingWebhookConfiguration',
  metadata: { name: 'h' },
  webhooks: [{ name: 'h.example.com', clientConfig: { url: 'https://h.example.com/' }, admissionReviewVersions: ['v1'], sideEffects: 'None', rules: rules(resources) }],
});
const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec: { policyName: 'v', validationActions: ['Deny'] } };
const ids = (doc: WorkspaceDoc, docs: WorkspaceDoc[]) => docProblems(doc, docs, '1.36').lints.map((l) => l.id);

describe('docProblems follows edits of other documents', () => {
  it('G03 goes, G04 comes, P15 comes and goes as other documents change', () => {
    const v = docFromObject(vap);
    const b = docFromObject(binding);
    let m = docFromObject(map(['pods']));
    let h = docFromObject(mwc(['configmaps']));
    let docs = [v, b, m, h];
    expect(ids(v, docs)).toContain('G03');
    expect(ids(m, docs)).not.toContain('G04');
    expect(ids(b, docs)).toContain('P15');
    m = withObject(m, map(['secrets']));
    h = withObject(h, mwc(['secrets']));
    docs = [v, b, m, h];
    expect(ids(v, docs)).not.toContain('G03');
    expect(ids(m, docs)).toContain('G04');
    const narrowed = withObject(v, { ...vap, spec: { ...vap.spec, matchConstraints: { resourceRules: rules(['configmaps']) } } });
    expect(ids(b, [narrowed, b, m, h])).not.toContain('P15');
  });
});

describe('groupProblems', () => {
  const p = (label: string, field: string, level: Problem['level'] = 'warning'): Problem => ({ label, field, level, message: `${label} at ${field}` });
  it('one line for three or more of one rule and field pattern, in the place of the first', () => {
    const items = [p('Invalid', 'webhooks[0].name', 'error'), ...Array.from({ length: 5 }, (_, i) => p('W10', `webhooks[${i}].timeoutSeconds`)), p('W01', 'webhooks[0].namespaceSelector'), p('W01', 'webhooks[1].namespaceSelector')];
    const lines = groupProblems(items);
    expect(lines.map((l) => ('group' in l ? `${l.group.label}×${l.group.items.length} ${l.group.field}` : l.problem.field))).toEqual([
      'webhooks[0].name',
      'W10×5 webhooks[*].timeoutSeconds',
      'webhooks[0].namespaceSelector',
      'webhooks[1].namespaceSelector',
    ]);
  });
});

describe('kinds that are not checked', () => {
  it('say so (checked: false) and get no validation or findings', () => {
    const cm = docFromObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'caf\uFFFD' }, data: { a: 'b' } });
    const r = docProblems(cm, [cm], '1.36');
    expect(r).toMatchObject({ checked: false, errors: 0, warnings: 0, lints: [] });
    expect(docProblems(docFromObject(vap), [], '1.36').checked).toBe(true);
  });
});
