import { describe, expect, it } from 'vitest';
import { readFixture } from '../../fixtures';
import { docFromObject, importText, withObject } from './documents';
import { applyOpenFix, openFix, previewFix, useOpenFix } from './fixes';
import { caInspection } from './ca-bundles';
import { docProblems } from './problems';
import { createWorkspace, workspace } from './workspace';

const policy = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'demo' },
  spec: {
    matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
    validations: [{ expression: 'true', message: 'ok' }],
  },
};
const hook = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'hooks' },
  webhooks: [
    {
      name: 'a.example.com',
      clientConfig: { url: 'https://a.example.com/' },
      admissionReviewVersions: ['v1'],
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    },
  ],
};

describe('quick fixes in the store', () => {
  it('a fix that creates a binding is one undo step; the finding is gone, undo brings it back', () => {
    const doc = docFromObject(policy);
    const store = createWorkspace({ docs: [doc], selectedId: doc.id });
    const p01 = docProblems(doc, [doc]).items.find((p) => p.label === 'P01')!;
    expect(p01.fixes!.map((f) => f.title)).toEqual(['Create a ValidatingAdmissionPolicyBinding for this policy']);
    store.getState().applyFix(doc.id, p01.fixes![0]!);
    const docs = store.getState().docs;
    expect(docs).toHaveLength(2);
    expect(docs[1]!.text).toContain('policyName: demo');
    expect(docProblems(docs[0]!, docs).items.map((p) => p.label)).not.toContain('P01');
    store.getState().undo();
    expect(store.getState().docs).toHaveLength(1);
    expect(store.getState().history.past).toHaveLength(0);
  });

  it('validation errors carry their fixes; the preview is a line diff; applying the open fix edits the document', () => {
    const doc = withObject(docFromObject(hook), hook); // text in API key order, as after a form edit
    workspace.setState({ docs: [doc], selectedId: doc.id });
    const required = docProblems(doc, [doc]).items.find((p) => p.field === 'webhooks[0].sideEffects')!;
    expect(required.label).toBe('Required');
    const fix = required.fixes![0]!;
    const preview = previewFix(doc.id, fix)!;
    expect(preview.hunks.filter((l) => l !== '…' && l.op !== ' ').map((l) => l !== '…' && `${l.op}${l.text.trim()}`)).toEqual(['+sideEffects: None']);
    openFix({ docId: doc.id, problem: 'Required webhooks[0].sideEffects', fix });
    expect(typeof useOpenFix).toBe('function');
    applyOpenFix();
    const after = workspace.getState().docs[0]!;
    expect(after.text).toContain('sideEffects: None');
    expect(docProblems(after, [after]).items.find((p) => p.field === 'webhooks[0].sideEffects')).toBeUndefined();
    workspace.getState().undo();
    expect(workspace.getState().docs[0]!.text).not.toContain('sideEffects');
  });

  it('narrowing `*` rewrites its own line and apiGroups only: the listed resources, their comment and their group stay', () => {
    const text = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: narrow.example.com
webhooks:
- name: narrow.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Ignore
  clientConfig: {url: "https://narrow.example.com/validate"}
  rules:
  - apiGroups: ["*"]
    apiVersions: ["*"]
    operations: [CREATE, UPDATE, CONNECT]
    resources:
    - "*"
    # subresources we also need (exec/attach are CONNECT)
    - pods/exec
    - pods/attach
    - deployments/scale
`;
    const { docs } = importText(text, 'narrow.yaml');
    const store = createWorkspace({ docs, selectedId: docs[0]!.id });
    const w05 = docProblems(docs[0]!, docs).items.find((p) => p.label === 'W05')!;
    store.getState().applyFix(docs[0]!.id, w05.fixes![0]!);
    const after = store.getState().docs[0]!.text;
    expect(after).toBe(text.replace('- apiGroups: ["*"]', '- apiGroups: ["", "apps"]').replace('- "*"', '- "pods"'));
    expect(docProblems(store.getState().docs[0]!, store.getState().docs).items.map((p) => p.label)).not.toContain('W05');
  });

  it('caBundle findings appear once the background inspection is done', async () => {
    const pem = readFixture('ca', 'expired-ca.pem');
    const withCa = {
      ...hook,
      webhooks: [
        { ...hook.webhooks[0], sideEffects: 'None', clientConfig: { service: { name: 's', namespace: 'n' }, caBundle: Buffer.from(pem).toString('base64') } },
      ],
    };
    const doc = docFromObject(withCa);
    const revision = workspace.getState().problemsRevision;
    expect(docProblems(doc, [doc]).items.map((p) => p.label)).not.toContain('C02');
    await expect.poll(() => workspace.getState().problemsRevision, { timeout: 10_000 }).toBeGreaterThan(revision);
    expect(caInspection(withCa.webhooks[0]!.clientConfig.caBundle)?.certificates).toHaveLength(1);
    expect(
      docProblems(doc, [doc])
        .items.filter((p) => p.label === 'C02')
        .map((p) => p.message),
    ).toEqual(['certificate 1 (CN=expired-ca) expired on 2021-01-01']);
  });
});
