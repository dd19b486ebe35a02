/** simulate(): the chain — failurePolicy, dry run, reinvocation, validationActions, patches, messages, bad input (real CEL engine). */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { simulate } from './index';
import { binding, hook, mutating, namespace, pod, podRequest, policy, policyStep, validating, webhookStep } from './test-helpers';

useEngine();

describe('webhook responses and failurePolicy', () => {
  it('unavailable: Fail rejects with the apiserver message, Ignore fails open with the audit annotation', async () => {
    const ws = [validating('v', hook('strict', { failurePolicy: 'Fail', timeoutSeconds: 7 }), hook('lenient', { failurePolicy: 'Ignore' }))];
    const down = await simulate(ws, podRequest(), { webhooks: { strict: 'unavailable', lenient: 'unavailable' } });
    expect(down.allowed).toBe(false);
    expect(down.deniedBy).toMatchObject({ kind: 'ValidatingWebhookConfiguration', name: 'v', webhook: 'strict', code: 500, reason: 'InternalError' });
    expect(down.deniedBy?.message).toBe(
      'Internal error occurred: failed calling webhook "strict": failed to call webhook: Post "https://hooks.example.com/strict?timeout=7s": dial tcp: connect: connection refused',
    );
    const strict = webhookStep(down, 'strict');
    expect(strict).toMatchObject({ outcome: 'error-rejected', path: 'webhooks[0].failurePolicy', timeoutSeconds: 7, failurePolicy: 'Fail' });
    expect(webhookStep(down, 'lenient').outcome).toBe('error-ignored');
    const open = await simulate(ws, podRequest(), { webhooks: { lenient: 'unavailable' } });
    expect(open.allowed).toBe(true);
    expect(open.auditAnnotations['failed-open.validating.webhook.admission.k8s.io/round_0_index_1']).toBe('lenient');
    expect(webhookStep(open, 'lenient').timeoutSeconds).toBe(10); // the API default, shown
  });

  it('deny: the client sees the webhook named; all validating webhooks run, the first denial is reported', async () => {
    const ws = [validating('v', hook('first'), hook('second'), hook('third'))];
    const r = await simulate(ws, podRequest(), { webhooks: { first: 'deny', second: 'deny', third: { warnings: ['deprecated image'] } } });
    expect(r.deniedBy).toMatchObject({ webhook: 'first', code: 400, message: 'admission webhook "first" denied the request without explanation' });
    expect(webhookStep(r, 'second').outcome).toBe('denied');
    expect(webhookStep(r, 'third').outcome).toBe('warned');
    expect(r.warnings).toEqual(['deprecated image']);
  });

  it('matchConditions errors: Fail rejects (Forbidden) whatever the call would do, Ignore skips', async () => {
    const mc = [{ name: 'bad', expression: 'object.spec.nope == 1' }];
    const fail = await simulate([validating('v', hook('w', { matchConditions: mc, failurePolicy: 'Fail' }))], podRequest());
    expect(fail.deniedBy).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(fail.deniedBy?.message).toMatch(/^pods "web-0" is forbidden: /);
    expect(webhookStep(fail, 'w').path).toBe('webhooks[0].matchConditions[0].expression');
    const ignore = await simulate([validating('v', hook('w', { matchConditions: mc, failurePolicy: 'Ignore' }))], podRequest());
    expect(ignore.allowed).toBe(true);
    expect(webhookStep(ignore, 'w').outcome).toBe('error-ignored');
  });

  it('a selector the apiserver cannot parse rejects the request whatever failurePolicy says', async () => {
    const bad = { matchExpressions: [{ key: 'env', operator: 'Near', values: ['prod'] }] };
    const r = await simulate([validating('v', hook('w', { namespaceSelector: bad, failurePolicy: 'Ignore' }))], podRequest());
    expect(r.deniedBy).toMatchObject({ webhook: 'w', code: 500, reason: 'InternalError' });
    expect(webhookStep(r, 'w').path).toBe('webhooks[0].namespaceSelector');
  });

  it('a validating webhook that answers with a patch is a call failure (failurePolicy)', async () => {
    const r = await simulate([validating('v', hook('w', { failurePolicy: 'Fail' }))], podRequest(), {
      webhooks: { w: { patch: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }] } },
    });
    expect(r.deniedBy?.message).toContain('validating webhook may not return response.patch');
  });
});

