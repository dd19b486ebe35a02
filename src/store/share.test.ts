import { beforeEach, describe, expect, it } from 'vitest';
import { readWorkspaceFile } from '../share';
import { currentWorkspaceFile, hasOwnWork, isScratchpadOnly, openScratchpadFile, openWorkspaceFile, openWorkspaceText, scratchpadWorkspaceFile } from './share';
import { scratchpad, setScratchContext, setScratchExpression } from './scratchpad';
import { getTestsData, setTestsData } from './test-inputs';
import { sampleSnapshot, workspace } from './workspace';
import { exportDocs } from './export';

const POLICY =
  'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: p # kept\nspec:\n  validations:\n  - expression: "true"\n';

describe('share (store side)', () => {
  beforeEach(() => {
    workspace.setState(sampleSnapshot());
    setTestsData({ docs: {}, scenarios: [] });
  });

  it('the sample is not own work, nor an empty workspace; an edit is', () => {
    expect(hasOwnWork()).toBe(false);
    workspace.getState().replaceAll([]);
    expect(workspace.getState().docs).toEqual([]);
    expect(hasOwnWork()).toBe(false);
    workspace.getState().importText(POLICY, 'test');
    expect(hasOwnWork()).toBe(true);
  });

  it('the workspace as a file and back: the same texts and test data under the new ids', () => {
    const [id] = workspace.getState().importText(POLICY, 'test');
    const c = {
      name: 'c',
      input: {
        request: { operation: 'CREATE' as const, resource: { group: '', version: 'v1', resource: 'pods' }, kind: { group: '', version: 'v1', kind: 'Pod' } },
      },
      expect: { outcome: 'admit' as const },
    };
    setTestsData({ docs: { [id!]: { celCases: {}, policyCases: [c], open: [] } }, scenarios: [] });
    const file = JSON.parse(JSON.stringify(currentWorkspaceFile('workspace'))) as unknown;
    const texts = workspace.getState().docs.map((d) => d.text);

    workspace.setState(sampleSnapshot());
    setTestsData({ docs: {}, scenarios: [] });
    const r = readWorkspaceFile(file);
    if (!r.ok) throw new Error(r.error);
    openWorkspaceFile(r.workspace);
    const docs = workspace.getState().docs;
    expect(docs.map((d) => d.text)).toEqual(texts);
    const policyDoc = docs.find((d) => d.text === POLICY)!;
    expect(getTestsData().docs[policyDoc.id]?.policyCases).toEqual([c]);
    // One undo step brings the previous documents back.
    workspace.getState().undo();
    expect(workspace.getState().docs.map((d) => d.text)).toEqual(sampleSnapshot().docs.map((d) => d.text));
  });

  it('a commented multi-document file survives the share file byte-identical', () => {
    const file = `# the team's policies\n---\n# a comment-only document\n--- # the policy\n${POLICY}`;
    workspace.getState().replaceAll([]);
    workspace.getState().importText(file, 'team.yaml');
    const shared = JSON.parse(JSON.stringify(currentWorkspaceFile('workspace'))) as unknown;
    workspace.getState().replaceAll([]);
    const r = readWorkspaceFile(shared);
    if (!r.ok) throw new Error(r.error);
    openWorkspaceFile(r.workspace);
    expect(exportDocs(workspace.getState().docs).text).toBe(file);
  });

  it('a scratchpad-only file opens the scratchpad and leaves the workspace alone', () => {
    const before = workspace.getState().docs;
    setScratchExpression('1 + 2');
    setScratchContext('map-matchCondition');
    const file = JSON.parse(JSON.stringify(scratchpadWorkspaceFile())) as unknown;
    setScratchExpression('changed');
    const r = readWorkspaceFile(file);
    if (!r.ok) throw new Error(r.error);
    expect(isScratchpadOnly(r.workspace)).toBe(true);
    const shown = scratchpad.getState().shown;
    openScratchpadFile(r.workspace);
    expect(scratchpad.getState()).toMatchObject({ expression: '1 + 2', context: 'map-matchCondition', shown: shown + 1 });
    expect(workspace.getState().docs).toBe(before);
    // The whole workspace's file carries the scratchpad too.
    expect(currentWorkspaceFile('workspace').scratchpad?.expression).toBe('1 + 2');
  });

  it('only the selected document', () => {
    const [id] = workspace.getState().importText(POLICY, 'test');
    workspace.getState().select(id!);
    expect(currentWorkspaceFile('document').documents).toEqual([{ name: 'p', text: POLICY }]);
  });

  it('an opened workspace file: refused when bad, asked before replacing own work, other text left to the YAML import', () => {
    expect(openWorkspaceText('kind: ConfigMap\n', 'a.yaml', () => true)).toBe(false);
    const before = workspace.getState().docs;
    expect(openWorkspaceText('{"format": "admission-workbench/workspace", "version": 99, "documents": []}', 'w.json', () => true)).toBe(true);
    expect(workspace.getState().docs).toBe(before);
    expect(workspace.getState().notices.at(-1)?.text).toMatch(/^w\.json: the workspace was written by a newer Admission Workbench .* Nothing was changed\.$/);
    workspace.getState().importText(POLICY, 'test');
    const mine = workspace.getState().docs;
    const good = JSON.stringify({ format: 'admission-workbench/workspace', version: 1, documents: [{ text: POLICY }] });
    let asked = 0;
    expect(openWorkspaceText(good, 'w.json', () => (asked++, false))).toBe(true);
    expect(asked).toBe(1);
    expect(workspace.getState().docs).toBe(mine);
    expect(openWorkspaceText(good, 'w.json', () => true)).toBe(true);
    expect(workspace.getState().docs.map((d) => d.text)).toEqual([POLICY]);
  });
});
