/**
 * The store's problems follow edits of other documents (G03, G04, P15 read other documents'
 * matchConstraints and webhook rules), group identical findings, and tell kinds that are not
 * checked apart. Store functions only; the real core underneath.
 */
import { describe, expect, it } from 'vitest';
import { docFromObject, docPositions, hasKeptParse, importText, withObject, withText, type WorkspaceDoc } from './documents';
import { createWorkspace } from './workspace';
import { parseDocuments } from '../yaml';
import { docProblems, groupProblems, type Problem } from './problems';
import { checkObject } from '../check';
import { binding, checkedData, map as mapOf, mwc as mwcOf, randomDoc, vap } from '../check/test-helpers';
import { seededRandom } from '../base/random';

const VAP = vap('v', ['pods']);
const BINDING = binding('ValidatingAdmissionPolicyBinding', 'b', 'v');
const map = (resources: string[]) => mapOf('m', resources);
const mwc = (resources: string[]) => mwcOf('h', resources);
const ids = (doc: WorkspaceDoc, docs: WorkspaceDoc[]) => docProblems(doc, docs, '1.36').lints.map((l) => l.id);

describe('docProblems follows edits of other documents', () => {
  it('G03 goes, G04 comes, P15 comes and goes as other documents change', () => {
    const v = docFromObject(VAP);
    const b = docFromObject(BINDING);
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
    const narrowed = withObject(v, vap('v', ['configmaps']));
    expect(ids(b, [narrowed, b, m, h])).not.toContain('P15');
  });
});

describe('groupProblems', () => {
  const p = (label: string, field: string, level: Problem['level'] = 'warning'): Problem => ({ label, field, level, message: `${label} at ${field}` });
  it('one line for three or more of one rule and field pattern, in the place of the first', () => {
    const items = [
      p('Invalid', 'webhooks[0].name', 'error'),
      ...Array.from({ length: 5 }, (_, i) => p('W10', `webhooks[${i}].timeoutSeconds`)),
      p('W01', 'webhooks[0].namespaceSelector'),
      p('W01', 'webhooks[1].namespaceSelector'),
    ];
    const lines = groupProblems(items);
    expect(lines.map((l) => ('group' in l ? `${l.group.label}×${l.group.items.length} ${l.group.field}` : l.problem.field))).toEqual([
      'webhooks[0].name',
      'W10×5 webhooks[*].timeoutSeconds',
      'webhooks[0].namespaceSelector',
      'webhooks[1].namespaceSelector',
    ]);
  });
  it('three problems of one field of one element stay lines of their own (a group reads as many elements)', () => {
    const url = (m: string): Problem => ({ label: 'Invalid', field: 'webhooks[0].clientConfig.url', level: 'error', message: m });
    const lines = groupProblems([url('scheme'), url('query'), url('fragment')]);
    expect(lines.map((l) => ('group' in l ? 'group' : l.problem.message))).toEqual(['scheme', 'query', 'fragment']);
  });
});

describe('kinds that are not checked', () => {
  it('say so (checked: false) and get no validation or findings', () => {
    const cm = docFromObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'caf\uFFFD' }, data: { a: 'b' } });
    const r = docProblems(cm, [cm], '1.36');
    expect(r).toMatchObject({ checked: false, errors: 0, warnings: 0, lints: [] });
    expect(docProblems(docFromObject(VAP), [], '1.36').checked).toBe(true);
  });
  it("still get the request size limit: over 3 MiB is the apiserver's error", () => {
    const big = docFromObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(3.5 * 1024 * 1024) } });
    expect(docProblems(big, [big], '1.36')).toMatchObject({
      checked: false,
      errors: 1,
      items: [{ level: 'error', message: 'Request entity too large: limit is 3145728' }],
    });
  });
});

describe('freshness (property): docProblems after random edits equals a from-scratch check', () => {
  it.each([11, 12, 13])('seed %i: 100 random edits across 5 documents', (seed) => {
    const r = seededRandom(seed);
    let docs = Array.from({ length: 5 }, () => docFromObject(randomDoc(r)));
    for (let step = 0; step < 100; step++) {
      const i = Math.floor(r() * docs.length);
      docs = docs.slice();
      docs[i] = withObject(docs[i]!, randomDoc(r));
      const objects = docs.map((d) => d.object);
      for (const d of docs) {
        const fresh = checkObject(d.object, objects, { kubernetesVersion: '1.36' });
        const p = docProblems(d, docs, '1.36');
        expect({ step, ...(checkedData(d.object, objects, p) as object) }).toEqual({ step, ...(checkedData(d.object, objects, fresh) as object) });
      }
    }
  });
});

