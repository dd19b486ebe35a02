import { describe, expect, it } from 'vitest';
import { createWorkspace, sampleSnapshot } from './workspace';
import { exportDocs } from './export';
import { restoreWorkspace, serialize, startAutosave, storageBackend, STORAGE_KEY, UNSAVED_KEY } from './persist';
import { docProblems } from './problems';
import { parseDocuments } from '../yaml';

const VWC = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: demo
  # a comment the user wrote
webhooks:
- name: demo.example.com
  clientConfig:
    url: https://demo.example.com/validate
  sideEffects: None
  admissionReviewVersions: [v1]
  futureField: kept
`;

const store = () => createWorkspace({ docs: [], selectedId: null });

describe('workspace', () => {
  it('starts with a sample workspace whose documents all validate', () => {
    const s = sampleSnapshot();
    expect(s.docs.length).toBeGreaterThanOrEqual(4);
    for (const d of s.docs)
      expect(
        docProblems(d).fields.filter((p) => p.severity !== 'warning'),
        d.text,
      ).toEqual([]);
  });

  it('the sample and a template are texts from the start: the first edit changes one line, in place', () => {
    const lines = (a: string, b: string) => {
      const x = a.split('\n');
      const y = b.split('\n');
      expect(y.length).toBe(x.length);
      return y.flatMap((l, i) => (l === x[i] ? [] : [`${x[i]} → ${l}`]));
    };
    const ws = createWorkspace(sampleSnapshot());
    const policy = () => ws.getState().docs.find((d) => (d.object as { kind?: string }).kind === 'ValidatingAdmissionPolicy')!;
    const before = policy().text;
    expect((policy().object as { metadata: { name: string } }).metadata.name).toBe('replica-limit.example.com');
    ws.getState().setField(policy().id, ['spec', 'validations', 0, 'reason'], 'Forbidden');
    expect(lines(before, policy().text)).toEqual(['      reason: Invalid →       reason: Forbidden']);
    // a template added from the menu: the same
    ws.getState().addFromTemplate('ValidatingWebhookConfiguration');
    const added = ws.getState().docs[ws.getState().docs.length - 1]!;
    ws.getState().setField(added.id, ['webhooks', 0, 'timeoutSeconds'], 7);
    expect(lines(added.text, ws.getState().docs[ws.getState().docs.length - 1]!.text)).toEqual(['    timeoutSeconds: 5 →     timeoutSeconds: 7']);
  });

  it("imports multi-document text, keeping each object's own text, and reports what it did", () => {
    const ws = store();
    const ids = ws
      .getState()
      .importText(`${VWC}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\n`, 'three.yaml');
    expect(ids).toHaveLength(3);
    const [vwc, cm] = ws.getState().docs;
    expect(vwc.text).toContain('# a comment the user wrote');
    expect((cm.object as { kind: string }).kind).toBe('ConfigMap');
    // The ConfigMap is a param object (edited); the Service is kept read-only.
    expect(
      ws
        .getState()
        .notices.map((n) => n.text)
        .join('\n'),
    ).toMatch(/three\.yaml: 1 object\(s\) of other kinds are kept read-only/);
    expect(ws.getState().selectedId).toBe(ids[0]);
  });

  it("keeps a broken document's text as a document of its own", () => {
    const ws = store();
    ws.getState().importText(`${VWC}---\nkind: [unclosed\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\n`, 'mixed.yaml');
    const docs = ws.getState().docs;
    expect(docs).toHaveLength(3);
    const broken = docs.find((d) => d.error)!;
    expect(broken.text).toContain('kind: [unclosed');
    expect(broken.error!.line).toBeGreaterThanOrEqual(1);
    expect(ws.getState().notices.some((n) => n.level === 'error' && /mixed\.yaml: line \d+/.test(n.text))).toBe(true);
  });

  it('unwraps a List into its items', () => {
    const ws = store();
    ws.getState().importText(`apiVersion: v1\nkind: List\nitems:\n- ${VWC.split('\n').join('\n  ')}`, 'list.yaml');
    expect(ws.getState().docs).toHaveLength(1);
    expect(ws.getState().notices.some((n) => /unwrapped 1 object/.test(n.text))).toBe(true);
  });

  it('form edits regenerate the YAML; YAML edits update the object; bad YAML keeps the last good object and the text', () => {
    const ws = store();
    const [id] = ws.getState().importText(VWC, 'a.yaml');
    ws.getState().setField(id, ['webhooks', 0, 'timeoutSeconds'], 7);
    let d = ws.getState().docs[0];
    expect(d.text).toMatch(/timeoutSeconds: 7/);
    expect(d.text).toMatch(/futureField: kept/);
    // API order: timeoutSeconds sits before admissionReviewVersions, unknown fields after known ones.
    expect(d.text.indexOf('timeoutSeconds')).toBeLessThan(d.text.indexOf('admissionReviewVersions'));

    ws.getState().setText(id, d.text.replace('timeoutSeconds: 7', 'timeoutSeconds: 9'));
    d = ws.getState().docs[0];
    expect((d.object as any).webhooks[0].timeoutSeconds).toBe(9);

    const broken = d.text.replace('webhooks:', 'webhooks: [');
    ws.getState().setText(id, broken);
    d = ws.getState().docs[0];
    expect(d.text).toBe(broken);
    expect(d.error).toBeDefined();
    expect((d.object as any).webhooks[0].timeoutSeconds).toBe(9);
    expect(docProblems(d).errors).toBeGreaterThanOrEqual(1);
  });

  it('a form edit keeps the objects it did not touch (the form re-renders only what changed)', () => {
    const ws = store();
    const hook = (name: string) => ({ name, clientConfig: { url: `https://${name}/validate` }, sideEffects: 'None', admissionReviewVersions: ['v1'] });
    const object = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'two' },
      webhooks: [hook('a.example.com'), hook('b.example.com')],
    };
    const [id] = ws.getState().importText(JSON.stringify(object), 'two.json');
    const before = ws.getState().docs[0].object as any;
    // An existing field, and a new one (which the store puts in API order).
    for (const [field, value] of [
      ['timeoutSeconds', 7],
      ['failurePolicy', 'Ignore'],
    ] as const) {
      const prev = ws.getState().docs[0].object as any;
      ws.getState().setField(id, ['webhooks', 1, field], value);
      const after = ws.getState().docs[0].object as any;
      expect(after.webhooks[1][field]).toBe(value);
      expect(after.webhooks).not.toBe(prev.webhooks);
      expect(after.webhooks[0]).toBe(before.webhooks[0]);
      expect(after.webhooks[1].clientConfig).toBe(before.webhooks[1].clientConfig);
      expect(after.metadata).toBe(before.metadata);
    }
  });

  it('undoes and redoes across form and YAML edits, coalescing typing', () => {
    const ws = store();
    const [id] = ws.getState().importText(VWC, 'a.yaml');
    const t0 = ws.getState().docs[0].text;
    ws.getState().setField(id, ['webhooks', 0, 'failurePolicy'], 'Ignore');
    const t1 = ws.getState().docs[0].text;
    ws.getState().setText(id, t1 + '#1');
    ws.getState().setText(id, t1 + '#12'); // same typing burst: one undo step
    ws.getState().undo();
    expect(ws.getState().docs[0].text).toBe(t1);
    ws.getState().undo();
    expect(ws.getState().docs[0].text).toBe(t0);
    ws.getState().redo();
    expect(ws.getState().docs[0].text).toBe(t1);
    ws.getState().redo();
    expect(ws.getState().docs[0].text).toBe(t1 + '#12');
  });

  it('undo and redo show the document they change', () => {
    const ws = store();
    const [a] = ws.getState().importText(VWC, 'a.yaml');
    const [b] = ws.getState().importText(VWC.replace('name: policy-guard', 'name: other-guard'), 'b.yaml');
    ws.getState().select(a!);
    ws.getState().setField(a!, ['webhooks', 0, 'failurePolicy'], 'Ignore');
    ws.getState().select(b!);
    ws.getState().setField(b!, ['webhooks', 0, 'failurePolicy'], 'Ignore');
    ws.getState().undo(); // b's change
    expect(ws.getState().selectedId).toBe(b);
    ws.getState().undo(); // a's change
    expect(ws.getState().selectedId).toBe(a);
    ws.getState().select(b!);
    ws.getState().redo(); // a's change again: a is shown, not the document selected when it was undone
    expect(ws.getState().selectedId).toBe(a);
    ws.getState().redo();
    expect(ws.getState().selectedId).toBe(b);
  });

  it('adds from templates with unique names, duplicates, renames, reorders and deletes', () => {
    const ws = store();
    ws.getState().addFromTemplate('MutatingWebhookConfiguration');
    ws.getState().addFromTemplate('MutatingWebhookConfiguration');
    const [a, b] = ws.getState().docs;
    expect((a.object as any).metadata.name).not.toBe((b.object as any).metadata.name);
    ws.getState().insertItem(a.id, ['webhooks'], { name: 'second.example.com' });
    ws.getState().moveItem(a.id, ['webhooks'], 1, 0);
    expect((ws.getState().docs[0].object as any).webhooks.map((w: any) => w.name)).toEqual(['second.example.com', 'sidecar-injector.example.com']);
    ws.getState().removeItem(a.id, ['webhooks'], 0);
    expect((ws.getState().docs[0].object as any).webhooks).toHaveLength(1);
    ws.getState().rename(a.id, 'renamed.example.com');
    expect(ws.getState().docs[0].text).toMatch(/name: renamed.example.com/);
    ws.getState().duplicate(a.id);
    expect(ws.getState().docs).toHaveLength(3);
    expect((ws.getState().docs[1].object as any).metadata.name).toBe('renamed.example.com-copy');
    ws.getState().remove(b.id);
    expect(ws.getState().docs.map((d) => d.id)).not.toContain(b.id);
  });
});

