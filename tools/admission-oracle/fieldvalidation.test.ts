/**
 * Field validation against the real apiserver: the admission oracle's TestFieldValidation POSTs
 * admissionregistration objects with unknown and duplicate fields (JSON and YAML bodies, as
 * written) as dry runs with `?fieldValidation=Strict|Warn|Ignore` to the in-process
 * kube-apiserver 1.36, and records the status and the warnings. For each answer the Workbench,
 * in the same mode, must:
 * - Strict: refuse exactly the objects the apiserver refuses with a strict decoding error, in its
 *   words (strictDecodingError: `<Kind> in version "v1" cannot be handled as a <Kind>: strict
 *   decoding error: unknown field "…", …`), with one error per unknown field;
 * - Warn: warn `unknown field "…"` exactly where the apiserver's warnings do (same order);
 * - Ignore: say nothing about them;
 * and, in every mode, accept (no error) exactly the objects the apiserver creates.
 * Duplicate keys: the Workbench's parser keeps the last value and reports each (src/yaml); the mode
 * makes them the apiserver's Strict refusal (its words, JSON or YAML body), its Warn warnings (the
 * same texts, in order) or nothing (Ignore), and the object read is the one the apiserver keeps.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  FIELD_VALIDATIONS,
  duplicateKeyFindings,
  inBodyOrder,
  strictDecodingError,
  strictDuplicateError,
  validate,
  type FieldError,
  type FieldValidation,
} from '../../src/k8s';
import { parseDocuments, serializeDocuments } from '../../src/yaml';
import { buildOracleAsync, ORACLE_BUILDS, oracleCacheDir, runOracle, ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';

interface Case {
  name: string;
  path: string;
  contentType: 'application/json' | 'application/yaml';
  body: string;
  modes: readonly FieldValidation[];
}

interface Answer {
  name: string;
  mode: FieldValidation;
  code: number;
  reason?: string;
  message?: string;
  warnings: string[];
  error?: string;
}

const G = 'admissionregistration.k8s.io';
const collection = (kind: string) => `/apis/${G}/v1/${kind.toLowerCase().replace(/y$/, 'ie')}s`;

const hook = (extra: Record<string, unknown> = {}) => ({
  name: 'check.example.com',
  clientConfig: { url: 'https://hook.example.com/check' },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
  ...extra,
});

/** Objects with unknown fields (and one without), each sent as JSON and as YAML. */
const OBJECTS: Record<string, Record<string, unknown>> = {
  'webhook: three unknown fields, otherwise valid': {
    apiVersion: `${G}/v1`,
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'fv-unknown', foo: 1 },
    webhooks: [hook({ timeoutSecond: 5 })],
    spec: {},
  },
  'webhook: an unknown field and validation errors': {
    apiVersion: `${G}/v1`,
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'fv-invalid' },
    webhooks: [{ name: 'short', timeoutSecond: 5 }],
  },
  'mutating webhook: unknown fields in a rule and a service': {
    apiVersion: `${G}/v1`,
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'fv-mutating' },
    webhooks: [
      hook({
        clientConfig: { service: { namespace: 'default', name: 'hook', prot: 443 } },
        rules: [{ apiGroup: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
        reinvocationPolicy: 'Never',
      }),
    ],
  },
  'policy: unknown fields in a validation and matchConstraints': {
    apiVersion: `${G}/v1`,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'fv-policy' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }],
        namespaceSelectors: {},
      },
      validations: [{ expression: 'object.spec.replicas <= 5', mesage: 'too many' }],
    },
  },
  'binding: a misspelt required field': {
    apiVersion: `${G}/v1`,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'fv-binding' },
    spec: { policyname: 'fv-policy', validationActions: ['Deny'] },
  },
  'webhook: no unknown field': {
    apiVersion: `${G}/v1`,
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'fv-clean', labels: { team: 'a' } },
    webhooks: [hook()],
  },
};

/** Bodies with a key twice, as written (a client library would send the object: no duplicates left). */
const DUPLICATES: Record<string, { contentType: Case['contentType']; body: string }> = {
  'json: duplicate keys': {
    contentType: 'application/json',
    body: `{"apiVersion":"${G}/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"fv-dup-a","name":"fv-dup-b"},"webhooks":[{"name":"check.example.com","clientConfig":{"url":"https://hook.example.com/check"},"sideEffects":"None","sideEffects":"None","admissionReviewVersions":["v1"]}]}`,
  },
  'yaml: duplicate keys': {
    contentType: 'application/yaml',
    body: [
      `apiVersion: ${G}/v1`,
      'kind: ValidatingWebhookConfiguration',
      'metadata:',
      '  name: fv-dup-a',
      '  name: fv-dup-b',
      'webhooks:',
      '- name: check.example.com',
      '  clientConfig:',
      '    url: https://hook.example.com/check',
      '  sideEffects: None',
      '  admissionReviewVersions: [v1]',
      '  sideEffects: None',
      '',
    ].join('\n'),
  },
};

const CASES: Case[] = [
  ...Object.entries(OBJECTS).flatMap(([name, o]) => [
    { name: `${name} (json)`, path: collection(o.kind as string), contentType: 'application/json' as const, body: JSON.stringify(o), modes: FIELD_VALIDATIONS },
    {
      name: `${name} (yaml)`,
      path: collection(o.kind as string),
      contentType: 'application/yaml' as const,
      body: serializeDocuments([o]),
      modes: FIELD_VALIDATIONS,
    },
  ]),
  ...Object.entries(DUPLICATES).map(([name, d]) => ({ name, path: collection('ValidatingWebhookConfiguration'), ...d, modes: FIELD_VALIDATIONS })),
];