describe('freshness (property): typed and form edits of a webhook configuration, read in part, equal a from-scratch parse and check', () => {
  /** 12 webhooks: one endpoint (W23 across them), timeouts over the default (W10), a CEL condition. */
  const hook = (i: number) =>
    [
      `- name: w${i}.example.com`,
      '  clientConfig:',
      '    service: {namespace: ns, name: svc, path: /validate}',
      '  rules:',
      `  - {operations: [CREATE], apiGroups: [''], apiVersions: [v1], resources: [${i % 3 ? 'pods' : 'configmaps'}]}`,
      '  sideEffects: None',
      `  timeoutSeconds: ${(i * 7) % 40}`,
      '  admissionReviewVersions: [v1]',
      ...(i % 4 === 0
        ? ['  failurePolicy: Fail', '  matchConditions:', '  - name: c', '    expression: "!request.userInfo.username.startsWith(\'system:\')"']
        : []),
    ].join('\n');
  const TEXT = `apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: fresh\nwebhooks:\n${Array.from({ length: 12 }, (_, i) => hook(i)).join('\n')}\n`;
  const PIECES = ['5', '0', 'x', ' ', '\n', ': ', '- ', '#', '"', 'Fail', 'None', '[', '\n  timeoutSeconds: 3'];

  it.each([21, 22, 23])(
    'seed %i: 60 keystrokes and form edits',
    (seed) => {
      const r = seededRandom(seed);
      let good = importText(TEXT, 'fresh.yaml').docs[0]!;
      docPositions(good); // as the YAML pane does: its parse is what the next keystroke is read from
      for (let step = 0; step < 60; step++) {
        // a text that does not parse is checked, then undone: the next edit starts from the last good one
        let doc = good;
        if (r() < 0.7) {
          const at = Math.floor(r() * doc.text.length);
          const text =
            r() < 0.6 ? doc.text.slice(0, at) + PIECES[Math.floor(r() * PIECES.length)]! + doc.text.slice(at) : doc.text.slice(0, at) + doc.text.slice(at + 1);
          doc = withText(doc, text);
        } else {
          const o = doc.object as { webhooks: Record<string, unknown>[]; metadata: Record<string, unknown> };
          const i = Math.floor(r() * o.webhooks.length);
          const next =
            r() < 0.3
              ? { ...o, metadata: { ...o.metadata, name: `fresh-${step}` } }
              : { ...o, webhooks: o.webhooks.map((w, k) => (k === i ? { ...w, timeoutSeconds: Math.floor(r() * 40) } : w)) };
          doc = withObject(doc, next);
        }
        const whole = parseDocuments(doc.text);
        if (!doc.error) {
          // the document reads as its text does, and its positions are the text's
          expect(whole.errors, `step ${step}`).toEqual([]);
          expect(doc.object, `step ${step}`).toEqual(whole.documents[0]!.object);
          expect(doc.yamlWarnings ?? [], `step ${step}`).toEqual(whole.warnings);
          for (const path of ['metadata.name', 'webhooks[3].timeoutSeconds', 'webhooks[11].clientConfig.service', 'webhooks[8].matchConditions[0].expression'])
            expect(docPositions(doc)?.positionOf(path), `step ${step} ${path}`).toEqual(whole.documents[0]!.positions.positionOf(path));
        } else expect(whole.errors.length + (whole.documents.length === 1 ? 0 : 1), `step ${step}`).toBeGreaterThan(0);
        const fresh = checkObject(doc.object, [doc.object], { kubernetesVersion: '1.36' });
        const p = docProblems(doc, [doc], '1.36');
        expect({ step, ...(checkedData(doc.object, [doc.object], p) as object) }).toEqual({
          step,
          ...(checkedData(doc.object, [doc.object], fresh) as object),
        });
        if (!doc.error) good = doc;
      }
    },
    60_000,
  );

  it.each([31, 32, 33])(
    'seed %i: undo and redo of keystrokes and form edits read the restored text in part from the one on screen',
    (seed) => {
      const r = seededRandom(seed);
      const first = importText(TEXT, 'fresh.yaml').docs[0]!;
      docPositions(first);
      const ws = createWorkspace({ docs: [first], selectedId: first.id });
      let carried = 0;
      for (let step = 0; step < 50; step++) {
        const doc = ws.getState().docs[0]!;
        const pick = r();
        if (pick < 0.4 && !doc.error) {
          // (a keystroke inside one webhook: a digit of a timeout)
          const at = doc.text.indexOf('timeoutSeconds: ', Math.floor(r() * doc.text.length));
          const from = at < 0 ? doc.text.indexOf('timeoutSeconds: ') : at;
          ws.getState().setText(doc.id, doc.text.slice(0, from + 16) + String(Math.floor(r() * 9) + 1) + doc.text.slice(from + 16));
        } else if (pick < 0.6 && !doc.error) ws.getState().setField(doc.id, ['webhooks', Math.floor(r() * 12), 'timeoutSeconds'], Math.floor(r() * 40));
        else if (pick < 0.85) {
          ws.getState().undo();
          if (ws.getState().docs[0] !== doc && hasKeptParse(ws.getState().docs[0]!)) carried++;
        } else ws.getState().redo();
        const d = ws.getState().docs[0]!;
        if (d.error) continue;
        const whole = parseDocuments(d.text);
        expect(d.object, `step ${step}`).toEqual(whole.documents[0]!.object);
        for (const path of ['metadata.name', 'webhooks[3].timeoutSeconds', 'webhooks[11].clientConfig.service', 'webhooks[8].matchConditions[0].expression'])
          expect(docPositions(d)?.positionOf(path), `step ${step} ${path}`).toEqual(whole.documents[0]!.positions.positionOf(path));
        const fresh = checkObject(d.object, [d.object], { kubernetesVersion: '1.36' });
        const p = docProblems(d, [d], '1.36');
        expect({ step, ...(checkedData(d.object, [d.object], p) as object) }).toEqual({ step, ...(checkedData(d.object, [d.object], fresh) as object) });
      }
      // Undo found the restored text's parse at hand (read in part), not only a whole parse later.
      expect(carried).toBeGreaterThan(0);
    },
    60_000,
  );
});
