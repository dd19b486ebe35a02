/**
 * Export keeps bytes: an untouched import exports byte-identical; a form edit, a quick fix
 * and Convert to v1 change only their own lines; reordering and stripping are explicit.
 */
import { describe, expect, it } from 'vitest';
import { readFixture } from '../../fixtures';
import { createWorkspace, workspace } from './workspace';
import { previewFix } from './fixes';
import type { Fix } from '../k8s';
import { exportDocs } from './export';
import { docProblems } from './problems';
import { docPositions } from './documents';
import { diffLines } from '../yaml/line-diff';
import { parseDocuments } from '../yaml';
import { restoreWorkspace, serialize, storageBackend } from './persist';
import { currentWorkspaceFile, openWorkspaceFile } from './share';
import { parseWorkspaceFile } from '../share';

const CERT_MANAGER = readFixture('realworld', '01-cert-manager-webhooks.yaml');

const SERVICE = `--- # the service the webhook calls
# kept read-only
apiVersion: v1
kind: Service
metadata:
  name: webhook
spec:
  ports:
  -   port: 443
      targetPort: "https"
`;

const OLD = `# an old one
apiVersion: admissionregistration.k8s.io/v1beta1
kind: ValidatingWebhookConfiguration
metadata:
  name: old   # keep me
webhooks:
- name: old.example.com
  clientConfig: {url: "https://old.example.com/"}
  rules: [{operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"]}]
  sideEffects: None
`;

const store = () => createWorkspace({ docs: [], selectedId: null });
const changed = (a: string, b: string) => diffLines(a, b).filter((l) => l.op !== ' ');

