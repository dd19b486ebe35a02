/**
 * `check --upgrade-from`: the check and the saved cases at two releases, compared — with the
 * real CEL engine, whose cel-go differs per release: `orValue` on a list that is not optional
 * gives the list up to 1.36 and "no such overload" from 1.37, and a backquoted field name
 * (`labels.\`my-label\``) does not parse before 1.37. Fixtures: ./fixtures/upgrade.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { runCli } from './main';
import { recordingIO } from './test-helpers';
import type { UpgradeReport } from './upgrade';

/** The fixture (shared with the app's e2e test, e2e/upgrade.spec.ts): three documents, and the no-sys-admin policy's two cases. */
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'upgrade');
const files = (): { policy: string; cases: string } => ({ policy: join(FIXTURE, 'policies.yaml'), cases: join(FIXTURE, 'workspace.json') });

describe('check --upgrade-from (real CEL engine)', { timeout: 60_000 }, () => {
  useEngine();

  it('1.36 → 1.37: both orValue cases fail at 1.37 (worse, exit 1), the backquote compile error is gone', async () => {
    const f = files();
    const io = recordingIO();
    const code = await runCli(['check', f.policy, '--cases', f.cases, '--upgrade-from', '1.36', '--kubernetes-version', '1.37', '--format', 'json'], io);
    expect(io.err).toBe('');
    const r = JSON.parse(io.out) as UpgradeReport;
    expect(code).toBe(1);
    expect(r.changes.map((c) => [c.change, c.release, c.worse, c.problem.type, c.problem.name, c.problem.rule ?? c.problem.field])).toEqual([
      ['appears', '1.37', true, 'Case', 'no-sys-admin', 'NET_BIND_SERVICE is admitted'],
      ['appears', '1.37', true, 'Case', 'no-sys-admin', 'SYS_ADMIN is denied'],
      ['gone', '1.37', false, 'Invalid', 'my-label', 'spec.validations[0].expression'],
    ]);
    // the verdict, with the engine's words at 1.37
    expect(r.changes[0]!.problem.message).toMatch(/expected admit, got deny: .*resulted in error: no such overload/);
    expect(r.changes[2]!.problem.message).toContain("unsupported syntax: '`'");
    expect(r.summary).toMatchObject({ appears: 2, gone: 1, changed: 0, worse: 2, exitCode: 1 });
    expect(r.summary.cases).toEqual({ from: { total: 2, passed: 2, failed: 0 }, to: { total: 2, passed: 0, failed: 2 } });
  });

  it('1.37 → 1.36 as text: the compile error appears (worse), the case failures are gone', async () => {
    const f = files();
    const io = recordingIO();
    const code = await runCli(['check', f.policy, '--cases', f.cases, '--upgrade-from', '1.37', '--kubernetes-version', '1.36'], io);
    expect(code).toBe(1);
    const lines = io.out.trimEnd().split('\n');
    expect(lines.filter((l) => / (appears|gone|changed) in /.test(l)).map((l) => l.replace(/^.*?: ((appears|gone|changed) in [^:]*): .*$/, '$1'))).toEqual([
      'appears in 1.36 (worse)',
      'gone in 1.36',
      'gone in 1.36',
    ]);
    expect(io.out).toMatch(/policies\.yaml:24:17: appears in 1\.36 \(worse\): error: spec\.validations\[0\]\.expression: Invalid value/);
    expect(lines.at(-1)).toBe(
      'upgrade 1.37 → 1.36: 1 appear, 2 gone, 0 changed, 1 worse, cases: 0/2 passed at 1.37, 2/2 at 1.36 (compiled at 1.37 as written, at 1.36 as stored)',
    );
  });

  it('--format github: what got worse is an error annotation, the rest a notice; --format junit: a failing testcase per worse case', async () => {
    const f = files();
    const gh = recordingIO();
    expect(await runCli(['check', f.policy, '--cases', f.cases, '--upgrade-from', '1.36', '--kubernetes-version', '1.37', '--format', 'github'], gh)).toBe(1);
    const lines = gh.out.trimEnd().split('\n');
    expect(lines.map((l) => l.replace(/ file=.*$/, ''))).toEqual(['::error', '::error', '::notice', lines.at(-1)]);
    expect(lines[0]).toMatch(
      /^::error file=.*workspace\.json,line=\d+,col=\d+,title=.*::appears in 1\.37 \(worse\): error: policy case "NET_BIND_SERVICE is admitted" failed: .*no such overload/,
    );
    expect(lines[2]).toMatch(
      /^::notice file=.*policies\.yaml,line=24,col=17,title=spec\.validations\[0\]\.expression::gone in 1\.37: error: .*unsupported syntax/,
    );
    expect(lines.at(-1)).toBe(
      'upgrade 1.36 → 1.37: 2 appear, 1 gone, 0 changed, 2 worse, cases: 2/2 passed at 1.36, 0/2 at 1.37 (compiled at 1.36 as written, at 1.37 as stored)',
    );

    const junit = recordingIO();
    expect(await runCli(['check', f.policy, '--cases', f.cases, '--upgrade-from', '1.36', '--kubernetes-version', '1.37', '--format', 'junit'], junit)).toBe(1);
    expect(junit.out).toContain('<testsuites name="admission-workbench upgrade 1.36 → 1.37">');
    // the gone compile error fails nothing; each case now failing is a failing testcase of the cases file
    expect(junit.out).toMatch(/<testsuite name="[^"]*policies\.yaml" tests="1" failures="0">/);
    expect(junit.out).toMatch(/<testsuite name="[^"]*workspace\.json" tests="3" failures="2">/);
    expect(junit.out).toMatch(
      /<testcase classname="[^"]*workspace\.json" name="SYS_ADMIN is denied">\n\s*<failure message="appears in 1\.37 \(worse\): error: policy case/,
    );
  });

  it('1.36 → 1.37: an expression using a library of 1.37 (includes()) compiles there as stored, as the 1.37 apiserver compiles it after the upgrade', async () => {
    // written at 1.36 it is an error (the lists library v1 is 1.37's); already in etcd at 1.37 it compiles,
    // though a new policy could use it only from 1.38 (environment.StoredExpressions vs NewExpressions)
    const policy = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'upgrade-stored', 'policy.yaml');
    const io = recordingIO();
    expect(await runCli(['check', policy, '--upgrade-from', '1.36', '--kubernetes-version', '1.37', '--format', 'json'], io)).toBe(0);
    const r = JSON.parse(io.out) as UpgradeReport;
    expect(r.compiled).toEqual({ from: 'NewExpressions', to: 'StoredExpressions' });
    expect(r.changes.map((c) => [c.change, c.release, c.problem.field])).toEqual([['gone', '1.37', 'spec.variables[0].expression']]);
    expect(r.changes[0]!.problem.message).toContain("undeclared reference to 'includes'");
    // checked as written at 1.37 it is still an error
    const written = recordingIO();
    expect(await runCli(['check', policy, '--kubernetes-version', '1.37'], written)).toBe(1);
    expect(written.out).toContain("undeclared reference to 'includes'");
  });

  it('nothing worse: exit 0 (--quiet prints only what is worse); an unknown release or the target itself is a usage error (exit 2)', async () => {
    const f = files();
    const same = recordingIO();
    expect(await runCli(['check', f.policy, '--upgrade-from', '1.35', '--kubernetes-version', '1.36', '--quiet'], same)).toBe(0);
    expect(same.out).toBe('');
    const unknown = recordingIO();
    expect(await runCli(['check', f.policy, '--upgrade-from', '1.99', '--kubernetes-version', '1.37'], unknown)).toBe(2);
    expect(unknown.err).toMatch(/^admission-workbench: --upgrade-from must be one of 1\.\d+, /);
    const itself = recordingIO();
    expect(await runCli(['check', f.policy, '--upgrade-from', 'v1.37', '--kubernetes-version', '1.37'], itself)).toBe(2);
    expect(itself.err).toContain('--upgrade-from 1.37 is the target release itself');
  });
});
