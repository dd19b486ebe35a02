/**
 * The batch wire (ops.ts packBatch / readBatchAnswer, wasm/batch.go and wasm/answers.go): items
 * sent once and then by id, per engine; the compact answers read into the CelEvalResults the JSON
 * gives; evaluateBatchOnce in one operation.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { evaluate, evaluateBatch, evaluateBatchOnce } from './index';
import { loadRawInNode } from './node';
import { ITEMS_PER_SESSION, newWireSession, readBatchAnswer, runOp, wireOf } from './ops';
import type { RawCall } from './raw';
import type { CelBatchItem, CelInputs } from './types';
import { useEngine } from './test-helpers';

useEngine();

const inputs: CelInputs = {
  object: { metadata: { name: 'web', labels: { team: 'a' } }, spec: { replicas: 3, containers: [{ image: 'r/a' }, { image: 'r/b' }] } },
  params: { max: 5, s: 'a"b\\c\n\u00e9\u{1F600}', nul: 'a\u0000b' },
  request: { operation: 'CREATE', userInfo: { username: 'alice' } },
};
const options = { hasParams: true };

/** Every kind of answer: bools (static type bool and dyn), strings, null, numbers, lists, errors, a trace. */
const vectors: CelBatchItem[] = [
  { expression: 'object.spec.replicas <= params.max', context: 'vap-validation', options },
  { expression: 'object.spec.replicas > params.max', context: 'vap-validation', options, group: 'g' },
  { expression: 'params.max == 5 ? true : params.max', context: 'vap-variable', options, group: 'g' },
  { expression: 'params.s', context: 'vap-messageExpression', options, group: 'g' },
  { expression: "'x' + object.metadata.name", context: 'vap-messageExpression', options },
  { expression: 'params.nul', context: 'vap-variable', options },
  { expression: "''", context: 'vap-messageExpression', options },
  { expression: 'null', context: 'vap-variable', options },
  { expression: 'params.?nope.orValue(null)', context: 'vap-variable', options },
  { expression: 'object.spec.replicas', context: 'vap-variable', options },
  { expression: '1.5', context: 'vap-variable', options },
  { expression: 'object.spec.containers.map(c, c.image)', context: 'vap-variable', options },
  { expression: 'object.nope == 1', context: 'vap-validation', options },
  { expression: 'object.spec.replicas +', context: 'vap-validation', options },
  { expression: "request.operation == 'CREATE'", context: 'webhook-matchCondition' },
  { expression: 'object.spec.replicas == 3 && true', context: 'vap-validation', options: { ...options, trace: true } },
];