/** The apiserver's answers, cached by binary and cases (a Workbench change re-runs only the comparison). */
async function oracleAnswers(): Promise<Answer[]> {
  const bin = await buildOracleAsync(ORACLE_BUILDS['admission-oracle']);
  if (bin.built) console.info(`built admission-oracle in ${bin.seconds.toFixed(1)} s`);
  const key = createHash('sha256').update(bin.path).update(JSON.stringify(CASES)).digest('hex').slice(0, 16);
  const cached = join(oracleCacheDir, `fieldvalidation-answers-${key}.json`);
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8')) as Answer[];
  const dir = mkdtempSync(join(tmpdir(), 'fieldvalidation-'));
  try {
    const [input, output] = [join(dir, 'cases.json'), join(dir, 'answers.json')];
    writeFileSync(input, JSON.stringify(CASES));
    await runOracle(bin.path, '', ['-test.run', '^TestFieldValidation$', '-test.timeout', '20m'], { FIELDVALIDATION_IN: input, FIELDVALIDATION_OUT: output });
    const answers = JSON.parse(readFileSync(output, 'utf8')) as Answer[];
    if (answers.every((a) => !a.error)) writeFileSync(cached, JSON.stringify(answers));
    return answers;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The apiserver's warnings that are strict decoding violations (not the strategy's create warnings). */
const STRICT_WARNING = /^(unknown field "|duplicate field "|line \d+: key ")/;
const isUnknown = (e: FieldError) => e.message.startsWith('unknown field "');

let answers: Answer[];
beforeAll(async () => {
  answers = await oracleAnswers();
}, ORACLE_TEST_TIMEOUT);

const answerOf = (name: string, mode: FieldValidation): Answer => {
  const a = answers.find((x) => x.name === name && x.mode === mode);
  if (!a) throw new Error(`no answer for ${name} / ${mode}`);
  if (a.error) throw new Error(`the oracle could not send ${name} / ${mode}: ${a.error}`);
  if (a.code === 404) throw new Error(`${name}: the apiserver serves no such collection (${a.message})`);
  return a;
};

describe('fieldValidation agrees with the kube-apiserver 1.36', () => {
  const objectCases = CASES.filter((c) => !(c.name in DUPLICATES));
  it.each(objectCases.flatMap((c) => FIELD_VALIDATIONS.map((mode) => [c.name, mode] as const)))('%s, %s', (name, mode) => {
    const c = CASES.find((x) => x.name === name)!;
    const parsed = parseDocuments(c.body);
    expect(parsed.errors).toEqual([]);
    const object = parsed.documents[0]!.object;
    const fields = validate(object, { kubernetesVersion: '1.36', fieldValidation: mode });
    const theirs = answerOf(name, mode);
    const strictRefusal = theirs.code === 400 && (theirs.message ?? '').includes('strict decoding error');
    // A JSON body as written keeps its key order; the apiserver turns a YAML body into JSON with sorted keys, as kubectl sends.
    const order = c.contentType === 'application/json' ? 'document' : 'sorted';
    const ours = inBodyOrder(fields.filter(isUnknown), order);
    if (mode === 'Strict') {
      expect(strictRefusal ? theirs.message : undefined).toBe(strictDecodingError(object, fields, order));
      expect(ours.every((e) => e.severity === 'error')).toBe(true);
    } else {
      expect(strictRefusal).toBe(false);
    }
    const theirWarnings = theirs.warnings.filter((w) => STRICT_WARNING.test(w));
    if (mode === 'Warn') {
      expect(ours.map((e) => e.message)).toEqual(theirWarnings);
      expect(ours.every((e) => e.severity === 'warning')).toBe(true);
    } else expect(theirWarnings).toEqual([]);
    if (mode === 'Ignore') expect(ours).toEqual([]);
    // Accepted by the apiserver ⇔ no error from the Workbench.
    expect(fields.filter((e) => e.severity !== 'warning').length === 0).toBe(theirs.code === 201);
  });

  it.each(Object.keys(DUPLICATES).flatMap((name) => FIELD_VALIDATIONS.map((mode) => [name, mode] as const)))(
    '%s, %s: the last value is read, and the mode says what the apiserver says',
    (name, mode) => {
      const { body } = DUPLICATES[name]!;
      const parsed = parseDocuments(body);
      expect(parsed.errors).toEqual([]);
      const object = parsed.documents[0]!.object as { metadata: { name: string } };
      // the last value, as the apiserver's decoders keep it under Warn and Ignore
      expect(object.metadata.name).toBe('fv-dup-b');
      const findings = duplicateKeyFindings(object, parsed.duplicateKeys, mode);
      const theirs = answerOf(name, mode);
      if (mode === 'Strict') {
        expect(theirs.code).toBe(400);
        expect(strictDuplicateError(object, parsed.duplicateKeys)).toBe(theirs.message);
        expect(findings.map((f) => f.severity)).toEqual(['error', 'error']);
        expect(findings.every((f) => f.hint.includes(theirs.message!))).toBe(true);
      } else expect(theirs.code).toBe(201);
      if (mode !== 'Strict') expect(findings.every((f) => f.severity === 'warning')).toBe(true);
      if (mode === 'Strict') expect(findings.every((f) => theirs.message!.includes(f.message))).toBe(true);
      if (mode === 'Warn') expect(findings.map((f) => f.message)).toEqual(theirs.warnings.filter((w) => STRICT_WARNING.test(w)));
      if (mode === 'Ignore') {
        expect(findings).toEqual([]);
        expect(theirs.warnings).toEqual([]);
      }
      // the rest of the object checks as any object does: nothing else to say about it
      expect(validate(object, { kubernetesVersion: '1.36', fieldValidation: mode }).filter((e) => e.severity !== 'warning')).toEqual([]);
    },
  );
});
