import { describe, expect, it } from 'vitest';
import type { Problem } from '../store';
import { createFormProblems, problemsByPath, updateFormProblems } from './form-context';

const problem = (field: string, message: string, fixTitles: string[] = []): Problem => ({
  field,
  message,
  level: 'warning',
  label: 'W01',
  lint: 'some-lint',
  ...(fixTitles.length ? { fixes: fixTitles.map((title) => ({ title, apply: (object: unknown) => ({ object }) })) } : {}),
});

describe('form problems', () => {
  it('groups problems by path', () => {
    const byPath = problemsByPath([problem('a', '1'), problem('b', '2'), problem('a', '3')]);
    expect([...byPath.keys()]).toEqual(['a', 'b']);
    expect(byPath.get('a')!.map((p) => p.message)).toEqual(['1', '3']);
  });

  it('keeps the array of a path whose problems read the same (new objects, new fixes), so its controls are not re-rendered', () => {
    const before = problemsByPath([problem('a', '1', ['Fix it']), problem('b', '2')]);
    const after = problemsByPath([problem('a', '1', ['Fix it']), problem('b', 'changed'), problem('c', '3')], before);
    expect(after.get('a')).toBe(before.get('a'));
    expect(after.get('b')).not.toBe(before.get('b'));
    expect(after.get('b')![0].message).toBe('changed');
    expect(after.get('c')![0].message).toBe('3');
    // Another fix offered is a change too.
    expect(problemsByPath([problem('a', '1', ['Fix it', 'Or this'])], before).get('a')).not.toBe(before.get('a'));
  });

  it('notifies a path only when its problems change', () => {
    const store = createFormProblems([problem('a', '1'), problem('b', '2')]);
    const a = store.getState().byPath.get('a');
    updateFormProblems(store, [problem('a', '1'), problem('b', '2!')]);
    expect(store.getState().byPath.get('a')).toBe(a);
    expect(store.getState().byPath.get('b')![0].message).toBe('2!');
    updateFormProblems(store, []);
    expect(store.getState().byPath.size).toBe(0);
  });
});
