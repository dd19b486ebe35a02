/**
 * A form keystroke on a document whose YAML is the user's own text (imported or typed), at 200
 * webhooks: the edit is written into the text (applyEdits), then the problems the sidebar, the
 * form and the YAML markers read. Budget: 16 ms (one frame), as problems.bench.ts for a
 * generated text.
 */
import { bench, describe } from 'vitest';
import { serializeDocuments } from '../yaml';
import { docFromObject, withObject, withText, type WorkspaceDoc } from './documents';
import { docProblems } from './problems';

const webhook = (i: number) => ({
  name: `hook-${i}.example.com`,
  clientConfig: { service: { namespace: 'hooks', name: `svc-${i}`, path: '/validate' } },
  rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
  failurePolicy: 'Ignore',
  sideEffects: 'None',
  timeoutSeconds: 5,
  admissionReviewVersions: ['v1'],
});
const object = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'bench' },
  webhooks: Array.from({ length: 200 }, (_, i) => webhook(i)),
};
const typed = `# the user's file\n${serializeDocuments([object])}`;

let doc: WorkspaceDoc = withText(docFromObject(undefined, 'paste', ''), typed);
let n = 0;

describe("form keystroke, 200 webhooks, the user's text", () => {
  bench(
    'form edit written into the text',
    () => {
      const o = doc.object as typeof object;
      const hooks = o.webhooks.slice();
      hooks[100] = { ...hooks[100]!, timeoutSeconds: n++ % 2 ? 5 : 15 };
      doc = withObject(doc, { ...o, webhooks: hooks });
      if (!doc.text.includes('timeoutSeconds: 15') === (n % 2 === 1)) throw new Error('edit not written');
    },
    { warmupIterations: 10 },
  );
  bench(
    'form edit written into the text → problems for sidebar, form and YAML markers',
    () => {
      const o = doc.object as typeof object;
      const hooks = o.webhooks.slice();
      hooks[100] = { ...hooks[100]!, timeoutSeconds: n++ % 2 ? 5 : 45 };
      doc = withObject(doc, { ...o, webhooks: hooks });
      const docs = [doc];
      for (let view = 0; view < 3; view++) docProblems(doc, docs);
    },
    { warmupIterations: 10 },
  );
});
