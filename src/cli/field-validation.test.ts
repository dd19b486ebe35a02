/**
 * The field validation directive in the Workbench's own terms (the apiserver's answers are
 * compared in tools/admission-oracle/fieldvalidation.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseArgs } from './args';
import { readWorkspaceFile, toWorkspaceFile } from '../share/workspace-file';
import { inBodyOrder, strictDecodingError } from '../k8s/field-validation';
import { validate } from '../k8s/validate-all';
import { checkTexts } from './check';

const hook = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'x', foo: 1 },
  webhooks: [
    {
      name: 'check.example.com',
      timeoutSecond: 5,
      clientConfig: { url: 'https://hook.example.com' },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    },
  ],
  spec: {},
};

const unknown = (mode?: 'Strict' | 'Warn' | 'Ignore') =>
  validate(hook, mode ? { fieldValidation: mode } : {})
    .filter((e) => e.message.startsWith('unknown field'))
    .map((e) => `${e.severity ?? 'error'} ${e.message}`);

describe('fieldValidation', () => {
  it('makes unknown fields errors (Strict), warnings (Warn, the default of validate()) or nothing (Ignore)', () => {
    expect(unknown('Strict')).toEqual(['error unknown field "metadata.foo"', 'error unknown field "webhooks[0].timeoutSecond"', 'error unknown field "spec"']);
    expect(unknown('Warn')).toEqual([
      'warning unknown field "metadata.foo"',
      'warning unknown field "webhooks[0].timeoutSecond"',
      'warning unknown field "spec"',
    ]);
    expect(unknown()).toEqual(unknown('Warn'));
    expect(unknown('Ignore')).toEqual([]);
    // A mode changes only the unknown fields: the other answers are the same in each.
    const others = (mode: 'Strict' | 'Ignore') =>
      validate({ ...hook, webhooks: [{ name: 'a' }] }, { fieldValidation: mode }).filter((e) => !e.message.startsWith('unknown'));
    expect(others('Strict')).toEqual(others('Ignore'));
  });

  it("words the Strict refusal as the apiserver does, in the order of kubectl's body (keys sorted at every level)", () => {
    const fields = validate(hook, { fieldValidation: 'Strict' });
    expect(strictDecodingError(hook, fields)).toBe(
      'ValidatingWebhookConfiguration in version "v1" cannot be handled as a ValidatingWebhookConfiguration: strict decoding error: unknown field "metadata.foo", unknown field "spec", unknown field "webhooks[0].timeoutSecond"',
    );
    expect(strictDecodingError(hook, fields, 'document')).toContain(
      'unknown field "metadata.foo", unknown field "webhooks[0].timeoutSecond", unknown field "spec"',
    );
    expect(fields.find((e) => e.field === 'spec')?.hint).toContain(strictDecodingError(hook, fields));
    expect(strictDecodingError(hook, validate(hook, { fieldValidation: 'Ignore' }))).toBeUndefined();
    expect(inBodyOrder([{ field: 'a[10].b' }, { field: 'a[9].z' }, { field: 'B' }]).map((x) => x.field)).toEqual(['B', 'a[9].z', 'a[10].b']);
  });

  it('is saved with the workspace only when not Strict; absent reads as Strict, a bad value is ignored with a warning', () => {
    expect(toWorkspaceFile([], undefined, { fieldValidation: 'Strict' })).not.toHaveProperty('fieldValidation');
    const warn = toWorkspaceFile([], undefined, { fieldValidation: 'Warn' });
    expect(warn.fieldValidation).toBe('Warn');
    const read = readWorkspaceFile(JSON.parse(JSON.stringify(warn)));
    expect(read.ok && read.workspace.fieldValidation).toBe('Warn');
    const old = readWorkspaceFile({ ...warn, fieldValidation: undefined });
    expect(old.ok && old.workspace.fieldValidation).toBeUndefined();
    const bad = readWorkspaceFile({ ...warn, fieldValidation: 'strict' });
    expect(bad.ok && bad.workspace.fieldValidation).toBeUndefined();
    expect(bad.ok && bad.warnings).toEqual(['fieldValidation "strict" is not one of Strict, Warn, Ignore: Strict is used']);
  });

  it('is the CLI option --field-validation', () => {
    expect(parseArgs(['check', '--field-validation', 'Ignore', 'a.yaml'])).toMatchObject({ command: 'check', fieldValidation: 'Ignore' });
    expect(parseArgs(['check', 'a.yaml'])).not.toHaveProperty('fieldValidation');
    expect(parseArgs(['check', '--field-validation=warn', 'a.yaml'])).toEqual({
      command: 'error',
      message: '--field-validation must be one of Strict, Warn, Ignore',
    });
  });

  it('check: a key given twice reads as its last value, an error (Strict, the default), a warning (Warn) or nothing (Ignore)', async () => {
    const text = [
      'apiVersion: admissionregistration.k8s.io/v1',
      'kind: ValidatingWebhookConfiguration',
      'metadata:',
      '  name: first',
      '  name: last',
      'webhooks: []',
      '',
    ].join('\n');
    const run = async (mode?: 'Strict' | 'Warn' | 'Ignore') => {
      const r = await checkTexts([{ name: 'dup.yaml', text }], { typeCheck: false, ...(mode ? { fieldValidation: mode } : {}) });
      expect(r.all).toEqual([expect.objectContaining({ metadata: { name: 'last' } })]);
      return r.problems.filter((p) => p.type === 'YAML').map((p) => `${p.severity} ${p.line}:${p.column} ${p.field}: ${p.message}`);
    };
    expect(await run()).toEqual(['error 5:3 metadata.name: line 5: key "name" already set in map']);
    expect(await run('Warn')).toEqual(['warning 5:3 metadata.name: line 5: key "name" already set in map']);
    expect(await run('Ignore')).toEqual([]);
  });
});
