/**
 * The workspace's field validation mode: it changes the problems of a document with unknown
 * fields (error, warning, nothing), survives the autosave, the workspace file and share links
 * (absent: Strict), and leaves a static manifest's strict decoding alone.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { readWorkspaceFile } from '../share';
import { loadSaved, serialize } from './persist';
import { currentWorkspaceFile, openWorkspaceFile } from './share';
import { docProblems } from './problems';
import { setTestsData } from './test-inputs';
import { workspace } from './workspace';

const VWC = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: guard
webhooks:
- name: guard.example.com
  timeoutSecond: 5
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    url: https://guard.example.com/validate
`;

const unknownProblems = () => {
  const docs = workspace.getState().docs;
  return docProblems(docs[0]!, docs)
    .items.filter((i) => i.message.includes('unknown field'))
    .map((i) => `${i.level} ${i.field}: ${i.message}`);
};

describe('field validation (store)', () => {
  beforeEach(() => {
    workspace.setState({ docs: [], selectedId: null, staticManifests: false, fieldValidation: 'Strict' });
    setTestsData({ docs: {}, scenarios: [] });
  });

  it('Strict (the default) makes an unknown field an error, Warn a warning, Ignore nothing', () => {
    workspace.getState().importText(VWC, 'test');
    expect(unknownProblems()).toEqual(['error webhooks[0].timeoutSecond: unknown field "webhooks[0].timeoutSecond"']);
    workspace.getState().setFieldValidation('Warn');
    expect(unknownProblems()).toEqual(['warning webhooks[0].timeoutSecond: unknown field "webhooks[0].timeoutSecond"']);
    workspace.getState().setFieldValidation('Ignore');
    expect(unknownProblems()).toEqual([]);
    // a static manifest is decoded strictly by its loader whatever the mode
    workspace.getState().setStaticManifests(true);
    expect(unknownProblems()).toEqual(['error webhooks[0].timeoutSecond: strict decoding error: unknown field "webhooks[0].timeoutSecond"']);
  });

  it('a key given twice: the last value is read; Strict makes it an error, Warn a warning, Ignore nothing', () => {
    const text = VWC.replace('  name: guard\n', '  name: first\n  name: guard\n').replace('  timeoutSecond: 5\n', '');
    workspace.getState().importText(text, 'test');
    const doc = () => workspace.getState().docs[0]!;
    expect(doc().error).toBeUndefined();
    expect((doc().object as { metadata: { name: string } }).metadata.name).toBe('guard');
    const duplicates = () =>
      docProblems(doc(), workspace.getState().docs)
        .items.filter((i) => i.message.includes('already set in map'))
        .map((i) => `${i.level} ${i.field}: ${i.message}`);
    expect(duplicates()).toEqual(['error metadata.name: line 5: key "name" already set in map']);
    expect(docProblems(doc(), workspace.getState().docs).errors).toBe(1);
    workspace.getState().setFieldValidation('Warn');
    expect(duplicates()).toEqual(['warning metadata.name: line 5: key "name" already set in map']);
    expect(docProblems(doc(), workspace.getState().docs).errors).toBe(0);
    workspace.getState().setFieldValidation('Ignore');
    expect(duplicates()).toEqual([]);
    // a static manifest's loader decodes strictly whatever the mode
    workspace.getState().setStaticManifests(true);
    expect(duplicates()).toEqual(['error metadata.name: line 5: key "name" already set in map']);
  });

  it('is kept by the autosave, the workspace file and share links; a file without it opens as Strict', () => {
    workspace.getState().importText(VWC, 'test');
    workspace.getState().setFieldValidation('Ignore');
    const m = new Map<string, string>();
    const storage = { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
    m.set('admission-workbench/workspace/v1', serialize(workspace.getState()));
    expect(loadSaved(storage)?.fieldValidation).toBe('Ignore');
    const file = currentWorkspaceFile('workspace');
    expect(file.fieldValidation).toBe('Ignore');
    workspace.getState().setFieldValidation('Strict');
    const read = readWorkspaceFile(JSON.parse(JSON.stringify(file)));
    if (!read.ok) throw new Error(read.error);
    openWorkspaceFile(read.workspace);
    expect(workspace.getState().fieldValidation).toBe('Ignore');
    const { fieldValidation: _, ...old } = file;
    openWorkspaceFile(old);
    expect(workspace.getState().fieldValidation).toBe('Strict');
  });
});