describe('dry run and sideEffects', () => {
  it('a dry-run request to a webhook with sideEffects Some/Unknown is rejected whatever failurePolicy says', async () => {
    const ws = [validating('v', hook('some', { sideEffects: 'Some', failurePolicy: 'Ignore' }))];
    const r = await simulate(ws, podRequest({ dryRun: true }));
    expect(r.deniedBy).toMatchObject({ code: 400, reason: 'BadRequest', message: 'admission webhook "some" does not support dry run' });
    expect(webhookStep(r, 'some').path).toBe('webhooks[0].sideEffects');
    expect((await simulate(ws, podRequest())).allowed).toBe(true);
    const safe = [validating('v', hook('safe', { sideEffects: 'NoneOnDryRun' }))];
    expect((await simulate(safe, podRequest({ dryRun: true }))).allowed).toBe(true);
  });
});

describe('mutation', () => {
  it('patches apply in configuration-name order; the object after mutation and the patches are returned', async () => {
    const ws = [mutating('b-second', hook('b')), mutating('a-first', hook('a'))];
    const r = await simulate(ws, podRequest({ object: pod({ app: 'web' }) }), {
      webhooks: {
        a: { patch: [{ op: 'add', path: '/metadata/labels/team', value: 'a' }] },
        b: { patch: [{ op: 'replace', path: '/metadata/labels/team', value: 'b' }] },
      },
    });
    expect(r.steps.filter((s) => s.round === 0).map((s) => s.webhook)).toEqual(['a', 'b']);
    expect(r.patches.map((p) => p.by)).toEqual(['a', 'b']);
    expect((r.object as { metadata: { labels: Record<string, string> } }).metadata.labels).toEqual({ app: 'web', team: 'b' });
    expect(r.auditAnnotations['mutation.webhook.admission.k8s.io/round_0_index_0']).toBe('{"configuration":"a-first","webhook":"a","mutated":true}');
  });

  it('the object as the apiserver serializes it: an empty labels map is dropped, so adding /metadata/labels/x fails', async () => {
    const ws = [mutating('m', hook('labeler', { failurePolicy: 'Ignore' }))];
    const patch = { patch: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }] };
    const r = await simulate(ws, podRequest({ object: pod({}) }), { webhooks: { labeler: patch } });
    expect(r.allowed).toBe(false); // a patch that does not apply is not a call failure: Ignore does not help
    expect(r.deniedBy?.message).toMatch(/^Internal error occurred: /);
    const ok = await simulate(ws, podRequest({ object: pod({ app: 'web' }) }), { webhooks: { labeler: patch } });
    expect(ok.allowed).toBe(true);
    // policies see the decoded object too
    const vap = policy('ValidatingAdmissionPolicy', 'p', { validations: [{ expression: '!has(object.metadata.labels)', message: 'labels present' }] });
    const seen = await simulate([vap, binding('ValidatingAdmissionPolicyBinding', 'b', 'p')], podRequest({ object: pod({}) }));
    expect(seen.allowed).toBe(true);
    expect(seen.notes.join(' ')).toContain('`labels: {}`');
  });

  it('a MutatingAdmissionPolicy mutates before the webhooks; the validating phase sees the mutated object', async () => {
    const map = policy('MutatingAdmissionPolicy', 'add-team', {
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/team", value: "platform"}]' } }],
    });
    const vap = policy('ValidatingAdmissionPolicy', 'need-team', {
      validations: [{ expression: "'team' in object.metadata.labels", message: 'team label required' }],
    });
    const ws = [
      map,
      binding('MutatingAdmissionPolicyBinding', 'add-team', 'add-team'),
      vap,
      binding('ValidatingAdmissionPolicyBinding', 'need-team', 'need-team'),
    ];
    const r = await simulate(ws, podRequest());
    expect(r.allowed).toBe(true);
    expect(policyStep(r, 'add-team').outcome).toBe('patched');
    expect(r.patches).toEqual([
      { by: 'add-team/add-team', ops: [{ op: 'add', path: '/metadata/labels/team', value: 'platform' }], mutator: 'MutatingAdmissionPolicy add-team/add-team' },
    ]);
    const without = await simulate(ws.slice(2), podRequest());
    expect(without.deniedBy).toMatchObject({ kind: 'ValidatingAdmissionPolicy', name: 'need-team', binding: 'need-team', code: 422, reason: 'Invalid' });
    expect(without.deniedBy?.message).toBe(
      `pods "web-0" is forbidden: ValidatingAdmissionPolicy 'need-team' with binding 'need-team' denied request: team label required`,
    );
    expect(policyStep(without, 'need-team').path).toBe('spec.validations[0].expression');
  });

  it('a patch on a DELETE (no object) rejects the request', async () => {
    const ws = [mutating('m', hook('w', { rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['pods'] }] }))];
    const r = await simulate(ws, podRequest({ operation: 'DELETE', object: undefined, oldObject: pod() }), {
      webhooks: { w: { patch: [{ op: 'add', path: '/x', value: 1 }] } },
    });
    expect(r.deniedBy?.message).toContain('attempted to modify the object, which is not supported for this operation');
  });
});