/** A Storage in memory that refuses writes over `quota` characters, as a browser's does. */
function memoryStorage(quota = Infinity) {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => {
      const size = [...items].reduce((n, [key, val]) => n + (key === k ? 0 : key.length + val.length), 0) + k.length + v.length;
      if (size > quota) throw new DOMException('full', 'QuotaExceededError');
      items.set(k, v);
    },
    removeItem: (k: string) => void items.delete(k),
  };
}

/** Let pending timers and promise callbacks run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('autosave', () => {
  it('saves the texts and restores them, errors included', async () => {
    const ws = store();
    const [id] = ws.getState().importText(VWC, 'a.yaml');
    ws.getState().setText(id, 'webhooks: [');
    const journal = memoryStorage();
    const db = memoryStorage();
    const stop = startAutosave(ws, storageBackend(db), journal, { delayMs: 0 });
    ws.getState().select(id);
    ws.getState().addFromTemplate('ValidatingAdmissionPolicy');
    stop();
    await settle();
    expect(journal.items.has(UNSAVED_KEY)).toBe(false);
    const { saved: restored, notices } = await restoreWorkspace(storageBackend(db), journal);
    expect(notices).toEqual([]);
    expect(restored!.docs.map((d) => d.text)).toEqual(ws.getState().docs.map((d) => d.text));
    expect(restored!.docs[0].error).toBeDefined();
    expect(serialize(restored!)).toBe(serialize(ws.getState()));
    expect((await restoreWorkspace(storageBackend(memoryStorage()), memoryStorage())).saved).toBeUndefined();
    const bad = memoryStorage();
    bad.setItem(STORAGE_KEY, '{not json');
    expect((await restoreWorkspace(storageBackend(memoryStorage()), bad)).saved).toBeUndefined();
  });

  it('a commented multi-document file exports byte-identical after a reload (separators are saved)', async () => {
    const file = `# header comment: the team's webhooks\n---\n# only a comment in this document\n--- # first\n${VWC}---   # second, with spaces\n${VWC.replace('name: demo\n', 'name: demo2\n')}`;
    const ws = store();
    ws.getState().importText(file, 'team.yaml');
    expect(exportDocs(ws.getState().docs).text).toBe(file);
    const db = memoryStorage();
    const journal = memoryStorage();
    const stop = startAutosave(ws, storageBackend(db), journal, { delayMs: 0 });
    ws.getState().select(ws.getState().docs[1]!.id);
    stop();
    await settle();
    const reloaded = createWorkspace((await restoreWorkspace(storageBackend(db), journal)).saved!);
    expect(exportDocs(reloaded.getState().docs).text).toBe(file);
  });

  it('reads a workspace saved in format version 1 (no separators)', async () => {
    const db = memoryStorage();
    db.setItem('admission-workbench/workspace/v2', JSON.stringify({ version: 1, selectedId: 'd1', docs: [{ id: 'd1', text: VWC, origin: 'a.yaml' }] }));
    const { saved } = await restoreWorkspace(storageBackend(db), memoryStorage());
    expect(saved!.docs.map((d) => [d.id, d.text, d.origin, d.separator])).toEqual([['d1', VWC, 'a.yaml', undefined]]);
  });

  it('moves a workspace an earlier version left in localStorage to the backend', async () => {
    const ws = store();
    ws.getState().importText(VWC, 'a.yaml');
    const local = memoryStorage();
    local.setItem(STORAGE_KEY, serialize(ws.getState()));
    const db = memoryStorage();
    const first = await restoreWorkspace(storageBackend(db), local);
    expect(first.saved!.docs.map((d) => d.text)).toEqual(ws.getState().docs.map((d) => d.text));
    expect(local.items.has(STORAGE_KEY)).toBe(false);
    const again = await restoreWorkspace(storageBackend(db), local);
    expect(again.saved!.docs.map((d) => d.text)).toEqual(ws.getState().docs.map((d) => d.text));
  });

  it('a full storage is reported at once, and again on reload: the last changes were not saved', async () => {
    const ws = store();
    const [id] = ws.getState().importText(VWC, 'a.yaml');
    const journal = memoryStorage();
    const db = memoryStorage(4000);
    const stop = startAutosave(ws, storageBackend(db), journal, { delayMs: 0 });
    ws.getState().rename(id, 'first');
    await settle();
    await settle();
    expect(ws.getState().notices.filter((n) => n.level === 'error')).toEqual([]);
    // A change that no longer fits.
    ws.getState().setText(id, `${ws.getState().docs[0]!.text}# ${'x'.repeat(5000)}\n`);
    await settle();
    await settle();
    const failed = ws.getState().notices.filter((n) => /^Autosave failed \(QuotaExceededError\): your changes since .* are only in this tab/.test(n.text));
    expect(failed).toHaveLength(1);
    expect(failed[0]!.sticky).toBe(true);
    // The page is left: the reload restores the last save and says that the rest was not saved.
    stop();
    await settle();
    const reload = await restoreWorkspace(storageBackend(db), journal);
    expect(reload.saved!.docs[0]!.text).toMatch(/name: first/);
    expect(reload.saved!.docs[0]!.text).not.toMatch(/xxxxx/);
    expect(reload.notices.map((n) => n.text)).toEqual([
      expect.stringMatching(/^Your last changes \(since .*\) were not saved \(QuotaExceededError\): this is the workspace as it was last saved\.$/),
    ]);
    // Said once: the journal is cleared with the notice.
    expect((await restoreWorkspace(storageBackend(db), journal)).notices).toEqual([]);
  });

  it('recovers: a write that fits again clears the failure', async () => {
    const ws = store();
    const [id] = ws.getState().importText(VWC, 'a.yaml');
    const journal = memoryStorage();
    const stop = startAutosave(ws, storageBackend(memoryStorage(4000)), journal, { delayMs: 0 });
    const text = ws.getState().docs[0]!.text;
    ws.getState().setText(id, `${text}# ${'x'.repeat(5000)}\n`);
    await settle();
    await settle();
    expect(ws.getState().notices.some((n) => /^Autosave failed/.test(n.text))).toBe(true);
    ws.getState().setText(id, text);
    await settle();
    await settle();
    expect(ws.getState().notices.some((n) => /^Autosave failed/.test(n.text))).toBe(false);
    expect(ws.getState().notices.at(-1)!.text).toBe('Autosave works again: every change is saved.');
    expect(journal.items.has(UNSAVED_KEY)).toBe(false);
    stop();
  });

  it('a page left before the debounced write says so on reload', async () => {
    const ws = store();
    const [id] = ws.getState().importText(VWC, 'a.yaml');
    const journal = memoryStorage();
    const db = memoryStorage();
    startAutosave(ws, storageBackend(db), journal, { delayMs: 60_000 });
    ws.getState().rename(id, 'never-written');
    // No flush: the tab was killed.
    const reload = await restoreWorkspace(storageBackend(db), journal);
    expect(reload.saved).toBeUndefined();
    expect(reload.notices.map((n) => n.text)).toEqual([expect.stringMatching(/were not saved: nothing was saved before them\.$/)]);
  });
});

describe('the field a form edit touched', () => {
  it('is recorded for the YAML pane, with a new seq for every edit', () => {
    const ws = createWorkspace(sampleSnapshot());
    const id = ws.getState().docs[0]!.id;
    ws.getState().setField(id, ['webhooks', 0, 'timeoutSeconds'], 4);
    expect(ws.getState().edited).toEqual({ docId: id, path: ['webhooks', 0, 'timeoutSeconds'], seq: 1 });
    ws.getState().insertItem(id, ['webhooks'], { name: 'third.example.com' });
    expect(ws.getState().edited).toMatchObject({ path: ['webhooks', 2], seq: 2 });
    ws.getState().setText(id, ws.getState().docs[0]!.text);
    expect(ws.getState().edited?.seq).toBe(2);
  });
});

describe('a form edit the text refuses', () => {
  it('is recorded by its field, with a new seq for every refusal, and changes nothing', () => {
    const ws = store();
    const yaml = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: a}
webhooks:
- name: a.example.com
  clientConfig: &cc {url: "https://a.example.com/"}
  timeoutSeconds: &t 5
- name: b.example.com
  clientConfig: *cc
  timeoutSeconds: *t
`;
    const [id] = ws.getState().importText(yaml, 'a.yaml');
    // the anchor's node (its aliases would change too), then a field inside an alias
    ws.getState().setField(id!, ['webhooks', 0, 'timeoutSeconds'], 9);
    expect(ws.getState().refused).toEqual({ docId: id, path: 'webhooks[0].timeoutSeconds', seq: 1 });
    ws.getState().setField(id!, ['webhooks', 1, 'clientConfig', 'url'], 'https://b.example.com/');
    expect(ws.getState().refused).toEqual({ docId: id, path: 'webhooks[1].clientConfig.url', seq: 2 });
    ws.getState().setField(id!, ['webhooks', 0, 'timeoutSeconds'], 9);
    expect(ws.getState().refused?.seq).toBe(3);
    expect(ws.getState().docs[0]!.text).toBe(yaml);
    // an edit that is written records nothing
    ws.getState().setField(id!, ['webhooks', 0, 'name'], 'c.example.com');
    expect(ws.getState().refused?.seq).toBe(3);
  });
});

describe('empty workspace and replacing it on import', () => {
  it('New empty workspace and keepOnly are one undo step each', () => {
    const ws = createWorkspace(sampleSnapshot());
    const before = ws.getState().docs.length;
    ws.getState().clearAll();
    expect(ws.getState().docs).toEqual([]);
    expect(ws.getState().selectedId).toBeNull();
    ws.getState().undo();
    expect(ws.getState().docs).toHaveLength(before);
    const ids = ws.getState().importText(VWC, 'a.yaml');
    ws.getState().keepOnly(ids);
    expect(ws.getState().docs.map((d) => d.id)).toEqual(ids);
    ws.getState().undo();
    expect(ws.getState().docs).toHaveLength(before + 1);
  });
});

describe('export', () => {
  it('writes every field back, unknown ones included, and strips server fields on request', () => {
    const ws = store();
    ws.getState().importText(
      VWC.replace('  name: demo\n', '  name: demo\n  uid: 123\n  resourceVersion: "5"\n  managedFields: [{manager: kubectl}]\n'),
      'a.yaml',
    );
    const full = exportDocs(ws.getState().docs).text;
    const back = parseDocuments(full).documents[0].object as any;
    expect(back.webhooks[0].futureField).toBe('kept');
    expect(back.metadata.uid).toBe(123);
    const stripped = parseDocuments(exportDocs(ws.getState().docs, { stripServerFields: true }).text).documents[0].object as any;
    expect(stripped.metadata).toEqual({ name: 'demo' });
    expect(stripped.webhooks[0].futureField).toBe('kept');
    const json = JSON.parse(exportDocs(ws.getState().docs, { format: 'json' }).text);
    expect(json.kind).toBe('ValidatingWebhookConfiguration');
  });
});

describe('YAML read differently by Kubernetes', () => {
  it('warns at the field when an unquoted value changes type (yes is true, 0123 is 83)', () => {
    const ws = store();
    const [id] = ws.getState().importText(VWC.replace('  name: demo\n', '  name: demo\n  labels:\n    enabled: yes\n'), 'a.yaml');
    const p = docProblems(ws.getState().docs[0]);
    expect(p.items.filter((i) => i.label === 'YAML').map((i) => i.field)).toEqual(['metadata.labels[enabled]']);
    ws.getState().setText(id, ws.getState().docs[0].text.replace('enabled: yes', 'enabled: "yes"'));
    expect(docProblems(ws.getState().docs[0]).items.filter((i) => i.label === 'YAML')).toEqual([]);
  });
});
