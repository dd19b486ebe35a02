import { beforeEach, describe, expect, it, vi } from 'vitest';
import { orderFields } from '../k8s';

// Count serializations: a form edit must not serialize; the first read of the text does, once.
const serialized = vi.hoisted(() => ({ count: 0 }));
vi.mock('../yaml', async (importOriginal) => {
  const yaml = await importOriginal<typeof import('../yaml')>();
  return {
    ...yaml,
    serializeDocuments: (...args: Parameters<typeof yaml.serializeDocuments>) => {
      serialized.count++;
      return yaml.serializeDocuments(...args);
    },
  };
});

const { docFromObject, editObject, toText, withObject, withText } = await import('./documents');
const { serialize } = await import('./persist');
const { serializeDocuments } = await import('../yaml');

const TYPED = `# typed by the user
kind: ValidatingWebhookConfiguration
apiVersion: admissionregistration.k8s.io/v1
metadata: {name: demo}
webhooks:
- name: a.example.com
  sideEffects: None
`;

const edited = (o: unknown, timeoutSeconds: number) => {
  const obj = o as { webhooks: object[] };
  return { ...obj, webhooks: [{ ...obj.webhooks[0], timeoutSeconds }] };
};

describe('document text', () => {
  beforeEach(() => {
    serialized.count = 0;
  });

  it('a YAML keystroke keeps the identity of what it did not touch (per-webhook memos are found again)', () => {
    const text = `${TYPED}- name: b.example.com\n  sideEffects: None\n  timeoutSeconds: 5\n`;
    const doc = withText(docFromObject(undefined, 'paste', ''), text);
    const next = withText(doc, text.replace('timeoutSeconds: 5', 'timeoutSeconds: 55'));
    const [a, b] = (next.object as { webhooks: object[] }).webhooks;
    const before = (doc.object as { webhooks: object[] }).webhooks;
    expect(a).toBe(before[0]);
    expect(b).not.toBe(before[1]);
    expect(b).toEqual({ name: 'b.example.com', sideEffects: 'None', timeoutSeconds: 55 });
  });

  it('keeps typed text exactly as typed', () => {
    const doc = withText(docFromObject(undefined, 'paste', ''), TYPED);
    expect(doc.text).toBe(TYPED);
    expect(serialized.count).toBe(0);
  });

  it('writes a form edit into the typed text as the smallest edit: comments, order and flow style stay, nothing is serialized', () => {
    const typed = withText(docFromObject(undefined, 'paste', ''), TYPED);
    const next = edited(typed.object, 7);
    const doc = withObject(typed, next);
    expect(doc.text).toBe(`${TYPED}  timeoutSeconds: 7\n`);
    expect(doc.object).toBe(next);
    expect(serialized.count).toBe(0);
    // the next keystroke changes that one line
    const again = withObject(doc, edited(doc.object, 30));
    expect(again.text).toBe(`${TYPED}  timeoutSeconds: 30\n`);
    // a text that does not parse is never replaced: the edit is refused, with the reason
    const broken = withText(doc, 'metadata: [');
    const refused = editObject(broken, edited(doc.object, 5));
    expect(refused.doc).toBe(broken);
    expect(refused.refused).toMatch(/does not parse/);
  });

  it('generates the text of a form edit on a generated document on first read, once, in API key order', () => {
    const generated = docFromObject({ kind: 'ValidatingWebhookConfiguration', apiVersion: 'admissionregistration.k8s.io/v1', metadata: { name: 'x' } });
    const next = { ...(generated.object as object), webhooks: [] };
    const doc = withObject(generated, next);
    expect(serialized.count).toBe(0);
    const text = doc.text;
    expect(serialized.count).toBe(1);
    expect(text).toBe(serializeDocuments([orderFields(next)]));
    expect(text).toBe(toText(doc.object));
    expect(text.startsWith('apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n')).toBe(true);
    serialized.count = 0;
    expect(doc.text).toBe(text);
    expect({ ...doc }.text).toBe(text);
    expect(JSON.parse(JSON.stringify(doc)).text).toBe(text);
    expect(serialized.count).toBe(0);
  });

  it('typing after a form edit keeps what was typed, and does not serialize the object it replaces', () => {
    const doc = withObject(docFromObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'y' },
    });
    const typed = withText(doc, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: z}  # mine\n');
    expect(serialized.count).toBe(0);
    expect(typed.text).toBe('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: z}  # mine\n');
    expect(typed.id).toBe(doc.id);
    expect((typed.object as { metadata: { name: string } }).metadata.name).toBe('z');
    // a text that does not parse keeps the last good object, and the text as typed
    const broken = withText(withObject(typed, typed.object), 'metadata: [');
    expect(broken.text).toBe('metadata: [');
    expect(broken.error).toBeDefined();
    expect(broken.object).toEqual(typed.object);
  });

  it('a template document generates its text when read, and saves it as it reads', () => {
    const doc = docFromObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } }, 'template');
    expect(serialized.count).toBe(0);
    const saved = JSON.parse(serialize({ docs: [doc], selectedId: doc.id })) as { docs: { text: string }[] };
    expect(saved.docs[0]!.text).toBe('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n');
    expect(doc.text).toBe(saved.docs[0]!.text);
    expect(serialized.count).toBe(1);
  });
});
