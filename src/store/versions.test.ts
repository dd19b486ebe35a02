import { describe, expect, it } from 'vitest';
import { loadSaved, serialize } from './persist';
import { docProblems } from './problems';
import { createWorkspace, workspace } from './workspace';

const OLD_VWC = `apiVersion: admissionregistration.k8s.io/v1beta1
kind: ValidatingWebhookConfiguration
metadata:
  name: legacy
webhooks:
- name: legacy.example.com
  clientConfig:
    url: https://legacy.example.com/validate
  sideEffects: None
`;

const MAP_V1 = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: m
spec:
  matchConstraints:
    resourceRules:
    - operations: [CREATE]
      apiGroups: [""]
      apiVersions: [v1]
      resources: [pods]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: Object{}
  reinvocationPolicy: Never
`;

describe('target Kubernetes version in the workspace', () => {
  it('defaults to 1.37, and problems follow the target', () => {
    const ws = createWorkspace({ docs: [], selectedId: null });
    expect(ws.getState().kubernetesVersion).toBe('1.37');
    ws.getState().importText(MAP_V1, 'paste');
    const doc = ws.getState().docs[0]!;
    expect(docProblems(doc, [], '1.36').errors).toBe(0);
    expect(docProblems(doc, [], '1.35').fields.map((e) => e.field)).toEqual(['apiVersion']);
  });

  it("the app's store: changing the version re-derives problems (problemsRevision) and docProblems reads it", () => {
    const before = workspace.getState().problemsRevision;
    workspace.getState().importText(MAP_V1, 'paste');
    const doc = workspace.getState().docs.at(-1)!;
    workspace.getState().setKubernetesVersion('1.34');
    expect(workspace.getState().problemsRevision).toBe(before + 1);
    expect(docProblems(doc).errors).toBe(1);
    workspace.getState().setKubernetesVersion('1.36');
    expect(docProblems(doc).errors).toBe(0);
  });

  it('is saved with the workspace and restored; an unknown saved value falls back to the default', () => {
    const ws = createWorkspace({ docs: [], selectedId: null, kubernetesVersion: '1.31' });
    const text = serialize(ws.getState());
    expect(JSON.parse(text).kubernetesVersion).toBe('1.31');
    expect(loadSaved({ getItem: () => text })?.kubernetesVersion).toBe('1.31');
    const bad = JSON.stringify({ ...JSON.parse(text), kubernetesVersion: '1.99' });
    expect(loadSaved({ getItem: () => bad })).not.toHaveProperty('kubernetesVersion');
  });

  it('a platform sets its Kubernetes release, is saved and restored; choosing a Kubernetes release leaves it', () => {
    const ws = createWorkspace({ docs: [], selectedId: null });
    const before = ws.getState().problemsRevision;
    ws.getState().setPlatform('openshift-4.19');
    expect(ws.getState()).toMatchObject({ platform: 'openshift-4.19', kubernetesVersion: '1.32', problemsRevision: before + 1 });
    const text = serialize(ws.getState());
    expect(JSON.parse(text)).toMatchObject({ platform: 'openshift-4.19', kubernetesVersion: '1.32' });
    expect(loadSaved({ getItem: () => text })).toMatchObject({ platform: 'openshift-4.19', kubernetesVersion: '1.32' });
    // a platform this app lacks is restored at the nearest one, with its release
    const newer = JSON.stringify({ ...JSON.parse(text), platform: 'openshift-4.30', kubernetesVersion: '1.43' });
    expect(loadSaved({ getItem: () => newer })).toMatchObject({ platform: 'openshift-4.22', kubernetesVersion: '1.35' });
    ws.getState().setKubernetesVersion('1.32');
    expect(ws.getState().platform).toBeUndefined();
    expect(ws.getState().kubernetesVersion).toBe('1.32');
    expect(JSON.parse(serialize(ws.getState()))).not.toHaveProperty('platform');
  });

  it("the app's store: a platform's critical namespaces reach the lints (W27) at its release only", () => {
    const guard = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: pod-guard-store
webhooks:
- name: pods.guard.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  clientConfig:
    url: https://guard.example.com/validate
  rules:
  - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}
`;
    workspace.getState().importText(guard, 'paste');
    const doc = workspace.getState().docs.at(-1)!;
    const w27 = () => docProblems(doc).lints.filter((l) => l.id === 'W27').length;
    workspace.getState().setKubernetesVersion('1.32');
    expect(w27()).toBe(0);
    workspace.getState().setPlatform('openshift-4.19');
    expect(w27()).toBe(1);
    // another release asked for explicitly: upstream's lints
    expect(docProblems(doc, [], '1.33').lints.filter((l) => l.id === 'W27')).toEqual([]);
    workspace.getState().setKubernetesVersion('1.32');
    expect(w27()).toBe(0);
  });

  it('convertToV1 rewrites an old document in place, undoably, with a note', () => {
    const ws = createWorkspace({ docs: [], selectedId: null });
    const [id] = ws.getState().importText(OLD_VWC, 'paste');
    expect(docProblems(ws.getState().docs[0]!, [], '1.36').fields.map((e) => e.field)).toEqual(['apiVersion']);
    ws.getState().convertToV1(id!);
    const doc = ws.getState().docs[0]!;
    expect(doc.text).toContain('apiVersion: admissionregistration.k8s.io/v1\n');
    expect(doc.text).toContain('failurePolicy: Ignore');
    expect(docProblems(doc, [], '1.36').errors).toBe(0);
    expect(ws.getState().notices.at(-1)?.text).toMatch(/^Converted to v1\. apiVersion: .*failurePolicy: Ignore/);
    ws.getState().undo();
    expect(ws.getState().docs[0]!.text).toContain('v1beta1');
  });
});
