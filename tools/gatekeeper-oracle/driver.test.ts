/**
 * Differential test of the standalone conversion (src/migrate/gatekeeper/standalone.ts) against
 * Gatekeeper v3.23's own CEL driver (tools/gatekeeper-oracle review, driver.ts): every library
 * template with CEL and the constraints of its samples, on the samples' objects and mutants of them.
 * The constraints the Workbench converts must be decided alike on every request; the counts are
 * pinned so that a change in coverage shows.
 */
import { describe, expect, it } from 'vitest';
import { useEngine } from '../../src/cel/test-helpers';
import { buildOracleAsync, ORACLE_BUILDS, ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';
import { libraryCases } from './cases';
import { driverDifferential } from './driver';

useEngine();

describe("standalone equals Gatekeeper v3.23's CEL driver", () => {
  it('decides the library samples and their mutants as Gatekeeper does', { timeout: ORACLE_TEST_TIMEOUT }, async () => {
    const bin = await buildOracleAsync(ORACLE_BUILDS['gatekeeper-oracle']);
    const cases = libraryCases();
    const t0 = Date.now();
    const results = await driverDifferential(bin.path, cases, 8);
    const tried = results.reduce((n, r) => n + r.tried, 0);
    const disagreeing = results
      .filter((r) => r.disagreements > 0)
      .map((r) => `${r.template}/${r.constraint}: ${r.disagreements} of ${r.tried}\n  ${r.examples.join('\n  ')}`);
    console.info(
      `Gatekeeper CEL driver differential: ${cases.length} templates, ${results.length} constraints, ${tried} decisions, ${disagreeing.length} constraints disagreeing, in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    expect(disagreeing).toEqual([]);
    for (const r of results) expect(r.rule.status, `${r.template}/${r.constraint}: ${r.rule.reason}`).not.toBe('unsupported');
  });
});
