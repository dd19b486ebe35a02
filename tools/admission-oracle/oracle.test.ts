/**
 * Differential test: simulate() against a real kube-apiserver (tools/admission-oracle: the
 * in-process apiserver of k8s.io/kubernetes 1.36, and of 1.37.2 — the same program built with
 * `-modfile go.1.37.mod` — on an embedded etcd, shared by the scenarios
 * that can share it (each scenario's objects created, waited for and deleted again), webhooks
 * served locally, each request replayed as a dry run as the scenario's user). What "agree"
 * means: compare.ts. Every disagreement fails the test, printed with its scenario.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulate } from '../../src/admission';
import { useEngine } from '../../src/cel/test-helpers';
import type { KubernetesVersion } from '../../src/base/releases';
import { buildOracleAsync, ORACLE_BUILDS, oracleCacheDir, repoRoot, runOracle, type OracleBuild, ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';
import { compareAnswers, type OracleAnswer } from './compare';
import { generated } from './random-scenarios';
import type { OracleScenario } from './scenario-builders';
import { HAND_WRITTEN } from './scenarios';
import { TYPED_SCENARIOS } from './typed-scenarios';

/** Generated scenarios per run (each costs about 0.5 s on the shared apiserver) and their seed. */
const GENERATED = 25;
const SEED = 0xad_2026;

const ALL: OracleScenario[] = [...HAND_WRITTEN, ...TYPED_SCENARIOS, ...generated(GENERATED, SEED)];

/**
 * At 1.38 (a pre-release, Go 1.27) the scenarios where releases differ or the chain's order
 * matters, not all of them (npm test's time): the validating plugins' order (a VAP before the
 * webhooks, where the AuthorizationConditionsEnforcer now sits between them, inert with its gate
 * off), MAP/webhook reinvocation, audit annotations, the review-request exclusions, and every
 * typed scenario (how the release's apiserver decodes objects, k8s.io/apimachinery v0.38).
 */
const AT_138 = /VAP deny stops|MAP then webhook|sees the MAP mutation|VAP Audit only|both kept|TokenReview|SubjectAccessReview|reinvocation:/;
const SUBSET_138 = ALL.filter((s) => TYPED_SCENARIOS.includes(s) || AT_138.test(s.name));

interface OracleRun {
  build: OracleBuild;
  scenarios: OracleScenario[];
  /** The Workbench release simulate() runs at (1.38's row is not in the table yet: the newest, 1.37). */
  release: KubernetesVersion;
}

/** One program, three releases: go.mod pins 1.36; `-modfile go.1.37.mod` builds it on 1.37.2, `-modfile go.1.38.mod` (Go 1.27) on v1.38.0-beta.0. */
const BUILDS: Record<string, OracleRun> = {
  '1.36': { build: ORACLE_BUILDS['admission-oracle'], scenarios: ALL, release: '1.36' },
  '1.37': { build: ORACLE_BUILDS['admission-oracle-1.37'], scenarios: ALL, release: '1.37' },
  '1.38': { build: ORACLE_BUILDS['admission-oracle-1.38'], scenarios: SUBSET_138, release: '1.38' },
};
/** ORACLE_RELEASES=1.38 (comma-separated) runs only those releases' scenarios. */
const only = process.env.ORACLE_RELEASES?.split(',');
const RELEASES = Object.fromEntries(Object.entries(BUILDS).filter(([r]) => !only || only.includes(r)));

useEngine();

