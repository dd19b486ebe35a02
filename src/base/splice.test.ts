/** base/splice.ts: what a list sends as a change to another, and what lists remember of how they were made. */
import { describe, expect, it } from 'vitest';
import { noteSplice, splice, spliceBetween, unsplice } from './splice';

describe('splice', () => {
  it('sends what changed between two arrays; the other end rebuilds the new one, keeping the objects that stayed', () => {
    const o = Array.from({ length: 6 }, (_, i) => ({ i }));
    const cases: [unknown[], unknown[]][] = [
      [o, o],
      [o, [...o, { i: 6 }]],
      [o, o.slice(1)],
      [o, [o[0], { i: 9 }, ...o.slice(2)]],
      [o, [o[0], o[2], o[1], ...o.slice(3)]],
      [
        [o[0], o[0], o[0]],
        [o[0], o[0]],
      ],
      [[], o],
      [o, []],
    ];
    for (const [from, to] of cases) {
      const s = splice(from, to);
      // across a thread, as a message: only the middle is cloned, the rest is the receiver's own
      const there = unsplice(from, structuredClone(s));
      expect(there).toEqual(to);
      expect(there.slice(0, s.keep).every((x, i) => x === from[i])).toBe(true);
      expect(s.middle.length).toBe(to.length - s.keep - s.tail);
    }
    expect(splice(o, [o[0], { i: 9 }, ...o.slice(2)])).toEqual({ keep: 1, tail: 4, middle: [{ i: 9 }] });
  });
});

describe('noteSplice', () => {
  const o = Array.from({ length: 10 }, (_, i) => ({ i }));

  it('a list remembers its ancestors, each with the start and end it kept of it', () => {
    const a = [...o];
    const b = [...a];
    b[7] = { i: 70 };
    noteSplice(b, a, 7, 2);
    const c = [...b, { i: 10 }];
    c[2] = { i: 20 };
    noteSplice(c, b, 2, 0);
    expect(spliceBetween(b, c)).toEqual({ keep: 2, tail: 0 });
    expect(spliceBetween(a, c)).toEqual({ keep: 2, tail: 0 });
    expect(spliceBetween(a, b)).toEqual({ keep: 7, tail: 2 });
    expect(spliceBetween(c, c)).toEqual({ keep: 11, tail: 0 });
    // not one of its ancestors: unknown (a pass over both finds it)
    expect(spliceBetween(c, a)).toBeUndefined();
    expect(spliceBetween([...o], c)).toBeUndefined();
    // the noted change is what is sent, the rest rebuilt from the receiver's own
    expect(splice(a, b)).toEqual({ keep: 7, tail: 2, middle: [{ i: 70 }] });
    expect(unsplice(a, splice(a, c))).toEqual(c);
  });

  it('a list made by unsplice remembers the list it was made of', () => {
    const a = [...o];
    const b = unsplice(a, { keep: 3, tail: 6, middle: [{ i: 30 }] });
    expect(spliceBetween(a, b)).toEqual({ keep: 3, tail: 6 });
  });

  it('remembers a few ancestors, not all', () => {
    const lists = [[...o]];
    for (let k = 0; k < 12; k++) {
      const next = [...lists[lists.length - 1]!];
      next[k % 10] = { i: 100 + k };
      noteSplice(next, lists[lists.length - 1]!, k % 10, 9 - (k % 10));
      lists.push(next);
    }
    const last = lists[lists.length - 1]!;
    expect(spliceBetween(lists[lists.length - 8]!, last)).toBeDefined();
    expect(spliceBetween(lists[0]!, last)).toBeUndefined();
  });
});
