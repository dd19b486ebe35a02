import { beforeAll, describe, expect, test } from 'vitest';
import { loadCel } from '../cel/index';
import { REQUEST_TEMPLATES, toDraft } from '../request';
import { docFromObject } from './documents';
import { docOfRef, runLockout, runScenarios, runSimulation, scenarioOf, unstoredDocuments, webhooksOf } from './simulator';

const guard = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'pod-guard' },
  webhooks: [
    {
      name: 'pods.guard.example.com',
      clientConfig: { service: { namespace: 'guard', name: 'guard', path: '/validate' } },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      failurePolicy: 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    },
  ],
};
const docs = [docFromObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } }), docFromObject(guard)];
const createPod = toDraft(REQUEST_TEMPLATES.find((t) => t.id === 'create-pod')!.input);

describe('simulator store', () => {
  beforeAll(async () => {
    await loadCel();
  }, 60_000);

  test('the workspace webhooks, keyed by name, with their document and field', () => {
    expect(webhooksOf(docs)).toEqual([
      { name: 'pods.guard.example.com', kind: 'ValidatingWebhookConfiguration', configuration: 'pod-guard', docId: docs[1].id, path: 'webhooks[0].name' },
    ]);
  });

  test('a run: allowed by default, denied when the webhook is unavailable; the step refers to the webhook document', async () => {
    const ok = await runSimulation(docs, { input: createPod, webhooks: {} });
    expect(ok.ok && ok.result.allowed).toBe(true);
    const down = await runSimulation(docs, { input: createPod, webhooks: { 'pods.guard.example.com': { response: 'unavailable', patch: '', warnings: '' } } });
    if (!down.ok) throw new Error('did not run');
    expect(down.result.allowed).toBe(false);
    const step = down.result.steps.find((s) => s.webhook === 'pods.guard.example.com')!;
    expect(docOfRef(docs, step.document)?.id).toBe(docs[1].id);
  });

  test('a patch response changes the object, and the diff shows it', async () => {
    const labeler = {
      ...guard,
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'labeler' },
      webhooks: [{ ...guard.webhooks[0], name: 'labels.example.com', reinvocationPolicy: 'Never' }],
    };
    const ws = [docFromObject(labeler)];
    const patch = '[{"op": "add", "path": "/metadata/labels/team", "value": "a"}]';
    const r = await runSimulation(ws, { input: createPod, webhooks: { 'labels.example.com': { response: 'patch', patch, warnings: '' } } });
    if (!r.ok) throw new Error('did not run');
    expect(r.result.allowed).toBe(true);
    expect(r.diff).toEqual([{ op: 'add', path: '/metadata/labels/team', after: 'a' }]);
    expect(r.result.patches[0].by).toBe('labels.example.com');
  });

  test('a run and a saved scenario carry M06: a validator the mutation breaks, linked to its document', async () => {
    const labeler = {
      ...guard,
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'labeler' },
      webhooks: [{ ...guard.webhooks[0], name: 'labels.example.com', reinvocationPolicy: 'Never' }],
    };
    const noDebug = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'no-debug' },
      spec: {
        matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
        validations: [{ expression: "!has(object.metadata.labels) || !('debug' in object.metadata.labels)" }],
      },
    };
    const noDebugBinding = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'no-debug' },
      spec: { policyName: 'no-debug', validationActions: ['Deny'] },
    };
    const ws = [docFromObject(labeler), docFromObject(noDebug), docFromObject(noDebugBinding)];
    const webhooks = {
      'labels.example.com': { response: 'patch' as const, patch: '[{"op": "add", "path": "/metadata/labels/debug", "value": "1"}]', warnings: '' },
    };
    const r = await runSimulation(ws, { input: createPod, webhooks });
    if (!r.ok) throw new Error('did not run');
    expect(r.breaks.map((b) => [b.validator.name, b.validator.path, docOfRef(ws, b.validator.document)?.id])).toEqual([
      ['no-debug', 'spec.validations[0].expression', ws[1].id],
    ]);
    const [scenario] = await runScenarios(ws, [scenarioOf('debug label', { input: createPod, webhooks }, { allowed: false })]);
    expect(scenario).toMatchObject({ pass: true });
    expect(scenario.breaks.map((b) => b.mutators.map((m) => m.webhook))).toEqual([['labels.example.com']]);
    const clean = await runSimulation(ws, { input: createPod, webhooks: {} });
    expect(clean.ok && clean.breaks).toEqual([]);
  });

  test('input that does not parse is reported, not thrown', async () => {
    const r = await runSimulation(docs, { input: { ...createPod, object: 'a: [oops' }, webhooks: { x: { response: 'patch', patch: '{', warnings: '' } } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.draftErrors[0]).toMatchObject({ field: 'object', line: 1 });
    expect(r.responseErrors[0]).toMatchObject({ webhook: 'x' });
  });

  test('scenarios: pass and fail with the reason', async () => {
    const down = { input: createPod, webhooks: { 'pods.guard.example.com': { response: 'unavailable' as const, patch: '', warnings: '' } } };
    const results = await runScenarios(docs, [
      scenarioOf('denied while down', down, { allowed: false, deniedBy: 'pods.guard.example.com' }),
      scenarioOf('wrongly expected allowed', down, { allowed: true }),
    ]);
    expect(results.map((r) => r.pass)).toEqual([true, false]);
    expect(results[1].failures).toEqual(['expected allowed, got denied']);
  });
});

describe('lockout', () => {
  beforeAll(async () => {
    await loadCel();
  }, 60_000);

  test('a fail-closed webhook on every pod: the finding names it and points into its document', async () => {
    const r = await runLockout(docs);
    if ('error' in r) throw new Error(r.error);
    expect(r.headline).toMatch(/pod-guard|pods\.guard\.example\.com/);
    const f = r.findings.find((x) => x.webhook === 'pods.guard.example.com')!;
    expect(f.effect).toBe('rejected');
    expect(docOfRef(docs, f.document)?.id).toBe(docs[1].id);
    expect(f.path).toMatch(/^webhooks\[0\]/);
  });
});

describe('a simulation on a workspace a real apiserver would not have stored', () => {
  test('names the documents with errors, and only those', async () => {
    const invalid = { ...guard, webhooks: [{ ...guard.webhooks[0], timeoutSeconds: 45 }] };
    const ws = [docFromObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } }), docFromObject(invalid)];
    const run = await runSimulation(ws, { input: createPod, webhooks: {} });
    if (!run.ok) throw new Error('did not run');
    expect(run.unstored).toEqual([{ index: 1, kind: 'ValidatingWebhookConfiguration', name: 'pod-guard', errors: 1 }]);
    expect(unstoredDocuments(docs)).toEqual([]);
  });
});