/** A release's answers: each release runs its own apiserver, so both (and the audit-log check below) run at once. */
async function oracleAnswers(release: string, build: OracleBuild, scenarios: OracleScenario[]): Promise<OracleAnswer[]> {
  const bin = await buildOracleAsync(build);
  if (bin.built) console.info(`built ${build.name} in ${bin.seconds.toFixed(1)} s`);
  // The answers are cached too, keyed by the binary, the scenarios and ORACLE_SERVER (=fresh: a fresh
  // apiserver per scenario, the cross-check of the shared one); a simulator change re-runs only the comparison.
  const cached = join(
    oracleCacheDir,
    `admission-answers-${createHash('sha256')
      .update(bin.path)
      .update(process.env.ORACLE_SERVER ?? '')
      .update(JSON.stringify(scenarios))
      .digest('hex')
      .slice(0, 16)}.json`,
  );
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8')) as OracleAnswer[];
  const dir = mkdtempSync(join(tmpdir(), 'admission-oracle-'));
  try {
    const [input, output] = [join(dir, 'scenarios.json'), join(dir, 'answers.json')];
    writeFileSync(input, JSON.stringify(scenarios));
    const t0 = Date.now();
    await runOracle(bin.path, '', ['-test.run', '^TestOracle$', '-test.timeout', '60m'], { ORACLE_IN: input, ORACLE_OUT: output });
    const answers = JSON.parse(readFileSync(output, 'utf8')) as OracleAnswer[];
    if (answers.every((a) => !a.error)) writeFileSync(cached, JSON.stringify(answers));
    console.info(`admission oracle ${release}: ${answers.length} scenarios in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return answers;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const runs = new Map<string, Promise<OracleAnswer[]>>();
let audit: Promise<string | undefined>;
beforeAll(() => {
  for (const [release, { build, scenarios }] of Object.entries(RELEASES)) {
    const run = oracleAnswers(release, build, scenarios);
    run.catch(() => {}); // handled where it is awaited
    runs.set(release, run);
  }
  // (its fixture is 1.37's: left out when ORACLE_RELEASES leaves 1.37 out)
  audit = only && !only.includes('1.37') ? Promise.resolve(undefined) : auditCheck();
  audit.catch(() => {});
});

for (const [release, { scenarios, release: workbench }] of Object.entries(RELEASES)) {
  let answers: OracleAnswer[];
  const generatedHere = scenarios.filter((s) => !HAND_WRITTEN.includes(s) && !TYPED_SCENARIOS.includes(s)).length;
  beforeAll(async () => {
    answers = await runs.get(release)!;
  }, ORACLE_TEST_TIMEOUT);

  describe(`simulate() agrees with a real kube-apiserver ${release}`, () => {
    it(`on ${scenarios.length - generatedHere} hand-written and ${generatedHere} generated scenarios (seed ${SEED})`, {
      timeout: 600_000,
    }, async () => {
      expect(answers).toHaveLength(scenarios.length);
      const failures: string[] = [];
      for (const [i, sc] of scenarios.entries()) {
        const oracle = answers[i]!;
        if (oracle.error) {
          failures.push(`✗ ${sc.name}: the apiserver could not set it up: ${oracle.error}`);
          continue;
        }
        const sim = await simulate(sc.objects, sc.request, { webhooks: sc.webhooks, kubernetesVersion: workbench });
        const mutatingConfigs = new Set(
          sc.objects
            .filter((o) => (o as { kind?: string }).kind === 'MutatingWebhookConfiguration')
            .map((o) => (o as { metadata: { name: string } }).metadata.name),
        );
        const diffs = compareAnswers(oracle, sim, mutatingConfigs, sc.request.operation !== 'DELETE');
        if (diffs.length)
          failures.push([`✗ ${sc.name}${oracle.synced === 'probes' ? '' : ` (informer sync: ${oracle.synced})`}`, ...diffs.map((d) => `    ${d}`)].join('\n'));
      }
      console.info(`admission ${release}: ${scenarios.length} scenarios compared, ${failures.length} disagreements`);
      expect(failures, `${failures.length} disagreements with the apiserver:\n\n${failures.join('\n\n')}`).toEqual([]);
    });
  });
}

/**
 * The audit-log fixture (testdata/audit) is what the real kube-apiserver 1.37.2 writes today:
 * TestAuditLog re-runs the traffic with AUDIT_CHECK (beside the scenario runs above: the 1.37 binary) and
 * fails when the log's events (verb, user, object, response code) or the candidate's decisions (the
 * apiserver's answers to the dry-run copies, candidate-decisions.json) differ from the checked-in
 * files. src/impact/real-log.test.ts compares analyzeImpact with that fixture. A pass is
 * remembered for this binary and these files, like the answers above.
 */
describe('the audit-log fixture', () => {
  it('TestAuditLog re-derives the audit log and the candidate decisions of testdata/audit on 1.37', { timeout: ORACLE_TEST_TIMEOUT }, async () => {
    const out = await audit;
    if (out !== undefined) expect(out).toMatch(/--- PASS: TestAuditLog/);
  });
});

/** TestAuditLog with AUDIT_CHECK (its output; undefined when a pass is remembered for this binary and these files). */
async function auditCheck(): Promise<string | undefined> {
  const fixture = resolve(repoRoot, 'tools/admission-oracle/testdata/audit');
  const files = ['policy.yaml', 'candidate.json', 'audit.log', 'snapshot.json', 'candidate-decisions.json'];
  const bin = await buildOracleAsync(BUILDS['1.37']!.build);
  const key = createHash('sha256').update(bin.path);
  for (const f of files)
    key
      .update(f)
      .update('\0')
      .update(readFileSync(join(fixture, f)))
      .update('\0');
  const passed = join(oracleCacheDir, `admission-audit-check-${key.digest('hex').slice(0, 16)}`);
  if (existsSync(passed)) return undefined;
  const t0 = Date.now();
  const out = await runOracle(bin.path, '', ['-test.run', '^TestAuditLog$', '-test.count', '1', '-test.timeout', '10m', '-test.v'], { AUDIT_CHECK: fixture });
  console.info(`TestAuditLog (AUDIT_CHECK) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (/--- PASS: TestAuditLog/.test(out)) writeFileSync(passed, new Date().toISOString());
  return out;
}
