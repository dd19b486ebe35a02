/** The comparison of two releases' problems: same place and words match, same place with other words changed, the rest appears or is gone. */
import { describe, expect, it } from 'vitest';
import { upgradeChanges, upgradeUsageError, type UpgradeProblem } from './upgrade';

const p = (field: string, message: string, severity: UpgradeProblem['severity'] = 'error', rule?: string): UpgradeProblem => ({
  file: 'a.yaml',
  document: 0,
  kind: 'ValidatingAdmissionPolicy',
  name: 'v',
  field,
  type: rule ? 'Case' : 'Invalid',
  severity,
  message,
  ...(rule ? { rule } : {}),
});

describe('upgradeChanges', () => {
  it('pairs problems by place and words, counting repeats', () => {
    const same = p('spec.x', 'bad');
    const changes = upgradeChanges(
      [same, same, p('c', 'denied: one', 'error', 'case'), p('spec.y', 'gone', 'warning'), p('spec.v', 'old words')],
      [same, p('c', 'denied: other', 'error', 'case'), p('spec.z', 'new', 'finding'), p('spec.w', 'new error'), p('spec.v', 'new words')],
      '1.36',
      '1.37',
    );
    expect(changes.map((c) => [c.change, c.problem.field, c.before?.message, c.worse])).toEqual([
      ['changed', 'c', 'denied: one', true],
      ['appears', 'spec.z', undefined, false],
      ['appears', 'spec.w', undefined, true],
      ['changed', 'spec.v', 'old words', false],
      ['gone', 'spec.x', undefined, false],
      ['gone', 'spec.y', undefined, false],
    ]);
    expect(changes.every((c) => c.release === '1.37')).toBe(true);
  });

  it('nothing changes between equal lists', () => {
    expect(upgradeChanges([p('a', 'x'), p('b', 'y', 'warning')], [p('b', 'y', 'warning'), p('a', 'x')], '1.36', '1.37')).toEqual([]);
  });

  it('a message naming its own release is the same at both releases; naming another release is not', () => {
    const at = (v: string) => p('spec.x', `can be written from Kubernetes 1.34; a ${v} apiserver rejects this expression`, 'finding');
    expect(upgradeChanges([at('1.30')], [at('1.33')], '1.30', '1.33')).toEqual([]);
    expect(upgradeChanges([at('1.30')], [at('1.31')], '1.30', '1.33').map((c) => c.change)).toEqual(['changed']);
    // 1.3 is not 1.30's prefix match, 1.300 is not 1.30
    expect(upgradeChanges([p('a', 'x 1.300')], [p('a', 'x 1.330')], '1.30', '1.33').map((c) => c.change)).toEqual(['changed']);
  });

  it('usage: an unknown release, or the target itself', () => {
    expect(upgradeUsageError('1.99', '1.37')).toMatch(/^--upgrade-from must be one of /);
    expect(upgradeUsageError('v1.37', '1.37')).toMatch(/is the target release itself/);
    expect(upgradeUsageError('1.36', '1.37')).toBeUndefined();
  });
});
