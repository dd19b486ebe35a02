import { describe, expect, it } from 'vitest';
import { parsePath } from '../../base/path';
import { decodeErrors, fieldAt, jsonSchemaFor, KINDS, kindSpecOf, orderFields, serverFieldsOf, stripServerFields } from './index';
import type { Field } from './types';

function* walk(fields: readonly Field[], prefix = ''): Generator<[string, Field]> {
  for (const f of fields) {
    const p = prefix ? `${prefix}.${f.name}` : f.name;
    yield [p, f];
    if (f.type === 'object') yield* walk(f.fields, p);
    if (f.type === 'list') yield* walk(f.item.fields, `${p}[0]`);
  }
}

describe('field registry', () => {
  it('describes every field with a label and help, and enums with their default among them', () => {
    for (const spec of KINDS) {
      for (const [path, f] of walk(spec.fields)) {
        expect(f.label, `${spec.kind} ${path}`).not.toBe('');
        expect(f.help.length, `${spec.kind} ${path}`).toBeGreaterThan(5);
        if ((f.type === 'string' || f.type === 'stringList') && f.enum && f.default !== undefined) expect(f.enum).toContain(f.default);
      }
    }
  });

  it('covers every field of ValidatingWebhook and MutatingWebhook', () => {
    const vwc = KINDS.find((k) => k.kind === 'ValidatingWebhookConfiguration')!;
    const mwc = KINDS.find((k) => k.kind === 'MutatingWebhookConfiguration')!;
    const paths = [
      'webhooks[0].name',
      'webhooks[0].clientConfig.url',
      'webhooks[0].clientConfig.service.namespace',
      'webhooks[0].clientConfig.service.name',
      'webhooks[0].clientConfig.service.path',
      'webhooks[0].clientConfig.service.port',
      'webhooks[0].clientConfig.caBundle',
      'webhooks[0].rules[0].operations',
      'webhooks[0].rules[0].apiGroups',
      'webhooks[0].rules[0].apiVersions',
      'webhooks[0].rules[0].resources',
      'webhooks[0].rules[0].scope',
      'webhooks[0].failurePolicy',
      'webhooks[0].matchPolicy',
      'webhooks[0].namespaceSelector.matchLabels',
      'webhooks[0].namespaceSelector.matchExpressions[0].key',
      'webhooks[0].namespaceSelector.matchExpressions[0].operator',
      'webhooks[0].namespaceSelector.matchExpressions[0].values',
      'webhooks[0].objectSelector.matchLabels',
      'webhooks[0].sideEffects',
      'webhooks[0].timeoutSeconds',
      'webhooks[0].admissionReviewVersions',
      'webhooks[0].matchConditions[0].name',
      'webhooks[0].matchConditions[0].expression',
      'metadata.name',
      'metadata.generateName',
      'metadata.labels',
      'metadata.annotations',
    ];
    for (const p of paths) {
      expect(fieldAt(vwc, parsePath(p)), p).toBeDefined();
      expect(fieldAt(mwc, parsePath(p)), p).toBeDefined();
    }
    expect(fieldAt(mwc, parsePath('webhooks[0].reinvocationPolicy'))).toMatchObject({ enum: ['Never', 'IfNeeded'], default: 'Never' });
    expect(fieldAt(vwc, parsePath('webhooks[0].reinvocationPolicy'))).toBeUndefined();
    expect(fieldAt(vwc, parsePath('webhooks[0].matchConditions[0].expression'))).toMatchObject({ cel: 'webhook-matchCondition' });
  });

  it('finds the kind of an object by apiVersion and kind', () => {
    expect(kindSpecOf({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' })?.kind).toBe('ValidatingWebhookConfiguration');
    expect(kindSpecOf({ apiVersion: 'admissionregistration.k8s.io/v1beta1', kind: 'ValidatingAdmissionPolicy' })?.kind).toBe('ValidatingAdmissionPolicy');
    // known, though no target release serves it: edited, and validation says it is not served
    expect(kindSpecOf({ apiVersion: 'admissionregistration.k8s.io/v1beta1', kind: 'ValidatingWebhookConfiguration' })?.kind).toBe(
      'ValidatingWebhookConfiguration',
    );
    expect(kindSpecOf({ apiVersion: 'admissionregistration.k8s.io/v2', kind: 'ValidatingWebhookConfiguration' })).toBeUndefined();
    expect(kindSpecOf({ apiVersion: 'v1', kind: 'ConfigMap' })).toBeUndefined();
    expect(kindSpecOf('text')).toBeUndefined();
  });
});

describe('decode check', () => {
  const vwc = (webhook: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'x' },
    webhooks: [webhook],
    ...extra,
  });

  it('reports wrong JSON types at the field', () => {
    const errs = decodeErrors(vwc({ name: 'a.b.c', timeoutSeconds: 'ten', rules: [{ operations: 'CREATE' }], admissionReviewVersions: [1] }));
    expect(errs.map((e) => [e.field, e.type, e.severity])).toEqual([
      ['webhooks[0].timeoutSeconds', 'Invalid', undefined],
      ['webhooks[0].rules[0].operations', 'Invalid', undefined],
      ['webhooks[0].admissionReviewVersions[0]', 'Invalid', undefined],
    ]);
    expect(errs[0].message).toContain('must be an integer');
  });

  it('hints at quoting for non-string label values', () => {
    const errs = decodeErrors(vwc({ name: 'a.b.c', objectSelector: { matchLabels: { inject: true } } }));
    expect(errs).toHaveLength(1);
    expect(errs[0].field).toBe('webhooks[0].objectSelector.matchLabels[inject]');
    expect(errs[0].hint).toMatch(/Quote/);
  });

  it('warns about unknown fields, and accepts nulls and server fields', () => {
    const errs = decodeErrors(
      vwc(
        { name: 'a.b.c', timeoutSecond: 5, rules: null, namespaceSelector: null },
        { status: {}, metadata: { name: 'x', uid: 'u', managedFields: [{ manager: 'kubectl' }] } },
      ),
    );
    expect(errs.map((e) => [e.field, e.severity, e.message])).toEqual([
      ['webhooks[0].timeoutSecond', 'warning', 'unknown field "webhooks[0].timeoutSecond"'],
      ['status', 'warning', 'unknown field "status"'],
    ]);
  });

  it('rejects out-of-range integers', () => {
    expect(decodeErrors(vwc({ name: 'a.b.c', timeoutSeconds: 2 ** 31 })).map((e) => e.field)).toEqual(['webhooks[0].timeoutSeconds']);
  });
});

describe('key order and server fields', () => {
  it('orders keys as kubectl prints them and keeps unknown keys after the known ones', () => {
    const o = orderFields({
      webhooks: [{ sideEffects: 'None', custom: 1, name: 'a.b.c', clientConfig: { caBundle: '', url: 'https://x' } }],
      metadata: { labels: {}, name: 'x' },
      kind: 'ValidatingWebhookConfiguration',
      apiVersion: 'admissionregistration.k8s.io/v1',
    }) as Record<string, unknown>;
    expect(Object.keys(o)).toEqual(['apiVersion', 'kind', 'metadata', 'webhooks']);
    const w = (o.webhooks as Record<string, unknown>[])[0];
    expect(Object.keys(w)).toEqual(['name', 'clientConfig', 'sideEffects', 'custom']);
    expect(Object.keys(w.clientConfig as object)).toEqual(['url', 'caBundle']);
    expect(Object.keys(o.metadata as object)).toEqual(['name', 'labels']);
  });

  it('orders an edited object as it orders a fresh copy, sharing the branches that were in order', () => {
    const keysDeep = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(keysDeep) : v && typeof v === 'object' ? Object.entries(v).map(([k, x]) => [k, keysDeep(x)]) : v;
    const hook = (i: number) => ({ name: `w${i}.b.c`, clientConfig: { url: 'https://x' }, sideEffects: 'None' });
    const first = orderFields({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'x' },
      webhooks: [hook(0), hook(1), hook(2)],
    }) as { webhooks: Record<string, unknown>[] };
    // a form edit: one webhook replaced (keys out of order, a nested object too), the others the same objects
    const edited = {
      ...first,
      webhooks: [first.webhooks[0], { clientConfig: { caBundle: '', url: 'https://y' }, sideEffects: 'None', name: 'w1.b.c' }, first.webhooks[2]],
    };
    const o = orderFields(edited) as { webhooks: Record<string, unknown>[] };
    expect(keysDeep(o)).toEqual(keysDeep(orderFields(JSON.parse(JSON.stringify(edited)))));
    expect(Object.keys(o.webhooks[1]!)).toEqual(['name', 'clientConfig', 'sideEffects']);
    expect(Object.keys(o.webhooks[1]!.clientConfig as object)).toEqual(['url', 'caBundle']);
    expect(o.webhooks[0]).toBe(first.webhooks[0]);
    expect(o.webhooks[2]).toBe(first.webhooks[2]);
    expect(orderFields(o)).toEqual(o);
    expect((orderFields(o) as typeof o).webhooks).toBe(o.webhooks);
  });

  it('finds and strips server-populated fields', () => {
    const o = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: {
        name: 'p',
        uid: '1',
        resourceVersion: '2',
        generation: 1,
        creationTimestamp: 't',
        managedFields: [],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      },
      spec: {},
      status: { observedGeneration: 1 },
    };
    expect(serverFieldsOf(o).sort()).toEqual(
      [
        'status',
        'metadata.uid',
        'metadata.resourceVersion',
        'metadata.generation',
        'metadata.creationTimestamp',
        'metadata.managedFields',
        'metadata.annotations[kubectl.kubernetes.io/last-applied-configuration]',
      ].sort(),
    );
    expect(stripServerFields(o)).toEqual({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name: 'p' }, spec: {} });
  });
});

describe('JSON schema', () => {
  it('is generated for every kind with enums, defaults and required fields', () => {
    for (const spec of KINDS) {
      const s = jsonSchemaFor(spec) as { properties: Record<string, unknown>; required: string[] };
      expect(s.required).toContain('apiVersion');
      expect(s.properties.metadata).toBeDefined();
    }
    const vwc = jsonSchemaFor(KINDS[0]) as any;
    const webhook = vwc.properties.webhooks.items.properties;
    expect(webhook.failurePolicy.enum).toEqual(['Fail', 'Ignore', null]);
    expect(webhook.failurePolicy.default).toBe('Fail');
    expect(webhook.timeoutSeconds).toMatchObject({ minimum: 1, maximum: 30 });
    expect(vwc.properties.webhooks.items.required).toEqual(['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions']);
  });
});
