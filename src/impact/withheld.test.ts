import { describe, expect, it } from 'vitest';
import { withheldObjects } from './withheld';

describe('withheldObjects', () => {
  it('releases what is due at a time, in the order it was withheld, and nothing the log wrote meanwhile', () => {
    const w = withheldObjects();
    w.hold('c', 'C', 3000);
    w.hold('a', 'A', 1000);
    w.hold('b', 'B', 1000);
    w.hold('d', 'D', 2000);
    expect(w.size).toBe(4);
    expect(w.due(999)).toEqual([]);
    expect(w.due(Number.NaN)).toEqual([]);
    // withheld c, a, b, d: due at 2000 are a, b and d, in that order (not by release time)
    w.hold('e', 'E', 1500);
    expect(w.delete('b')).toBe(true);
    expect(w.due(2000)).toEqual([
      ['a', 'A'],
      ['d', 'D'],
      ['e', 'E'],
    ]);
    expect(w.has('a')).toBe(false);
    expect(w.has('c')).toBe(true);
    // withheld again after the log wrote it: its new release, its new place
    w.hold('b', 'B2', 2500);
    w.hold('f', 'F', 500);
    expect(w.due(5000)).toEqual([
      ['c', 'C'],
      ['b', 'B2'],
      ['f', 'F'],
    ]);
    expect(w.size).toBe(0);
  });
});
