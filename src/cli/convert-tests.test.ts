/**
 * `admission-workbench convert` running the source project's own tests (a Kyverno policy's
 * `.kyverno-test/kyverno-test.yaml`, a gator `suite.yaml`) on the converted policies: the counts per
 * rule on fixtures whose tests pass, and a copy with one expectation flipped that must fail by name.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../fixtures';
import { runCli } from './main';
import { recordingIO } from './test-helpers';

const hasWasm = existsSync(new URL('../../public/cel/cel.wasm', import.meta.url));

async function convert(...argv: string[]) {
  const io = recordingIO();
  const code = await runCli(['convert', ...argv], io);
  return { code, out: io.out, err: io.err };
}

const kyvernoPolicy = fixturePath('kyverno', 'best-practices-vpol', 'disallow-latest-tag');
const gatorLibrary = fixturePath('gatekeeper', 'library', 'general', 'requiredlabels');
/** kyverno/policies folders holding policies of one name. */
const sameName = fixturePath('kyverno-same-name');

/** A copy of a fixture directory in a temporary directory, `edit` applied to one of its files. */
function copyWith(from: string, file: string, edit: (text: string) => string): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'convert-tests-')), 'copy');
  cpSync(from, dir, { recursive: true });
  const path = join(dir, file);
  const before = readFileSync(path, 'utf8');
  const after = edit(before);
  expect(after).not.toBe(before);
  writeFileSync(path, after);
  return dir;
}

type JsonRule = {
  source: { kind: string; name: string };
  tests?: { passed: number; failed: { name: string; why: string }[]; differs?: { name: string; differs: string }[] };
};
const testsOf = (out: string) =>
  (JSON.parse(out) as { rules: JsonRule[] }).rules
    .filter((r) => r.tests)
    .map((r) => [`${r.source.kind}/${r.source.name}`, r.tests!.passed, r.tests!.failed.length]);

