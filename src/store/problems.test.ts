/**
 * One pass per document change: docProblems is shared (the same object until the document,
 * the workspace key or the CEL answers it waited for change), and a CEL answer re-validates
 * only the documents that were waiting for one. Real CEL engine (WebAssembly, in-process).
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { compile, createCachedCompiler } from '../cel';
import { docFromObject, withObject } from './documents';
import { celAnswered, docProblems, setCelCompiler } from './problems';

const hasWasm = existsSync('public/cel/cel.wasm');

const hook = (expression?: string) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'hooks' },
  webhooks: [
    {
      name: 'a.example.com',
      clientConfig: { url: 'https://a.example.com/' },
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      ...(expression ? { matchConditions: [{ name: 'c', expression }] } : {}),
    },
  ],
});

describe('docProblems is computed once per document change', () => {
  afterAll(() => setCelCompiler(undefined));
  it('returns the same object for an unchanged document, a new one after an edit', () => {
    const a = docFromObject(hook());
    const b = docFromObject({ ...hook(), metadata: { name: 'other' } });
    const docs = [a, b];
    const first = docProblems(a, docs);
    expect(docProblems(a, docs)).toBe(first);
    const edited = withObject(b, { ...hook(), metadata: { name: 'other' }, webhooks: [] });
    expect(docProblems(a, [a, edited])).toBe(first);
    expect(docProblems(edited, [a, edited])).not.toBe(docProblems(b, docs));
  });

  it.runIf(hasWasm)(
    'a CEL answer re-validates only the documents waiting for it',
    async () => {
      let answered!: () => void;
      const arrived = new Promise<void>((r) => (answered = r));
      // asked through the engine's asynchronous compile: the synchronous in-process engine answers at
      // once when an earlier test file in the same worker loaded it
      setCelCompiler(createCachedCompiler(() => answered(), undefined, { compile }));
      const plain = docFromObject(hook());
      const withCel = docFromObject(hook('request.userInfo.username +'));
      const docs = [plain, withCel];
      const plainBefore = docProblems(plain, docs);
      // The engine has not answered yet: no CEL error for now.
      expect(docProblems(withCel, docs).fields.map((e) => e.field)).toEqual([]);
      await arrived;
      celAnswered();
      expect(docProblems(plain, docs)).toBe(plainBefore);
      expect(docProblems(withCel, docs).fields.map((e) => e.field)).toEqual(['webhooks[0].matchConditions[0].expression']);
    },
    60_000,
  );
});
