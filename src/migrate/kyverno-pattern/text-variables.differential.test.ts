/**
 * The differential against the Kyverno engine (differential.test.ts) on the library's rules with
 * variables inside a text (fixtures/kyverno-pattern-text: policy-for-exceptions, metadata-match-regex),
 * in a test file of its own, which runs beside the other fixtures' on another worker.
 */
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../../fixtures';
import { useEngine } from '../../cel/test-helpers';
import { corpusDifferential } from './test-helpers';
import { ORACLE_TEST_TIMEOUT } from '../../../tools/go-oracle.mjs';

useEngine('native');

describe('Kyverno pattern rules with variables inside a text against the Kyverno engine', () => {
  it('every rule called exact decides as Kyverno on objects built from it and their mutants', { timeout: ORACLE_TEST_TIMEOUT }, async () => {
    const { exact, wrong } = await corpusDifferential(fixturePath('kyverno-pattern-text'), Number(process.env.KYVERNO_PATTERN_MUTANTS ?? 200));
    expect(exact).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });
});
