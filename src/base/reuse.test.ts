import { describe, expect, it } from 'vitest';
import { deepEqual, equalInOrder, reuseUnchanged, valueKey } from './json';
import { seededRandom } from './random';

const webhook = (i: number, timeoutSeconds = 5) => ({ name: `w${i}`, rules: [{ operations: ['CREATE'], resources: ['pods'] }], timeoutSeconds });
const config = (hooks: unknown[]) => ({ kind: 'ValidatingWebhookConfiguration', metadata: { name: 'c' }, webhooks: hooks });

describe('reuseUnchanged', () => {
  it('keeps the previous value when nothing changed', () => {
    const prev = config([webhook(0), webhook(1)]);
    expect(reuseUnchanged(prev, config([webhook(0), webhook(1)]))).toBe(prev);
  });

  it('keeps the identity of the elements an edit did not touch, and the new value of the one it did', () => {
    const prev = config([webhook(0), webhook(1), webhook(2)]);
    const next = reuseUnchanged(prev, config([webhook(0), webhook(1, 45), webhook(2)]));
    expect(next).not.toBe(prev);
    expect(next.webhooks[0]).toBe(prev.webhooks[0]);
    expect(next.webhooks[2]).toBe(prev.webhooks[2]);
    expect(next.webhooks[1]).not.toBe(prev.webhooks[1]);
    expect(next.webhooks[1]).toEqual(webhook(1, 45));
    expect((next.webhooks[1] as ReturnType<typeof webhook>).rules).toBe((prev.webhooks[1] as ReturnType<typeof webhook>).rules);
    expect(next.metadata).toBe(prev.metadata);
  });

  it('matches list elements from both ends when one is inserted or removed', () => {
    const prev = config([webhook(0), webhook(1), webhook(2)]);
    const inserted = reuseUnchanged(prev, config([webhook(0), webhook(9), webhook(1), webhook(2)]));
    expect(inserted.webhooks[0]).toBe(prev.webhooks[0]);
    expect(inserted.webhooks[2]).toBe(prev.webhooks[1]);
    expect(inserted.webhooks[3]).toBe(prev.webhooks[2]);
    expect(inserted.webhooks[1]).toEqual(webhook(9));
    const removed = reuseUnchanged(prev, config([webhook(0), webhook(2)]));
    expect(removed.webhooks).toEqual([webhook(0), webhook(2)]);
    expect(removed.webhooks[1]).toBe(prev.webhooks[2]);
  });

  it('treats a change of key order, type or a missing key as a change', () => {
    const prev = { a: 1, b: { c: 2 } };
    const reordered = reuseUnchanged(prev, { b: { c: 2 }, a: 1 });
    expect(reordered).not.toBe(prev);
    expect(Object.keys(reordered)).toEqual(['b', 'a']);
    expect(reordered.b).toBe(prev.b);
    expect(reuseUnchanged(prev, { a: '1', b: { c: 2 } })).toEqual({ a: '1', b: { c: 2 } });
    expect(reuseUnchanged({ a: 1, b: undefined }, { a: 1, c: undefined })).toEqual({ a: 1, c: undefined });
    expect(reuseUnchanged([1, 2], { 0: 1, 1: 2 })).toEqual({ 0: 1, 1: 2 });
    expect(reuseUnchanged({ l: [] }, { l: {} })).toEqual({ l: {} });
  });
});

describe('valueKey', () => {
  it('is the same only for deep-equal values (seeded)', () => {
    const r = seededRandom(5);
    const values: unknown[] = [];
    for (let n = 0; n < 300; n++) values.push(randomValue(r, 3));
    values.push(1, '1', 1n, '1n', true, 'true', null, 'null', [], {}, [null], ['null'], { a: undefined }, { a: null }, -0, 0);
    for (const a of values) for (const b of values) if (valueKey(a) === valueKey(b)) expect(deepEqual(a, b), `${valueKey(a)}`).toBe(true);
    expect(valueKey({ a: [1, 'x'], b: { c: null } })).toBe(valueKey({ a: [1, 'x'], b: { c: null } }));
  });
});

describe('equalInOrder', () => {
  it('is valueKey equality without its strings (seeded; NaN equal to nothing)', () => {
    const r = seededRandom(7);
    const values: unknown[] = [];
    for (let n = 0; n < 300; n++) values.push(randomValue(r, 3));
    values.push(1, '1', 1n, true, null, [], {}, [null], { a: undefined }, {}, { a: 1, b: 2 }, { b: 2, a: 1 }, -0, 0);
    // the same values built again (other objects): equal where they are
    const again = values.map((v) => (typeof v === 'object' && v !== null ? structuredClone(v) : v));
    for (const a of values)
      for (const b of [...values, ...again]) expect(equalInOrder(a, b), `${valueKey(a)} ${valueKey(b)}`).toBe(valueKey(a) === valueKey(b));
    expect(equalInOrder(Number.NaN, Number.NaN)).toBe(false);
    expect(equalInOrder([1], { 0: 1 })).toBe(false);
  });
});

function randomValue(r: () => number, depth: number): unknown {
  const pick = r();
  if (depth === 0 || pick < 0.4) return [null, true, false, 0, 1, -1, 2n, 'a', 'b', '1', 'null', ''][Math.floor(r() * 12)];
  if (pick < 0.7) return Array.from({ length: Math.floor(r() * 3) }, () => randomValue(r, depth - 1));
  const o: Record<string, unknown> = {};
  for (const k of ['a', 'b', 'c']) if (r() < 0.5) o[k] = randomValue(r, depth - 1);
  return o;
}
