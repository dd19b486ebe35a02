import { describe, expect, it } from 'vitest';
import { getIn, insertAt, moveAt, removeAt, setIn } from './edit';

describe('object edits', () => {
  const obj = { webhooks: [{ name: 'a', rules: [{ operations: ['CREATE'] }] }, { name: 'b' }] };

  it('gets nested values and misses cleanly', () => {
    expect(getIn(obj, ['webhooks', 0, 'rules', 0, 'operations', 0])).toBe('CREATE');
    expect(getIn(obj, ['webhooks', 5, 'name'])).toBeUndefined();
    expect(getIn(obj, ['webhooks', 'x'])).toBeUndefined();
  });

  it('sets without mutating and shares untouched branches', () => {
    const next = setIn(obj, ['webhooks', 1, 'timeoutSeconds'], 5) as typeof obj;
    expect(next.webhooks[1]).toEqual({ name: 'b', timeoutSeconds: 5 });
    expect(obj.webhooks[1]).toEqual({ name: 'b' });
    expect(next.webhooks[0]).toBe(obj.webhooks[0]);
  });

  it('creates missing parents and removes with undefined', () => {
    expect(setIn({}, ['a', 'b', 0, 'c'], 1)).toEqual({ a: { b: [{ c: 1 }] } });
    expect(setIn({ a: 1, b: 2 }, ['a'], undefined)).toEqual({ b: 2 });
    expect(setIn({ l: [1, 2, 3] }, ['l', 1], undefined)).toEqual({ l: [1, 3] });
  });

  it('inserts, removes and moves list elements', () => {
    expect(insertAt({ l: ['a'] }, ['l'], 'b')).toEqual({ l: ['a', 'b'] });
    expect(insertAt({ l: ['a', 'c'] }, ['l'], 'b', 1)).toEqual({ l: ['a', 'b', 'c'] });
    expect(insertAt({}, ['l'], 'x')).toEqual({ l: ['x'] });
    expect(removeAt({ l: ['a', 'b', 'c'] }, ['l'], 1)).toEqual({ l: ['a', 'c'] });
    expect(moveAt({ l: ['a', 'b', 'c'] }, ['l'], 0, 2)).toEqual({ l: ['b', 'c', 'a'] });
    expect(moveAt({ l: ['a', 'b'] }, ['l'], 0, 5)).toEqual({ l: ['a', 'b'] });
  });
});
