/**
 * The Kyverno audit-log fixture (testdata/kyverno-audit) is what a real kube-apiserver 1.37.2
 * calling Kyverno v1.19.1's own validating webhook writes today: TestKyvernoAuditLog re-runs the
 * traffic with KYVERNO_CHECK and fails when the log's events (verb, user, object, response code)
 * differ from the checked-in log. src/impact/conversion.test.ts replays that log with the converted
 * policies. A pass is remembered for these binaries and these files.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOracleAsync, ORACLE_BUILDS, oracleCacheDir, repoRoot, runOracle, ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';

describe('the Kyverno audit-log fixture', () => {
  it('TestKyvernoAuditLog re-derives the audit log of testdata/kyverno-audit (Kyverno v1.19.1 behind kube-apiserver 1.37.2)', {
    timeout: ORACLE_TEST_TIMEOUT,
  }, async () => {
    const fixture = resolve(repoRoot, 'tools/admission-oracle/testdata/kyverno-audit');
    const [apiserver, kyverno] = await Promise.all([
      buildOracleAsync(ORACLE_BUILDS['admission-oracle-1.37']),
      buildOracleAsync(ORACLE_BUILDS['kyverno-oracle']),
    ]);
    const key = createHash('sha256').update(apiserver.path).update(kyverno.path);
    for (const f of ['policy.yaml', 'policies.yaml', 'audit.log'])
      key
        .update(f)
        .update('\0')
        .update(readFileSync(join(fixture, f)))
        .update('\0');
    const passed = join(oracleCacheDir, `kyverno-audit-check-${key.digest('hex').slice(0, 16)}`);
    if (existsSync(passed)) return;
    const t0 = Date.now();
    const out = await runOracle(apiserver.path, '', ['-test.run', '^TestKyvernoAuditLog$', '-test.count', '1', '-test.timeout', '10m', '-test.v'], {
      KYVERNO_CHECK: fixture,
      KYVERNO_ORACLE: kyverno.path,
    });
    console.info(`TestKyvernoAuditLog (KYVERNO_CHECK) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    expect(out).toMatch(/--- PASS: TestKyvernoAuditLog/);
    writeFileSync(passed, new Date().toISOString());
  });
});