describe('reinvocation', () => {
  it('an IfNeeded webhook is called again when a later webhook changed the object; a Never one is not', async () => {
    const ws = [mutating('m', hook('again', { reinvocationPolicy: 'IfNeeded' }), hook('once', { reinvocationPolicy: 'Never' }), hook('changer'))];
    const r = await simulate(ws, podRequest(), { webhooks: { changer: { patch: [{ op: 'add', path: '/metadata/labels/changed', value: 'yes' }] } } });
    const second = r.steps.filter((s) => s.round === 1);
    expect(second.map((s) => [s.webhook, s.outcome])).toEqual([['again', 'reinvoked']]);
    expect(second[0]!.path).toBe('webhooks[0].reinvocationPolicy');
    const noChange = await simulate(ws, podRequest());
    expect(noChange.steps.some((s) => s.round === 1)).toBe(false);
  });

  it('an IfNeeded MutatingAdmissionPolicy is reinvoked after a webhook changes the object', async () => {
    const map = policy('MutatingAdmissionPolicy', 'stamp', {
      reinvocationPolicy: 'IfNeeded',
      mutations: [
        {
          patchType: 'JSONPatch',
          jsonPatch: { expression: 'has(object.metadata.annotations) ? [] : [JSONPatch{op: "add", path: "/metadata/annotations", value: {"stamped": "yes"}}]' },
        },
      ],
    });
    const ws = [map, binding('MutatingAdmissionPolicyBinding', 'stamp', 'stamp'), mutating('m', hook('changer'))];
    const r = await simulate(ws, podRequest(), { webhooks: { changer: { patch: [{ op: 'add', path: '/metadata/labels/changed', value: 'yes' }] } } });
    expect(policyStep(r, 'stamp', 'stamp', 1).outcome).toBe('reinvoked');
    const never = [{ ...map, spec: { ...map.spec, reinvocationPolicy: 'Never' } }, ...ws.slice(1)];
    const r2 = await simulate(never, podRequest(), { webhooks: { changer: { patch: [{ op: 'add', path: '/metadata/labels/changed', value: 'yes' }] } } });
    expect(r2.steps.some((s) => s.round === 1 && s.name === 'stamp')).toBe(false);
  });
});