describe('export keeps bytes', () => {
  it('an untouched multi-document file (comments, ---, a read-only kind, quotes) exports byte-identical', () => {
    const ws = store();
    const input = `${CERT_MANAGER}${SERVICE}---\n# comments only\n---\n${OLD}---\n# a trailing comment\n`;
    ws.getState().importText(input, 'all.yaml');
    expect(ws.getState().docs).toHaveLength(4);
    expect(exportDocs(ws.getState().docs).text).toBe(input);
    // one document alone is its own text
    expect(exportDocs([ws.getState().docs[1]!]).text).toBe(CERT_MANAGER.slice(CERT_MANAGER.indexOf('---\n')));
  });

  it('a document that does not parse is exported as written: an untouched file stays byte-identical; JSON leaves it out', () => {
    const ws = store();
    // a broken flow list, and a document of a tab alone (kubectl refuses both)
    const input = `${SERVICE}---\nkind: Broken\nlist: [1, 2\n---\n\t\n---\n${OLD}`;
    ws.getState().importText(input, 'broken.yaml');
    const { docs } = ws.getState();
    expect(docs.map((d) => d.object === undefined)).toEqual([false, true, true, false]);
    const out = exportDocs(docs);
    expect(out.text).toBe(input);
    expect(out.unparsed).toEqual([docs[1], docs[2]]);
    expect(out.stale).toEqual([]);
    const json = exportDocs(docs, { format: 'json' });
    expect(JSON.parse(json.text).items).toHaveLength(2);
    expect(json.unparsed).toHaveLength(2);
  });

  it('a BOM stays before the first document: out of its text (positions as the YAML pane counts them), back on export', () => {
    const ws = store();
    const first = 'kind: ConfigMap\napiVersion: v1\nmetadata: {name: cm}\n';
    const input = `\ufeff${first}---\n${SERVICE}`;
    ws.getState().importText(input, 'bom.yaml');
    const [cm] = ws.getState().docs;
    expect(cm!.text).toBe(first);
    expect(docPositions(cm!)?.positionOf('kind').key).toMatchObject({ startLine: 1, startColumn: 1, startOffset: 0 });
    expect(exportDocs(ws.getState().docs).text).toBe(input);
    // an edit of the first line keeps the BOM, and so does a workspace file (autosave, share links)
    ws.getState().setField(cm!.id, ['kind'], 'Secret');
    const edited = input.replace('kind: ConfigMap', 'kind: Secret');
    expect(exportDocs(ws.getState().docs).text).toBe(edited);
    workspace.getState().replaceAll(ws.getState().docs);
    const file = parseWorkspaceFile(JSON.stringify(currentWorkspaceFile('workspace')));
    if (!file.ok) throw new Error(file.error);
    openWorkspaceFile(file.workspace);
    expect(exportDocs(workspace.getState().docs).text).toBe(edited);
  });

  it('a form edit and a quick fix change only their lines; undo is one step each', () => {
    const ws = store();
    ws.getState().importText(CERT_MANAGER + SERVICE, 'cm.yaml');
    const [vwc] = ws.getState().docs;
    ws.getState().setField(vwc!.id, ['webhooks', 0, 'timeoutSeconds'], 5);
    const afterForm = exportDocs(ws.getState().docs).text;
    expect(changed(CERT_MANAGER + SERVICE, afterForm)).toEqual([
      { op: '-', text: '    timeoutSeconds: 30' },
      { op: '+', text: '    timeoutSeconds: 5' },
    ]);
    const doc = ws.getState().docs[0]!;
    const fix = docProblems(doc, ws.getState().docs)
      .items.flatMap((p) => p.fixes ?? [])
      .find((f) => /fail open|failurePolicy/i.test(f.title));
    expect(
      fix,
      docProblems(doc, ws.getState().docs)
        .items.map((p) => `${p.label} ${p.fixes?.map((f) => f.title)}`)
        .join('\n'),
    ).toBeDefined();
    ws.getState().applyFix(doc.id, fix!);
    const afterFix = exportDocs(ws.getState().docs).text;
    const lines = changed(afterForm, afterFix);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(4);
    expect(afterFix).toContain('# Source: https://github.com/cert-manager/cert-manager');
    expect(afterFix).toContain('targetPort: "https"');
    ws.getState().undo();
    expect(exportDocs(ws.getState().docs).text).toBe(afterForm);
    ws.getState().undo();
    expect(exportDocs(ws.getState().docs).text).toBe(CERT_MANAGER + SERVICE);
  });

  it('Convert to v1 writes the version and the old defaults, and keeps the comments and flow style', () => {
    const ws = store();
    ws.getState().importText(OLD, 'old.yaml');
    ws.getState().convertToV1(ws.getState().docs[0]!.id);
    const text = ws.getState().docs[0]!.text;
    expect(text).toContain('apiVersion: admissionregistration.k8s.io/v1\n');
    expect(text).toContain('name: old   # keep me');
    expect(text).toContain('rules: [{operations: ["CREATE"]');
    expect(text).toContain('# an old one');
    const removed = changed(OLD, text).filter((l) => l.op === '-');
    expect(removed).toEqual([{ op: '-', text: 'apiVersion: admissionregistration.k8s.io/v1beta1' }]);
  });

  it('reordering keys, stripping server fields and JSON are explicit options', () => {
    const ws = store();
    ws.getState().importText(OLD, 'old.yaml');
    const ordered = exportDocs(ws.getState().docs, { reorderKeys: true }).text;
    expect(ordered.startsWith('apiVersion:')).toBe(true);
    expect(ordered).not.toContain('#');
    const json = exportDocs(ws.getState().docs, { format: 'json' }).text;
    expect(JSON.parse(json)).toEqual(parseDocuments(OLD).documents[0]!.object);
  });

  it('a form edit while the YAML does not parse is refused, with a notice; the text stays', () => {
    const ws = store();
    ws.getState().importText(OLD, 'old.yaml');
    const id = ws.getState().docs[0]!.id;
    ws.getState().setText(id, `${OLD}webhooks: [`);
    const broken = ws.getState().docs[0]!.text;
    ws.getState().setField(id, ['metadata', 'name'], 'new');
    expect(ws.getState().docs[0]!.text).toBe(broken);
    expect(ws.getState().notices.at(-1)?.text).toMatch(/does not parse/);
  });

  it('the fix preview is the diff applying writes, or why it cannot be written', () => {
    const fix: Fix = {
      title: 'Set timeoutSeconds: 5',
      apply: (o) => ({ object: { ...(o as object), webhooks: [{ ...(o as { webhooks: object[] }).webhooks[0], timeoutSeconds: 5 }] } }),
    };
    workspace.getState().replaceAll([]);
    const [id] = workspace.getState().importText(OLD, 'old.yaml');
    const preview = previewFix(id!, fix)!;
    expect(preview.hunks.filter((l) => l !== '…' && l.op !== ' ')).toEqual([{ op: '+', text: '  timeoutSeconds: 5' }]);
    workspace.getState().setText(id!, `${OLD}webhooks: [`);
    const refused = previewFix(id!, fix)!;
    expect(refused.refused).toMatch(/does not parse/);
    workspace.getState().applyFix(id!, fix);
    expect(workspace.getState().docs[0]!.text).toBe(`${OLD}webhooks: [`);
  });

  // `kubectl get validatingwebhookconfigurations,services -o yaml`, with a user's comments added
  const LIST = `# kubectl get validatingwebhookconfigurations,services -o yaml
apiVersion: v1
items:
# ours
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingWebhookConfiguration
  metadata:
    name: policy-webhook   # owned by the platform team
  webhooks:
  - admissionReviewVersions: ["v1"]
    clientConfig: {service: {name: policy, namespace: policy, port: 443}}
    failurePolicy: Fail
    name: policy.example.com
    rules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
    sideEffects: None
    timeoutSeconds: 10
- apiVersion: v1
  kind: Service
  metadata:
    name: policy
    namespace: policy
  spec:
    ports:
    - port: 443
      targetPort: "https"
kind: List
metadata:
  resourceVersion: ""
`;

  it('an untouched List exports byte-identical; each item is its own text in the YAML pane', () => {
    const ws = store();
    const input = `${OLD}---\n${LIST}`;
    ws.getState().importText(input, 'list.yaml');
    const docs = ws.getState().docs;
    expect(docs).toHaveLength(3);
    expect(
      docs[1]!.text.startsWith(
        'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: policy-webhook   # owned by the platform team\nwebhooks:\n- admissionReviewVersions: ["v1"]\n',
      ),
    ).toBe(true);
    expect(exportDocs(docs).text).toBe(input);
    // the List alone, as its own file
    expect(exportDocs(docs.slice(1)).text).toBe(`---\n${LIST}`);
  });

  it('a form edit of one List item changes only its line; a removed item leaves the List; the framing survives a reload', async () => {
    const ws = store();
    ws.getState().importText(LIST, 'list.yaml');
    const [hook, service] = ws.getState().docs;
    ws.getState().setField(hook!.id, ['webhooks', 0, 'timeoutSeconds'], 5);
    const edited = exportDocs(ws.getState().docs).text;
    expect(changed(LIST, edited)).toEqual([
      { op: '-', text: '    timeoutSeconds: 10' },
      { op: '+', text: '    timeoutSeconds: 5' },
    ]);
    expect(ws.getState().docs[0]!.text).toContain('  timeoutSeconds: 5\n');

    // after a reload (the autosaved workspace restored), the List is still written back
    const db = new Map<string, string>();
    const backend = storageBackend({ getItem: (k) => db.get(k) ?? null, setItem: (k, v) => void db.set(k, v) });
    await backend.write(serialize({ docs: ws.getState().docs, selectedId: null }));
    const { saved } = await restoreWorkspace(backend, { getItem: () => null, setItem: () => {}, removeItem: () => {} });
    expect(exportDocs(saved!.docs).text).toBe(edited);

    ws.getState().remove(service!.id);
    const without = exportDocs(ws.getState().docs).text;
    expect(parseDocuments(without).documents.map((d) => d.fromList?.kind)).toEqual(['List']);
    expect(without.startsWith('# kubectl get')).toBe(true);
    expect(without.endsWith('kind: List\nmetadata:\n  resourceVersion: ""\n')).toBe(true);
    expect(changed(edited, without).every((l) => l.op === '-')).toBe(true);
  });

  it('a List survives a share link or workspace file: its items export back into it', () => {
    workspace.getState().importText(LIST, 'list.yaml');
    workspace.getState().replaceAll(workspace.getState().docs.filter((d) => d.listItem));
    const file = parseWorkspaceFile(JSON.stringify(currentWorkspaceFile('workspace')));
    if (!file.ok) throw new Error(file.error);
    expect(file.workspace.documents.every((d) => d.listItem)).toBe(true);
    openWorkspaceFile(file.workspace);
    expect(exportDocs(workspace.getState().docs).text).toBe(LIST);
  });

  it('a List item duplicated is the next item of its List (its comment lines not repeated)', () => {
    const ws = store();
    ws.getState().importText(LIST, 'list.yaml');
    const [hook] = ws.getState().docs;
    ws.getState().duplicate(hook!.id);
    const text = exportDocs(ws.getState().docs).text;
    const names = parseDocuments(text).documents.map((d) => [d.fromList?.kind, (d.object as { metadata: { name: string } }).metadata.name]);
    expect(names).toEqual([
      ['List', 'policy-webhook'],
      ['List', 'policy-webhook-copy'],
      ['List', 'policy'],
    ]);
    expect(text.match(/# ours/g)).toHaveLength(1);
    expect(text.match(/# owned by the platform team/g)).toHaveLength(2);
  });

  it('a List item edited in the YAML pane into something the List cannot hold is exported as a document of its own', () => {
    const ws = store();
    ws.getState().importText(LIST, 'list.yaml');
    const [hook, service] = ws.getState().docs;
    // a document-start marker inside an item cannot go back under `items:`
    ws.getState().setText(hook!.id, `--- # mine\n${hook!.text}`);
    const text = exportDocs(ws.getState().docs).text;
    expect(parseDocuments(text).documents.map((d) => d.object)).toEqual([hook!.object, service!.object]);
    expect(text).toContain('# owned by the platform team');
  });
});
