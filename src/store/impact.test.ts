/** How many decider workers the Impact view starts: one per core beside the replay worker's, within bounds. */
import { describe, expect, it } from 'vitest';
import { deciderCount, MAX_DECIDERS } from './impact';

describe('deciderCount', () => {
  it('leaves a core to the replay worker, starts at least one and at most MAX_DECIDERS', () => {
    expect([1, 2, 3, 4, 16, 64].map((cores) => deciderCount(cores))).toEqual([1, 1, 2, 3, MAX_DECIDERS, MAX_DECIDERS]);
    expect(MAX_DECIDERS).toBe(8);
  });
});