describe('validating policies', () => {
  const failing = policy('ValidatingAdmissionPolicy', 'p', {
    validations: [{ expression: "object.metadata.name.startsWith('api-')", message: 'names start with api-' }],
    auditAnnotations: [{ key: 'checked', valueExpression: "'name ' + object.metadata.name" }],
  });

  it('validationActions: Deny denies, Warn warns, Audit annotates', async () => {
    const deny = await simulate([failing, binding('ValidatingAdmissionPolicyBinding', 'b', 'p', { validationActions: ['Deny'] })], podRequest());
    expect(deny.allowed).toBe(false);
    const warn = await simulate([failing, binding('ValidatingAdmissionPolicyBinding', 'b', 'p', { validationActions: ['Warn'] })], podRequest());
    expect(warn.allowed).toBe(true);
    expect(warn.warnings).toEqual(["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': names start with api-"]);
    expect(policyStep(warn, 'p', 'b')).toMatchObject({ outcome: 'warned', path: 'spec.validationActions' });
    const audit = await simulate([failing, binding('ValidatingAdmissionPolicyBinding', 'b', 'p', { validationActions: ['Audit'] })], podRequest());
    expect(audit.allowed).toBe(true);
    expect(policyStep(audit, 'p', 'b').outcome).toBe('audited');
    expect(audit.auditAnnotations['validation.policy.admission.k8s.io/validation_failure']).toContain('names start with api-');
    expect(audit.auditAnnotations['p/checked']).toBe('name web-0');
  });

  it('CEL errors: failurePolicy Fail rejects, Ignore admits', async () => {
    const broken = (fp: string) =>
      policy('ValidatingAdmissionPolicy', 'p', { failurePolicy: fp, validations: [{ expression: 'object.spec.missing.size() > 0' }] });
    const fail = await simulate([broken('Fail'), binding('ValidatingAdmissionPolicyBinding', 'b', 'p')], podRequest());
    expect(fail.allowed).toBe(false);
    expect(policyStep(fail, 'p', 'b')).toMatchObject({ outcome: 'error-rejected', path: 'spec.validations[0].expression' });
    const ignore = await simulate([broken('Ignore'), binding('ValidatingAdmissionPolicyBinding', 'b', 'p')], podRequest());
    expect(ignore.allowed).toBe(true);
    expect(policyStep(ignore, 'p', 'b').outcome).toBe('error-ignored');
  });

  it('a ValidatingAdmissionPolicy denial ends the chain before the validating webhooks', async () => {
    const r = await simulate([failing, binding('ValidatingAdmissionPolicyBinding', 'b', 'p'), validating('v', hook('w'))], podRequest());
    expect(r.allowed).toBe(false);
    expect(r.steps.some((s) => s.webhook === 'w')).toBe(false);
    expect(r.notes.join(' ')).toContain('validating webhooks are not called');
  });
});

describe('bad input', () => {
  it('never throws, never changes its inputs, says what is wrong', async () => {
    const objects = [
      null,
      5,
      'text',
      { kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'orphan' }, spec: { policyName: 'gone', validationActions: ['Deny'] } },
      validating('v', hook('w')),
    ];
    const request = podRequest({
      resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      namespace: 'nowhere',
    });
    const before = JSON.stringify([objects, request]);
    const r = await simulate(objects, request, { webhooks: { w: { patch: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }] } } });
    expect(JSON.stringify([objects, request])).toBe(before);
    expect(r.notes.join('\n')).toContain('neither a built-in resource');
    expect(r.notes.join('\n')).toContain("namespace 'nowhere' is not in the workspace: assumed to exist");
    const orphan = r.steps.find((s) => s.binding === 'orphan')!;
    expect(orphan).toMatchObject({
      outcome: 'skipped',
      path: 'spec.policyName',
      document: { kind: 'ValidatingAdmissionPolicyBinding', name: 'orphan', index: 3 },
    });
    expect(orphan.reason).toContain("'gone', which is not in the workspace");
    const garbage = await simulate(undefined as unknown as unknown[], {} as never);
    expect(garbage.notes[0]).toContain('names no resource');
  });

  it('a param of the wrong kind is named in the step', async () => {
    const p = policy('ValidatingAdmissionPolicy', 'p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'true' }] });
    const b = binding('ValidatingAdmissionPolicyBinding', 'b', 'p', { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } });
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'limits', namespace: 'team-a' } };
    const r = await simulate([p, b, secret, namespace('team-a')], podRequest());
    expect(r.allowed).toBe(false);
    expect(policyStep(r, 'p', 'b').notes?.[0]).toContain('is a v1 Secret, not the paramKind v1 ConfigMap');
  });
});
