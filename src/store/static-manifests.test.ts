/**
 * Static manifests in the store: the per-document and workspace flags survive the autosave, the
 * workspace file and share links (old files load without them), the problems of a static
 * document are the manifest loader's (with the headline), and the export writes the directory.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../fixtures';
import { DEFAULT_KUBERNETES_VERSION } from '../base';
import { readWorkspaceFile } from '../share';
import { useEngine } from '../cel/test-helpers';
import { restoreWorkspace, serialize, storageBackend } from './persist';
import { currentWorkspaceFile, openWorkspaceFile } from './share';
import { docProblems } from './problems';
import { exportManifestDirectory } from './export-manifests';
import { previewFix } from './fixes';
import { staticIndices } from './simulator';
import { setTestsData } from './test-inputs';
import { createWorkspace, isStaticDoc, workspace } from './workspace';

useEngine();

const VWC = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: guard # no suffix yet
webhooks:
- name: guard.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    service: {name: guard, namespace: guard-system}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
`;
const CERT_MANAGER = readFixture('realworld', '01-cert-manager-webhooks.yaml');
const API =
  'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: api-policy\nspec:\n  matchConstraints:\n    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]\n  validations: [{expression: "true"}]\n';

function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => void m.set(k, v),
    removeItem: (k) => void m.delete(k),
    clear: () => m.clear(),
    key: () => null,
    length: 0,
  } as Storage;
}

describe('static manifests (store)', () => {
  beforeEach(() => {
    // the release too: the store is shared with the files before in this worker (vitest's shared
    // project), and one that left a release before 1.36 made every static set fail to load here
    workspace.setState({ docs: [], selectedId: null, staticManifests: false, kubernetesVersion: DEFAULT_KUBERNETES_VERSION, platform: undefined });
    setTestsData({ docs: {}, scenarios: [] });
  });

  it("a static document gets the loader's problems at their fields and the headline; fixing them clears both", () => {
    const [id] = workspace.getState().importText(VWC, 'test');
    const api = docProblems(workspace.getState().docs[0]!, workspace.getState().docs);
    expect(api.manifest).toBeUndefined();
    expect(api.errors).toBe(0);
    workspace.getState().setDocStatic(id!, true);
    const docs = workspace.getState().docs;
    const p = docProblems(docs[0]!, docs);
    expect(p.items.filter((i) => i.level === 'error').map((i) => i.field)).toEqual(['metadata.name', 'webhooks[0].clientConfig.service']);
    expect(p.manifest?.loads).toBe(false);
    expect(p.manifest?.headline).toMatch(/does not load: a kube-apiserver started with it exits/);
    // fixed: the name and a URL
    workspace
      .getState()
      .setText(
        id!,
        VWC.replace('name: guard # no suffix yet', 'name: guard.static.k8s.io').replace(
          'service: {name: guard, namespace: guard-system}',
          'url: https://10.0.0.5:8443/validate',
        ),
      );
    const fixed = workspace.getState().docs;
    const q = docProblems(fixed[0]!, fixed);
    expect(q.errors).toBe(0);
    expect(q.manifest).toEqual({ loads: true });
    // one undo step per mark
    workspace.getState().undo();
    workspace.getState().undo();
    expect(workspace.getState().docs[0]!.static).toBeUndefined();
  });

  it('the workspace flag makes every admission document static', () => {
    workspace.getState().importText(`${VWC}---\n${API}`, 'test');
    expect(staticIndices(workspace.getState().docs)).toEqual([]);
    workspace.getState().setStaticManifests(true);
    expect(staticIndices(workspace.getState().docs)).toEqual([0, 1]);
    expect(workspace.getState().docs.every((d) => isStaticDoc(d))).toBe(true);
    // the guard has no .static.k8s.io name and calls a service: the set does not load, so it is not exported unless asked
    const refused = exportManifestDirectory(workspace.getState().docs, 'per-object', workspace.getState());
    expect(refused).toEqual({ ok: false, headline: expect.stringMatching(/^This static manifest set does not load/) });
    const anyway = exportManifestDirectory(workspace.getState().docs, 'per-object', workspace.getState(), { anyway: true });
    if (!anyway.ok) throw new Error('exported anyway');
    const files = anyway.files;
    expect(Object.keys(files).sort()).toEqual([
      'admission-configuration.yaml',
      'validating-admission-policies/api-policy.yaml',
      'validating-webhooks/guard.yaml',
    ]);
    // the document's own text, comments included
    expect(files['validating-webhooks/guard.yaml']).toBe(VWC);
  });

  it('a set that does not load is not exported (as check --export-manifests refuses it); fixed, it is', () => {
    const [id] = workspace.getState().importText(CERT_MANAGER, 'test');
    workspace.getState().setStaticManifests(true);
    const state = workspace.getState();
    expect(exportManifestDirectory(state.docs, 'per-object', state)).toMatchObject({ ok: false });
    // the same objects at a release without static manifests do not load either
    expect(exportManifestDirectory(state.docs, 'per-object', { ...state, kubernetesVersion: '1.35' })).toMatchObject({ ok: false });
    workspace.getState().keepOnly([id!]);
    workspace
      .getState()
      .setText(
        id!,
        VWC.replace('name: guard # no suffix yet', 'name: guard.static.k8s.io').replace(
          'service: {name: guard, namespace: guard-system}',
          'url: https://10.0.0.5:8443/validate',
        ),
      );
    const fixed = workspace.getState();
    const out = exportManifestDirectory(fixed.docs, 'per-object', fixed);
    expect(out.ok && Object.keys(out.files).sort()).toEqual(['admission-configuration.yaml', 'validating-webhooks/guard.static.k8s.io.yaml']);
  });

  it("quick fixes for the loader's name and service errors: a diff preview, one undo step each, and then the set loads", () => {
    const [id] = workspace.getState().importText(VWC, 'test');
    workspace.getState().setDocStatic(id!, true);
    const problems = () => {
      const docs = workspace.getState().docs;
      return docProblems(docs[0]!, docs);
    };
    const fixAt = (field: string) => problems().items.find((p) => p.field === field)?.fixes?.[0];
    const rename = fixAt('metadata.name')!;
    expect(rename.title).toBe('Rename to "guard.static.k8s.io"');
    const diff = (fix: typeof rename, params?: Record<string, string>) =>
      previewFix(id!, fix, params)!.hunks.flatMap((l) => (l !== '…' && l.op !== ' ' ? [`${l.op}${l.text.trim()}`] : []));
    expect(diff(rename)).toEqual(['-name: guard # no suffix yet', '+name: guard.static.k8s.io # no suffix yet']);
    const steps = workspace.getState().history.past.length;
    workspace.getState().applyFix(id!, rename);
    expect(workspace.getState().history.past.length).toBe(steps + 1);

    const url = fixAt('webhooks[0].clientConfig.service')!;
    expect(url.title).toBe('Call a URL instead of the service');
    expect(url.params![0]!.default).toBe('https://guard.guard-system.svc');
    const params = { url: 'https://10.0.0.5:8443/validate' };
    // (the service was clientConfig's only field: the url replaces it in the block, which keeps its style)
    expect(diff(url, params)).toEqual(['-service: {name: guard, namespace: guard-system}', '+url: https://10.0.0.5:8443/validate']);
    workspace.getState().applyFix(id!, url, params);
    expect(workspace.getState().history.past.length).toBe(steps + 2);
    // nothing of the service is left, and the set loads
    expect(workspace.getState().docs[0]!.text).not.toContain('service');
    expect(problems().errors).toBe(0);
    expect(problems().manifest).toEqual({ loads: true });
    workspace.getState().undo();
    expect(workspace.getState().docs[0]!.text).toContain('service: {name: guard, namespace: guard-system}');
    expect(workspace.getState().docs[0]!.text).toContain('name: guard.static.k8s.io');
  });

  it('flags survive the workspace file (and old files load without them)', () => {
    const ids = workspace.getState().importText(`${VWC}---\n${API}`, 'test');
    workspace.getState().setDocStatic(ids[0]!, true);
    const file = JSON.parse(JSON.stringify(currentWorkspaceFile('workspace'))) as { documents: { static?: boolean }[]; staticManifests?: boolean };
    expect(file.documents.map((d) => d.static)).toEqual([true, undefined]);
    expect(file.staticManifests).toBeUndefined();
    workspace.setState({ docs: [], selectedId: null });
    const r = readWorkspaceFile(file);
    if (!r.ok) throw new Error(r.error);
    openWorkspaceFile(r.workspace);
    expect(workspace.getState().docs.map((d) => !!d.static)).toEqual([true, false]);

    workspace.getState().setStaticManifests(true);
    const all = readWorkspaceFile(JSON.parse(JSON.stringify(currentWorkspaceFile('workspace'))));
    if (!all.ok) throw new Error(all.error);
    expect(all.workspace.staticManifests).toBe(true);
    const old = readWorkspaceFile({ format: 'admission-workbench/workspace', version: 1, documents: [{ text: API }] });
    if (!old.ok) throw new Error(old.error);
    openWorkspaceFile(old.workspace);
    expect(workspace.getState().staticManifests).toBe(false);
    expect(workspace.getState().docs[0]!.static).toBeUndefined();
  });

  it('flags survive the autosave', async () => {
    const ws = createWorkspace({ docs: [], selectedId: null });
    const [id] = ws.getState().importText(VWC, 'test');
    ws.getState().setDocStatic(id!, true);
    ws.getState().setStaticManifests(true);
    const db = memoryStorage();
    db.setItem('admission-workbench:workspace', serialize(ws.getState()));
    const { saved } = await restoreWorkspace(storageBackend(db, 'admission-workbench:workspace'), memoryStorage());
    expect(saved?.staticManifests).toBe(true);
    expect(saved?.docs[0]?.static).toBe(true);
  });
});
