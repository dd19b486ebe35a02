/**
 * The Gatekeeper audit-log fixture (testdata/gatekeeper-audit) is what a real kube-apiserver 1.37.2
 * calling Gatekeeper v3.23.1's own validating webhook writes today: TestGatekeeperAuditLog re-runs
 * the traffic with GATEKEEPER_CHECK and fails when the log's events (verb, user, object, response
 * code, Gatekeeper's denial message) differ from the checked-in log. src/impact/conversion-gatekeeper.test.ts
 * replays that log with the converted policies. A pass is remembered for these binaries and these files.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOracleAsync, ORACLE_BUILDS, oracleCacheDir, repoRoot, runOracle, ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';

describe('the Gatekeeper audit-log fixture', () => {
  it('TestGatekeeperAuditLog re-derives the audit log of testdata/gatekeeper-audit (Gatekeeper v3.23.1 behind kube-apiserver 1.37.2)', {
    timeout: ORACLE_TEST_TIMEOUT,
  }, async () => {
    const fixture = resolve(repoRoot, 'tools/admission-oracle/testdata/gatekeeper-audit');
    const [apiserver, gatekeeper] = await Promise.all([
      buildOracleAsync(ORACLE_BUILDS['admission-oracle-1.37']),
      buildOracleAsync(ORACLE_BUILDS['gatekeeper-oracle']),
    ]);
    const key = createHash('sha256').update(apiserver.path).update(gatekeeper.path);
    for (const f of ['policy.yaml', 'policies.yaml', 'audit.log'])
      key
        .update(f)
        .update('\0')
        .update(readFileSync(join(fixture, f)))
        .update('\0');
    const passed = join(oracleCacheDir, `gatekeeper-audit-check-${key.digest('hex').slice(0, 16)}`);
    if (existsSync(passed)) return;
    const t0 = Date.now();
    const out = await runOracle(apiserver.path, '', ['-test.run', '^TestGatekeeperAuditLog$', '-test.count', '1', '-test.timeout', '10m', '-test.v'], {
      GATEKEEPER_CHECK: fixture,
      GATEKEEPER_ORACLE: gatekeeper.path,
    });
    console.info(`TestGatekeeperAuditLog (GATEKEEPER_CHECK) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    expect(out).toMatch(/--- PASS: TestGatekeeperAuditLog/);
    writeFileSync(passed, new Date().toISOString());
  });
});
