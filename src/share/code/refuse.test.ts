/** What a target language cannot express as written is refused with the field's path and why; what it can is written faithfully. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Obj } from '../../base/json';
import { codeDocsOf, exportAsCode, type SchemaDefinitions } from '.';

const schemas = JSON.parse(readFileSync(join(__dirname, '../../../tools/typecheck-oracle/schemas/1.37.json'), 'utf8')) as SchemaDefinitions;
const opts = { kubernetesVersion: '1.37', schemas };
const webhook = (extra: Obj): Obj => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'demo' },
  webhooks: [{ name: 'a.example.com', clientConfig: { url: 'https://a.example.com' }, sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra }],
});

describe('refused, with the path and the reason', () => {
  it('an unknown field: Rust and typed Pkl refuse it; self-contained Pkl and Jsonnet write it', () => {
    const docs = [{ object: webhook({ timeoutSecond: 5 }) }];
    expect(exportAsCode(docs, 'rust', opts).problems).toEqual([
      {
        object: 'ValidatingWebhookConfiguration/demo',
        path: 'webhooks[0].timeoutSecond',
        message: expect.stringContaining('not a field of ValidatingWebhook'),
      },
    ]);
    expect(exportAsCode(docs, 'rust', opts).files).toEqual([]);
    expect(exportAsCode(docs, 'pkl', opts).problems.map((p) => p.path)).toEqual(['webhooks[0].timeoutSecond']);
    expect(exportAsCode(docs, 'pkl', { ...opts, selfContained: true }).files[0]!.text).toContain('timeoutSecond = 5');
    expect(exportAsCode(docs, 'jsonnet', opts).files[0]!.text).toContain('timeoutSecond: 5');
  });
  it('an Int32 out of range, a caBundle that is not base64, a string where a number goes', () => {
    const docs = [{ object: webhook({ timeoutSeconds: 2 ** 31, clientConfig: { caBundle: 'not base64!' } }) }, { object: webhook({ timeoutSeconds: '5' }) }];
    expect(exportAsCode(docs, 'rust', opts).problems.map((p) => [p.path, p.message])).toEqual([
      ['webhooks[0].clientConfig.caBundle', expect.stringContaining('not base64')],
      ['webhooks[0].timeoutSeconds', expect.stringContaining('an i32')],
      ['webhooks[0].timeoutSeconds', expect.stringContaining('an i32')],
    ]);
    expect(exportAsCode([docs[0]!], 'pkl', opts).problems.map((p) => p.path)).toEqual(['webhooks[0].timeoutSeconds']);
  });
  it('a kind the release does not have, and a server-set time', () => {
    const crd = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    expect(exportAsCode([{ object: crd }], 'rust', opts).problems[0]!.message).toContain('not a kind of this release');
    expect(exportAsCode([{ object: crd }], 'pkl', opts).problems[0]!.message).toContain('export self-contained');
    const stamped = { ...webhook({}), metadata: { name: 'demo', creationTimestamp: '2026-01-01T00:00:00Z' } };
    expect(exportAsCode([{ object: stamped }], 'rust', opts).problems.map((p) => p.path)).toEqual(['metadata.creationTimestamp']);
  });
  it('a label value YAML 1.1 reads as a boolean (y, yes): typed Pkl refuses it, as Rust does and the apiserver would', () => {
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n  labels:\n    self: y\n    other: yes\n    quoted: "y"\n';
    const { docs } = codeDocsOf(text);
    // read as sigs.k8s.io/yaml reads it (YAML 1.1): the apiserver then cannot decode true into a string
    expect(docs[0]!.object.metadata).toEqual({ name: 'demo', labels: { self: true, other: true, quoted: 'y' } });
    const pkl = exportAsCode(docs, 'pkl', opts);
    expect(pkl.files).toEqual([]);
    expect(pkl.problems.map((p) => [p.path, p.message])).toEqual([
      ['metadata.labels[self]', expect.stringMatching(/^pkl-k8s's type here is String, and the value is the boolean true: quote it in the YAML/)],
      ['metadata.labels[other]', expect.stringMatching(/^pkl-k8s's type here is String, and the value is the boolean true/)],
    ]);
    expect(exportAsCode(docs, 'rust', opts).problems.map((p) => p.path)).toEqual(['metadata.labels[self]', 'metadata.labels[other]']);
    // self-contained Pkl and Jsonnet write the object as it is (true), as they write every field
    expect(exportAsCode(docs, 'pkl', { ...opts, selfContained: true }).files[0]!.text).toContain('["self"] = true');
    // a string where an Int32 goes, a scalar where a Mapping goes
    const wrong = [{ object: webhook({ timeoutSeconds: '5' }) }, { object: { ...webhook({}), metadata: { name: 'demo', annotations: 'x' } } }];
    expect(exportAsCode(wrong, 'pkl', opts).problems.map((p) => [p.path, p.message])).toEqual([
      ['webhooks[0].timeoutSeconds', 'pkl-k8s\'s type here is Int32, and the value is the string "5"'],
      ['metadata.annotations', 'pkl-k8s\'s type here is a Mapping, and the value is the string "x"'],
    ]);
  });
  it('an integer Jsonnet would read as another number', () => {
    const big = { ...webhook({}), metadata: { name: 'demo', generation: 2 ** 60 } };
    expect(exportAsCode([{ object: big }], 'jsonnet', opts).problems.map((p) => p.path)).toEqual(['metadata.generation']);
  });
});

describe('written faithfully', () => {
  it('keys that are not identifiers are quoted in each language', () => {
    const o = { ...webhook({}), metadata: { name: 'demo', labels: { 'app.kubernetes.io/name': 'x', local: 'y' } } };
    const [jsonnet, pkl, rust] = (['jsonnet', 'pkl', 'rust'] as const).map((l) => exportAsCode([{ object: o }], l, opts).files[0]!.text);
    expect(jsonnet).toContain('"app.kubernetes.io/name": "x"');
    expect(jsonnet).toContain('"local": "y"');
    expect(pkl).toContain('["app.kubernetes.io/name"] = "x"');
    expect(rust).toContain('("app.kubernetes.io/name".into(), "x".into())');
  });
  it('comments stay on the fields they sat on', () => {
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: limits # the param\ndata:\n  # the cap\n  maxReplicas: "5"\n';
    const { docs } = codeDocsOf(text);
    expect(exportAsCode(docs, 'jsonnet', opts).files[0]!.text).toMatch(/\/\/ the param\n\s+name: "limits"[\s\S]*\/\/ the cap\n\s+maxReplicas: "5"/);
    expect(exportAsCode(docs, 'pkl', opts).files[0]!.text).toMatch(/\/\/ the param\n\s+name = "limits"[\s\S]*\/\/ the cap\n\s+\["maxReplicas"\] = "5"/);
    expect(exportAsCode(docs, 'rust', opts).files[0]!.text).toMatch(/\/\/ the param\n\s+name: Some\("limits".into\(\)\)/);
  });
});
