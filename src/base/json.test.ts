import { describe, expect, it } from 'vitest';
import { byteLength, cloneJson, deepEqual, isObject, labelsOf, list, obj, objList, str, strList, trimSpace } from './json';

describe('JSON value helpers', () => {
  it('read odd shapes without throwing', () => {
    expect([isObject({}), isObject([]), isObject(null), isObject('x')]).toEqual([true, false, false, false]);
    expect([str(1), str('a'), strList(['a', 1, null, 'b']), strList('a'), list({}), obj([]), objList([{ a: 1 }, 2, null])]).toEqual([
      '',
      'a',
      ['a', 'b'],
      [],
      [],
      {},
      [{ a: 1 }],
    ]);
    expect(labelsOf({ metadata: { labels: { app: 'x', n: 1 } } })).toEqual({ app: 'x' });
    expect(labelsOf('nope')).toEqual({});
  });
  it('deepEqual ignores key order and tells lists, objects and scalars apart', () => {
    expect(deepEqual({ a: [1, { b: 2 }], c: null }, { c: null, a: [1, { b: 2 }] })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(deepEqual([1], { 0: 1 })).toBe(false);
    expect(deepEqual('1', 1)).toBe(false);
  });
  it('cloneJson copies deeply', () => {
    const a = { x: [{ y: 1 }] };
    const b = cloneJson(a);
    expect(b).toEqual(a);
    expect(b.x[0]).not.toBe(a.x[0]);
    expect(cloneJson(undefined)).toBeUndefined();
  });
  it("byteLength is Go's len: UTF-8 bytes, lone surrogates as U+FFFD", () => {
    for (const s of ['', 'abc', 'é', '€', '😀', 'a😀b€', '\ud800', '\udc00x', '\ud800\ud800']) {
      expect(byteLength(s), JSON.stringify(s)).toBe(new TextEncoder().encode(s).length);
    }
  });
  it("trimSpace is Go's strings.TrimSpace: U+0085 and U+00A0 are space, U+FEFF is not", () => {
    expect(trimSpace('\u0085\t x y \u00a0\u3000\n')).toBe('x y');
    expect(trimSpace('\ufeffx\ufeff')).toBe('\ufeffx\ufeff');
    expect(trimSpace('\u200bx')).toBe('\u200bx');
  });
});
