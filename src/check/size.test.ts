/** objectBytes is the UTF-8 length of JSON.stringify, without serializing; the size findings at their limits. */
import { describe, expect, it } from 'vitest';
import { byteLength } from '../base/json';
import { seededRandom } from '../base/random';
import { ETCD_DEFAULT_MAX_REQUEST_BYTES, MAX_REQUEST_BODY_BYTES, objectBytes, sizeProblems } from './size';

const STRINGS = ['', 'a', 'é', '日本', '😀', '"quote"', 'back\\slash', 'line\nbreak', '\u0000\u001f', '\u2028', 'kube-system'];

function randomValue(r: () => number, depth = 0): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const k = depth > 3 ? Math.floor(r() * 4) : Math.floor(r() * 6);
  switch (k) {
    case 0:
      return pick(STRINGS);
    case 1:
      return pick([0, -1, 1.5, 1e21, 123456789, -0.000001]);
    case 2:
      return pick([true, false, null]);
    case 3:
      return pick(STRINGS) + String(Math.floor(r() * 1000));
    case 4:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: Math.floor(r() * 4) }, () => [pick(STRINGS), randomValue(r, depth + 1)]));
  }
}

describe('objectBytes', () => {
  it('equals the UTF-8 length of JSON.stringify for random JSON values', () => {
    const r = seededRandom(7);
    for (let i = 0; i < 500; i++) {
      const v = randomValue(r);
      expect(objectBytes(v)).toBe(byteLength(JSON.stringify(v)));
    }
  });
  it('skips undefined members as JSON does, and follows an edit of a shared child', () => {
    const child = { a: 'b' };
    const o = { x: undefined, c: child, l: [undefined] };
    expect(objectBytes(o)).toBe(byteLength(JSON.stringify(o)));
    const edited = { ...o, c: { ...child, d: 'é' } };
    expect(objectBytes(edited)).toBe(byteLength(JSON.stringify(edited)));
  });
});

describe('sizeProblems', () => {
  it("nothing up to etcd's 1.5 MiB, a warning above it, the apiserver's 413 error above 3 MiB", () => {
    expect(sizeProblems({}, ETCD_DEFAULT_MAX_REQUEST_BYTES)).toEqual([]);
    expect(sizeProblems({}, ETCD_DEFAULT_MAX_REQUEST_BYTES + 1)).toMatchObject([{ severity: 'warning' }]);
    expect(sizeProblems({}, MAX_REQUEST_BODY_BYTES)).toMatchObject([{ severity: 'warning' }]);
    expect(sizeProblems({}, MAX_REQUEST_BODY_BYTES + 1)).toMatchObject([{ message: 'Request entity too large: limit is 3145728' }]);
  });
});
