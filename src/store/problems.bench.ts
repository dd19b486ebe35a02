/**
 * The keystroke case in the store, without a browser: a form edit of one webhook of a
 * 200-webhook configuration, then the problems as the views ask for them on that update
 * (the sidebar, the form and problems list, the YAML markers: three docProblems calls).
 * With the real CEL engine (in-process) behind the workspace's cached compiler.
 */
import { bench, describe } from 'vitest';
import { createCachedCompiler, loadCel } from '../cel';
import { docFromObject, withObject, type WorkspaceDoc } from './documents';
import { docProblems, setCelCompiler } from './problems';
import { NAMESPACE_NAME_LABEL } from '../k8s/resources';

await loadCel();
setCelCompiler(createCachedCompiler(() => {}));

const webhook = (i: number) => ({
  name: `w${i}.bench.example.com`,
  clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/validate' } },
  rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/status'] }],
  namespaceSelector: { matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'NotIn', values: ['kube-system'] }] },
  sideEffects: 'None',
  timeoutSeconds: 5,
  admissionReviewVersions: ['v1'],
  matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
});
const object = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'bench' },
  webhooks: Array.from({ length: 200 }, (_, i) => webhook(i)),
};

let doc: WorkspaceDoc = docFromObject(object);
let docs = [doc];
let n = 0;

describe('problems', () => {
  bench(
    'keystroke at 200 webhooks: form edit → problems for sidebar, form and YAML markers',
    () => {
      const o = doc.object as typeof object;
      const hooks = o.webhooks.slice();
      hooks[100] = { ...hooks[100]!, timeoutSeconds: n++ % 2 ? 5 : 45 };
      doc = withObject(doc, { ...o, webhooks: hooks });
      docs = [doc];
      let errors = 0;
      for (let view = 0; view < 3; view++) errors += docProblems(doc, docs).errors;
      if (errors !== (n % 2 ? 3 : 0)) throw new Error(`unexpected problem count ${errors} at edit ${n}`);
    },
    { time: 4000, warmupIterations: 20 },
  );
});
