import { describe, expect, it } from 'vitest';
import { diffHunks, diffLines } from './line-diff';

const render = (lines: ReturnType<typeof diffLines>) => lines.map((l) => `${l.op}${l.text}`);

describe('diffLines', () => {
  it('keeps common lines and marks added and removed ones', () => {
    expect(render(diffLines('a\nb\nc\nd', 'a\nB\nc\nd\ne'))).toEqual([' a', '-b', '+B', ' c', ' d', '+e']);
  });
  it('no change', () => {
    expect(render(diffLines('x\ny', 'x\ny'))).toEqual([' x', ' y']);
  });
  it('an insertion in the middle aligns the rest', () => {
    expect(render(diffLines('k: 1\nl: 2\nm: 3', 'k: 1\nnew: 0\nl: 2\nm: 3'))).toEqual([' k: 1', '+new: 0', ' l: 2', ' m: 3']);
  });
  it('hunks: only changes with context', () => {
    const lines = diffLines('1\n2\n3\n4\n5\n6\n7\n8', '1\n2\n3\n4\n5\n6\n7\nX');
    expect(diffHunks(lines, 1).map((l) => (l === '…' ? l : `${l.op}${l.text}`))).toEqual(['…', ' 7', '-8', '+X']);
  });
});