describe('the batch wire', () => {
  test('the compact answers are the results the JSON gives, key order included', async () => {
    const batch = await evaluateBatch(vectors, inputs);
    expect(batch).toHaveLength(vectors.length);
    for (const [i, it] of vectors.entries()) {
      if (it.group) continue; // a group shares one activation and budget: its costs are the group's (batch.test.ts)
      expect(JSON.stringify(batch[i]), it.expression).toBe(JSON.stringify(await evaluate(it.expression, it.context, inputs, it.options)));
    }
    const shapes = new Set(batch.map((r) => (r.ok ? r.type : r.kind)));
    for (const t of ['bool', 'string', 'null_type', 'int', 'double', 'list', 'runtime', 'compile']) expect(shapes, t).toContain(t);
  });

  test('readBatchAnswer reads each record of the compact form and JSON', () => {
    const json = [{ ok: true, value: 1, type: 'int', staticType: 'int', display: '1', cost: 2 }];
    expect(readBatchAnswer(JSON.stringify(json))).toEqual(json);
    expect(readBatchAnswer(`\0t3\0f0\0s7\0string\0"a"\0a\0n1\0dyn\0j${JSON.stringify(json[0])}\0`)).toEqual([
      { ok: true, value: true, type: 'bool', staticType: 'bool', display: 'true', cost: 3 },
      { ok: true, value: false, type: 'bool', staticType: 'bool', display: 'false', cost: 0 },
      { ok: true, value: 'a', type: 'string', staticType: 'string', display: '"a"', cost: 7 },
      { ok: true, type: 'null_type', staticType: 'dyn', display: 'null', cost: 1, value: null },
      json[0],
    ]);
    expect(() => readBatchAnswer('\0t3')).toThrow();
  });

  describe('items by id', () => {
    let raw: RawCall;
    let other: RawCall;
    beforeAll(async () => {
      raw = await loadRawInNode();
      other = await loadRawInNode(); // a second engine: ids are per engine
    }, 60_000);
    const json = JSON.stringify(inputs);

    test('an item is sent once, then by id; the answers stay the same', () => {
      const session = newWireSession();
      const items = vectors.slice(0, 6);
      const first = wireOf(session, 'evaluateBatchOnce', [json, items]) as string[];
      expect(first[1]!.startsWith('\x01')).toBe(true);
      expect(first[1]).toContain(items[0]!.expression);
      const again = wireOf(session, 'evaluateBatchOnce', [json, items]) as string[];
      expect(again[1]).toBe('\x011\x002\x003\x004\x005\x006\x00');
      // a new array of the same item objects, one new item: only that one is sent with its fields
      const mixed = wireOf(session, 'evaluateBatch', ['x', [items[2]!, vectors[7]!, items[0]!]]) as string[];
      expect(mixed[1]).toBe(`\x013\x007\x01${vectors[7]!.expression}\x00vap-variable\x00${JSON.stringify(options)}\x00\x001\x00`);
    });

    test('new item objects equal by text to items the engine has are sent by their ids, and answer the same', () => {
      const session = newWireSession();
      const want = runOp(raw, session, 'evaluateBatchOnce', [json, vectors]);
      const copies = vectors.map((v) => ({ ...v }));
      const wire = wireOf(session, 'evaluateBatch', ['x', copies]) as string[];
      expect(wire[1]).toBe(`\x01${vectors.map((_, i) => `${i + 1}\x00`).join('')}`);
      expect(runOp(raw, session, 'evaluateBatchOnce', [json, copies])).toEqual(want);
    });

    test('an engine that does not have the ids gets the batch again with every item, and answers the same', () => {
      const session = newWireSession();
      const want = runOp(raw, session, 'evaluateBatchOnce', [json, vectors]);
      expect(runOp(raw, session, 'evaluateBatchOnce', [json, vectors])).toEqual(want);
      const sent: string[] = [];
      const spy: RawCall = (i, args) => {
        sent.push(args[1]!);
        return other(i, args);
      };
      expect(runOp(spy, session, 'evaluateBatchOnce', [json, vectors])).toEqual(want);
      expect(sent).toHaveLength(2);
      expect(sent[0]!.startsWith('\x011\x00')).toBe(true); // by id: the other engine never had them
      expect(sent[1]!.startsWith('\x02')).toBe(true); // again, with every item
      expect(sent[1]).toContain(vectors[0]!.expression);
      expect(runOp(spy, session, 'evaluateBatchOnce', [json, vectors])).toEqual(want);
      expect(sent).toHaveLength(3);
    });

    test('past ITEMS_PER_SESSION ids both sides forget their items and start again', () => {
      const session = newWireSession();
      const sent: string[] = [];
      const spy: RawCall = (i, args) => {
        sent.push(args[1]!);
        return raw(i, args);
      };
      const kept: CelBatchItem = { expression: 'object.spec.replicas == 3', context: 'vap-validation' };
      for (let n = 0; n * 500 < ITEMS_PER_SESSION + 1000; n++) {
        // items of distinct texts (their own groups): items equal by text share an id
        const items = [kept, ...Array.from({ length: 499 }, (_, i): CelBatchItem => ({ expression: 'true', context: 'vap-validation', group: `g${n}-${i}` }))];
        const rs = runOp(spy, session, 'evaluateBatchOnce', [json, items]);
        expect(rs.every((r) => r.ok && r.value === true)).toBe(true);
      }
      expect(sent.filter((s) => s.startsWith('\x02'))).toHaveLength(1);
      expect(session.next).toBeLessThan(ITEMS_PER_SESSION);
    });

    test('the common results are compact records, the rest JSON', () => {
      const wire = wireOf(newWireSession(), 'evaluateBatchOnce', [json, vectors]) as string[];
      const answer = raw(10, wire);
      const fields = answer.slice(1).split('\0');
      const tags: string[] = [];
      const width: Record<string, number> = { t: 1, f: 1, s: 4, n: 2, j: 1 }; // fields per record
      for (let i = 0; i < fields.length - 1; i += width[fields[i]![0]!]!) tags.push(fields[i]![0]!);
      expect(tags).toHaveLength(vectors.length);
      for (const t of ['t', 'f', 's', 'n', 'j']) expect(tags, answer.slice(0, 300)).toContain(t);
    });

    test('a field with a NUL character sends the batch as JSON, and registers nothing', () => {
      const session = newWireSession();
      const items: CelBatchItem[] = [vectors[0]!, { expression: "'a\0b' == 'x'", context: 'vap-validation' }];
      expect((wireOf(session, 'evaluateBatch', ['x', items]) as string[])[1]).toBe(JSON.stringify(items));
      expect(session.next).toBe(1);
    });
  });

  test('evaluateBatchOnce answers as evaluateBatch; inputs it cannot use are every item’s failure', async () => {
    const batch = await evaluateBatch(vectors, inputs);
    expect(await evaluateBatchOnce(vectors, inputs)).toEqual(batch);
    expect(await evaluateBatchOnce(vectors, { ...inputs })).toEqual(batch);
    const bad = await evaluateBatchOnce(vectors.slice(0, 3), { object: [1] as unknown as Record<string, unknown> });
    expect(bad).toHaveLength(3);
    for (const r of bad) expect(r).toMatchObject({ ok: false, kind: 'inputs', stage: 'runtime', message: expect.stringContaining('object:') });
  });
});
