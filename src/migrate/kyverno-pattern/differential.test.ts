/**
 * The differential against the Kyverno engine: for every converted rule of the fixture policies,
 * Kyverno v1.19 (tools/kyverno-oracle, pkg/engine) and the Workbench's admission of the converted
 * policy decide the rule's test resources, objects built to reach the rule (reach.ts) and mutants
 * of them, until at least MUTANTS distinct objects reach the rule (Kyverno evaluates it: matched,
 * preconditions held). A rule the converter calls exact must have no disagreement and that many
 * objects. KYVERNO_PATTERN_CORPUS=<folder> runs it over
 * another library (the whole kyverno/policies pattern folder); KYVERNO_PATTERN_REPORT=<file>
 * writes the per-rule counts as JSON. On the native engine: the engine's memory grows to gigabytes
 * over a run of every fixture, more than the in-process WebAssembly engine is sure to hold (its 32-bit
 * memory, where every call failed past 2 GiB). (The fixtures of variables inside a text
 * run in text-variables.differential.test.ts, beside this file on another worker.)
 */
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../../fixtures';
import { useEngine } from '../../cel/test-helpers';
import { corpusDifferential } from './test-helpers';
import { ORACLE_TEST_TIMEOUT } from '../../../tools/go-oracle.mjs';

useEngine('native');

const MUTANTS = Number(process.env.KYVERNO_PATTERN_MUTANTS ?? 200);
const ROOT = process.env.KYVERNO_PATTERN_CORPUS ?? fixturePath('kyverno-pattern');

describe('Kyverno pattern rules against the Kyverno engine', () => {
  it('every rule called exact decides as Kyverno on its test resources and their mutants', { timeout: ORACLE_TEST_TIMEOUT }, async () => {
    const { exact, wrong } = await corpusDifferential(ROOT, MUTANTS, process.env.KYVERNO_PATTERN_REPORT);
    expect(exact).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });
});
