import { describe, expect, it } from 'vitest';
import { tupleMap } from './tuple-map';

describe('tupleMap', () => {
  it('keys by the tuple, not by a joined text', () => {
    const m = tupleMap<number>();
    m.set(['a\0b', 'c'], 1);
    m.set(['a', 'b\0c'], 2);
    m.set(['a', 'b'], 3);
    expect([m.get(['a\0b', 'c']), m.get(['a', 'b\0c']), m.get(['a', 'b']), m.get(['a']), m.get(['a', 'b', 'c'])]).toEqual([1, 2, 3, undefined, undefined]);
  });
  it('tells a stored undefined from none, and forgets a deleted key only', () => {
    const m = tupleMap<number | undefined>();
    m.set(['x', 'y'], undefined);
    m.set(['x', 'z'], 4);
    expect([m.has(['x', 'y']), m.has(['x']), m.has(['x', 'q'])]).toEqual([true, false, false]);
    m.delete(['x', 'y']);
    m.delete(['nothing', 'here']);
    expect([m.has(['x', 'y']), m.get(['x', 'z'])]).toEqual([false, 4]);
  });
});
