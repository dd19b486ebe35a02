import { describe, expect, it } from 'vitest';
import type { Problem } from '../store';
import { createFormProblems, nextProblemsByPath, type ProblemsByPath, problemsByPath, updateFormProblems } from './form-context';

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

  it('regroups only the touched paths and equals grouping from scratch (random edits of a large list)', () => {
    // A seeded generator: the same sequence every run.
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    let items: Problem[] = Array.from({ length: 400 }, (_, i) => problem(`webhooks[${i % 120}].x`, `m${i}`));
    let byPath: ProblemsByPath = problemsByPath(items);
    for (let step = 0; step < 120; step++) {
      const next = [...items];
      const kind = rand(5);
      const at = rand(next.length + 1);
      if (kind === 0) next.splice(at, 0, problem(`webhooks[${rand(130)}].x`, `new${step}`));
      else if (kind === 1 && next.length) next.splice(at % next.length, 1);
      else if (kind === 2 && next.length)
        next[at % next.length] = problem(next[at % next.length].field, next[at % next.length].message); // same text, new object
      else if (kind === 3 && next.length > 1)
        next.push(next.splice(at % next.length, 1)[0]); // reordered
      else if (next.length) next[at % next.length] = problem(`webhooks[${rand(130)}].y`, `moved${step}`);
      const incremental = nextProblemsByPath(items, byPath, next);
      const scratch = problemsByPath(next, byPath);
      const sorted = (m: ReadonlyMap<string, readonly Problem[]>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));
      expect(sorted(incremental)).toEqual(sorted(scratch));
      expect(sorted(nextProblemsByPath(items, new Map(byPath), next, true))).toEqual(sorted(scratch));
      // The arrays kept are the very same ones (controls there are not re-rendered).
      for (const [path, list] of scratch) expect(incremental.get(path) === byPath.get(path)).toBe(list === byPath.get(path));
      items = next;
      byPath = incremental;
    }
  });
});