describe.runIf(hasWasm)('convert runs the imported tests', () => {
  it("a Kyverno policy's kyverno-test beside it (in .kyverno-test/): every case passes, counted on its rule", async () => {
    const text = await convert(kyvernoPolicy);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/tests: 8 passed, 0 failed\n/);
    expect(text.out).toMatch(/imported tests: 8 passed, 0 failed\n$/);
    const json = await convert(kyvernoPolicy, '--format', 'json');
    expect(json.code).toBe(0);
    expect(testsOf(json.out)).toEqual([['ValidatingPolicy/disallow-latest-tag', 8, 0]]);
  }, 120_000);

  it('a gator suite with its templates, constraints and objects: counted per constraint, in the summary too', async () => {
    const summary = join(mkdtempSync(join(tmpdir(), 'convert-tests-')), 'MIGRATION.md');
    const r = await convert(gatorLibrary, '--format', 'json', '--summary', summary);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(testsOf(r.out)).toEqual([
      ['K8sRequiredLabels/all-must-have-owner', 3, 0],
      ['K8sRequiredLabels/must-have-pizza', 2, 0],
    ]);
    const md = readFileSync(summary, 'utf8');
    expect(md).toMatch(/imported tests: 5 passed, 0 failed\./);
    expect(md).toMatch(/\| Produced \| Tests \|/);
    expect(md).toMatch(/all-must-have-owner \| k8srequiredlabels \|.*\| 3 passed, 0 failed \|/);
  }, 120_000);

  it.each(['as-gatekeeper', 'standalone'])(
    'the whole gator library (--gatekeeper %s, constraint names reused across samples): only the cases the apiserver decodes differently fail, said as such',
    async (mode) => {
      const r = await convert(fixturePath('gatekeeper'), '--gatekeeper', mode, '--format', 'json');
      expect(r.code).toBe(1);
      const rules = (JSON.parse(r.out) as { rules: JsonRule[] }).rules.filter((x) => x.tests);
      expect(rules.reduce((n, x) => n + x.tests!.passed, 0)).toBe(127);
      // Pods with only ephemeralContainers: decoded, `containers: null` fails the library's CEL (src/migrate/gatekeeper/suite.test.ts)
      expect(rules.flatMap((x) => x.tests!.failed.map((f) => f.name))).toEqual([]);
      const differs = rules.flatMap((x) => x.tests!.differs ?? []);
      for (const d of differs)
        expect(d.differs).toBe('the apiserver decodes the object with spec.containers: null (absent in the file, which `gator verify` reviews as written)');
      expect(differs.map((f) => f.name)).toEqual([
        'require-read-only-root-filesystem / disallowed-ephemeral',
        'default-seccomp-required / disallowed-ephemeral',
        'seccomp-baseline / allowed-ephemeral-no-profile',
        'seccomp-restricted / disallowed-ephemeral-no-profile',
      ]);
    },
    120_000,
  );

  it("a library with policies of one name in several folders: each kyverno-test runs on its own files' policies, two ClusterPolicies of one name are converted apart", async () => {
    const r = await convert(sameName, '--format', 'json', '--kubernetes-version', '1.37');
    const rules = (JSON.parse(r.out) as { rules: (JsonRule & { source: { rule: string; occurrence?: number }; produced: string[]; duplicate?: string })[] })
      .rules;
    expect(
      rules.map((x) => [
        `${x.source.kind}/${x.source.name}`,
        x.source.rule,
        x.source.occurrence,
        x.produced[0],
        x.tests?.passed,
        x.tests?.failed.length,
        x.tests?.differs?.length,
      ]),
    ).toEqual([
      ['ClusterPolicy/restrict-annotations', 'check-ingress', 1, 'ValidatingAdmissionPolicy/cpol-restrict-annotations', 7, 0, 0],
      [
        'ClusterPolicy/memory-requests-equal-limits',
        'memory-requests-equal-limits',
        undefined,
        'ValidatingAdmissionPolicy/cpol-memory-requests-equal-limits',
        2,
        0,
        1,
      ],
      ['ClusterPolicy/restrict-annotations', 'block-flux-v1', 2, 'ValidatingAdmissionPolicy/cpol-restrict-annotations-2', 3, 0, 0],
      [
        'ValidatingPolicy/memory-requests-equal-limits',
        'memory-requests-equal-limits',
        undefined,
        'ValidatingAdmissionPolicy/vpol-memory-requests-equal-limits',
        3,
        0,
        0,
      ],
      ['ValidatingPolicy/restrict-annotations', 'restrict-annotations', undefined, 'ValidatingAdmissionPolicy/vpol-restrict-annotations', 3, 0, 0],
    ]);
    expect(rules[0]!.duplicate).toMatch(
      /^ClusterPolicy restrict-annotations is in the input 2 times .*this is the 1st, its objects named as Kyverno names them$/,
    );
    expect(rules[2]!.duplicate).toMatch(/this is the 2nd, its objects' names with -2 after the policy's name$/);
    expect(r.err).toMatch(/warning: ClusterPolicy\/restrict-annotations rule block-flux-v1: ClusterPolicy restrict-annotations is in the input 2 times/);
    // the library's CronJob is batch/v1beta1: `kyverno test` matches it by kind, the apiserver has not served it since 1.24
    expect(rules[1]!.tests!.differs).toEqual([
      {
        name: 'memory-requests-equal-limits/autogen-cronjob-memory-requests-equal-limits: CronJob hello pass',
        why: 'expected admit, got skip',
        differs:
          'batch/v1beta1 cronjobs is not served by Kubernetes 1.37 (removed after 1.24): a real apiserver answers 404 before admission (`kyverno test` reviews it whatever its version)',
      },
    ]);
    expect(r.code).toBe(1);
    // written apart: the second one's objects under their own names, the first one's as Kyverno names them
    const out = join(mkdtempSync(join(tmpdir(), 'convert-tests-')), 'out');
    await convert(sameName, '--out', out);
    const written = (name: string) => readFileSync(join(out, 'native', `validatingadmissionpolicy-${name}.yaml`), 'utf8');
    expect(written('cpol-restrict-annotations')).toMatch(/name: cpol-restrict-annotations\n[\s\S]*ingresses/);
    expect(written('cpol-restrict-annotations-2')).toMatch(/name: cpol-restrict-annotations-2\n[\s\S]*pods/);
  }, 120_000);

  it("a pattern rule's `skip` (a conditional anchor that does not hold): the converted policy admits, the case passes", async () => {
    const r = await convert(fixturePath('kyverno-pattern', 'other', 'disallow-localhost-services'));
    expect(r.out).toMatch(/exact +ClusterPolicy\/no-localhost-service rule no-localhost-service\n.*\n +tests: 2 passed, 0 failed\n/);
    expect(r.code).toBe(0);
  }, 120_000);

  it("a mutate rule's patched resource is its whole policy's (every mutate rule in order), as `kyverno test` compares it", async () => {
    const r = await convert(fixturePath('kyverno-mutate', 'other', 'mitigate-log4shell'));
    expect(r.out.match(/^ +tests: .*\n/gm)).toEqual([expect.stringMatching(/tests: 2 passed, 0 failed/), expect.stringMatching(/tests: 2 passed, 0 failed/)]);
    expect(r.out).toMatch(/imported tests: 4 passed, 0 failed\n$/);
    expect(r.code).toBe(0);
  }, 120_000);

  it('a flipped Kyverno expectation exits 1 and names the case and why', async () => {
    // myapp-pod is a Pod without a latest tag: Kyverno passes it; the copy says it fails
    const dir = copyWith(kyvernoPolicy, join('.kyverno-test', 'kyverno-test.yaml'), (t) =>
      t.replace(/( {2}resources:\n {2}- myapp-pod\n {2}result: )pass/, '$1fail'),
    );
    const r = await convert(dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/tests: 7 passed, 1 failed\n/);
    expect(r.out).toMatch(/FAIL disallow-latest-tag: Pod myapp-pod fail: .*deny.*admit|FAIL disallow-latest-tag: Pod myapp-pod fail: .*admit.*deny/);
    const json = await convert(dir, '--format', 'json');
    expect(json.code).toBe(1);
    const failed = (JSON.parse(json.out) as { rules: JsonRule[] }).rules[0]!.tests!.failed;
    expect(failed.map((f) => f.name)).toEqual(['disallow-latest-tag: Pod myapp-pod fail']);
  }, 120_000);

  it('a flipped gator assertion exits 1 and names the case', async () => {
    const dir = copyWith(gatorLibrary, 'suite.yaml', (t) => t.replace(/(- name: example-allowed\n(.*\n)*? {4}- violations: )no/, '$1yes'));
    const r = await convert(dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/tests: 2 passed, 1 failed\n\s+FAIL must-have-owner \/ example-allowed: /);
    expect(r.out).toMatch(/imported tests: 4 passed, 1 failed\n$/);
  }, 120_000);

  it('a file the test names that is missing: said on stderr, the rest still run', async () => {
    const dir = copyWith(kyvernoPolicy, join('.kyverno-test', 'kyverno-test.yaml'), (t) => t.replace('- resource.yaml', '- resource.yaml\n- gone.yaml'));
    const r = await convert(dir);
    expect(r.err).toMatch(/test not run: .*gone\.yaml: file not given/);
    expect(r.out).toMatch(/tests: 8 passed, 0 failed\n/);
    expect(r.code).toBe(0);
  }, 120_000);
});
