import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { parseArgs } from './args';
import { checkTexts } from './check';
import { formatReport, type Report } from './format';
import { readInputs, MAX_FILE_BYTES } from './inputs';
import { readKaptestManifest } from './kaptest';
import { runCli } from './main';
import { recordingIO } from './test-helpers';
import { nodeFileSystem } from './node-io';
import type { Problem } from './problem';

const fixtures = join(import.meta.dirname, 'fixtures');

const io = recordingIO;

describe('parseArgs', () => {
  it('reads options in both forms', () => {
    expect(
      parseArgs(['check', 'a', '--format=json', '--fail-on', 'warning', '--kubernetes-version', 'v1.33', '--cases', 'c.json', '-q', '-', '--', '--odd']),
    ).toEqual({
      command: 'check',
      paths: ['a', '-', '--odd'],
      format: 'json',
      failOn: 'warning',
      kubernetesVersion: '1.33',
      cases: 'c.json',
      quiet: true,
      coverage: false,
    });
    expect(parseArgs(['check', 'a', '--cases', 'c.json', '--lcov=l.info', '--min-coverage', '80%'])).toMatchObject({
      coverage: true,
      lcov: 'l.info',
      minCoverage: 80,
    });
  });
  it('--static-order and --feature-gates (with --cases): the chain its scenarios run', () => {
    expect(parseArgs(['check', 'a', '--cases', 'c.json', '--static-order', 'StaticLast', '--feature-gates', 'ConditionalAuthorization=true'])).toMatchObject({
      staticOrder: 'StaticLast',
      featureGates: ['ConditionalAuthorization'],
    });
    // =false is the default: nothing turned on
    expect(parseArgs(['check', 'a', '--cases', 'c.json', '--feature-gates=ConditionalAuthorization=false'])).toMatchObject({ featureGates: [] });
  });

  it('--platform targets its Kubernetes release', () => {
    expect(parseArgs(['check', 'a', '--platform', 'openshift-4.19'])).toMatchObject({ platform: 'openshift-4.19', kubernetesVersion: '1.32' });
    expect(parseArgs(['check', 'a', '--platform=openshift-4.22', '--kubernetes-version', '1.35'])).toMatchObject({
      platform: 'openshift-4.22',
      kubernetesVersion: '1.35',
    });
  });
  it.each([
    [['lint', 'a'], /unknown command "lint"/],
    [['check'], /nothing to check/],
    [['check', 'a', '--format', 'xml'], /--format must be one of text, json, github, junit/],
    [['check', 'a', '--fail-on', 'never'], /--fail-on must be one of error, warning, finding/],
    [['check', 'a', '--kubernetes-version', '1.20'], /--kubernetes-version must be one of 1.30/],
    [['check', 'a', '--cases'], /--cases needs a file/],
    [['check', 'a', '--platform', 'openshift-4.12'], /--platform must be one of openshift-4.17, openshift-4.18, .*openshift-4.22/],
    [
      ['check', 'a', '--platform', 'openshift-4.19', '--kubernetes-version', '1.37'],
      /--kubernetes-version 1.37 contradicts --platform openshift-4.19 \(Kubernetes 1.32\)/,
    ],
    [
      ['check', 'a', '--kubernetes-version', '1.37', '--platform=openshift-4.19'],
      /--platform openshift-4.19 \(Kubernetes 1.32\) contradicts --kubernetes-version 1.37/,
    ],
    [['check', 'a', '--verbose'], /unknown option --verbose/],
    [['check', 'a', '--cases', 'c.json', '--static-order', 'Last'], /^--static-order must be one of StaticFirst, StaticLast, ByName$/],
    [
      ['check', 'a', '--cases', 'c.json', '--feature-gates', 'Nope=true'],
      /^--feature-gates: "Nope" is not a gate the Workbench models \(ConditionalAuthorization\)$/,
    ],
    [['check', 'a', '--cases', 'c.json', '--feature-gates=ConditionalAuthorization'], /^--feature-gates: ConditionalAuthorization takes =true or =false/],
    [['check', 'a', '--static-order', 'ByName'], /^--static-order and --feature-gates need --cases FILE/],
  ])('refuses %j', (argv, message) => {
    const r = parseArgs(argv);
    expect(r.command).toBe('error');
    if (r.command === 'error') expect(r.message).toMatch(message);
  });
});

describe('readInputs', () => {
  it('walks directories recursively for .yaml/.yml/.json, in sorted order, skipping hidden entries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-inputs-'));
    mkdirSync(join(dir, 'b', '.hidden'), { recursive: true });
    writeFileSync(join(dir, 'b', 'z.yml'), 'a: 1\n');
    writeFileSync(join(dir, 'b', '.hidden', 'x.yaml'), 'a: 1\n');
    writeFileSync(join(dir, 'a.JSON'), '{}');
    writeFileSync(join(dir, 'notes.txt'), 'x');
    writeFileSync(join(dir, 'bin.yaml'), Buffer.from([0x61, 0, 0x62]));
    writeFileSync(join(dir, 'latin1.yaml'), Buffer.from([0x61, 0xe9, 0x0a]));
    writeFileSync(join(dir, 'bom.yaml'), '\ufeffa: 1\n');
    const r = await readInputs([dir, join(dir, 'missing.yaml')], nodeFileSystem);
    expect(r.files.map((f) => f.name)).toEqual([join(dir, 'a.JSON'), join(dir, 'b', 'z.yml'), join(dir, 'bom.yaml')]);
    expect(r.files[2]!.text).toBe('a: 1\n');
    expect(r.problems).toEqual([
      { file: join(dir, 'bin.yaml'), message: 'binary file (contains NUL bytes): not YAML or JSON' },
      { file: join(dir, 'latin1.yaml'), message: 'not UTF-8 text: not YAML or JSON' },
      { file: join(dir, 'missing.yaml'), message: 'no such file or directory' },
    ]);
  });

  it('refuses a file over the size limit before reading it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-big-'));
    writeFileSync(join(dir, 'big.yaml'), Buffer.alloc(MAX_FILE_BYTES + 1, 0x20));
    const r = await readInputs([join(dir, 'big.yaml')], nodeFileSystem);
    expect(r.files).toEqual([]);
    expect(r.problems[0]!.message).toMatch(/^10\.0 MB: larger than the 10 MB limit, not read$/);
  });
});

describe('checkTexts', () => {
  it('checks and refuses an object of the admission group whose kind or version no release has (a typo), instead of keeping it', async () => {
    const text =
      'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfigurations\nmetadata: {name: a}\n---\napiVersion: admissionregistration.k8s.io/v2\nkind: ValidatingWebhookConfiguration\nmetadata: {name: b}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n';
    const r = await checkTexts([{ name: 'f.yaml', text }]);
    expect([r.documents, r.skipped]).toEqual([3, 1]);
    expect(r.problems.filter((p) => p.severity === 'error').map((p) => [p.document, p.field, p.line])).toEqual([
      [0, 'kind', 2],
      [1, 'apiVersion', 5],
    ]);
  });
  it('places problems at the YAML position of their field path and counts skipped kinds', async () => {
    const text =
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: b\nspec:\n  policyName: p\n  validationActions: [Deny, Nope]\n';
    const r = await checkTexts([{ name: 'f.yaml', text }]);
    expect(r.documents).toBe(2);
    expect(r.skipped).toBe(1);
    const e = r.problems.find((p) => p.severity === 'error')!;
    expect(e).toMatchObject({
      file: 'f.yaml',
      line: 11,
      column: 29,
      document: 1,
      kind: 'ValidatingAdmissionPolicyBinding',
      name: 'b',
      field: 'spec.validationActions[1]',
      type: 'NotSupported',
    });
  });

  it('reports invalid YAML at its line and keeps checking the other documents', async () => {
    const r = await checkTexts([
      {
        name: 'bad.yaml',
        text: 'a: [1\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {}\n',
      },
    ]);
    expect(r.problems.filter((p) => p.type === 'YAML')).toMatchObject([{ file: 'bad.yaml', line: 1, severity: 'error', document: 0 }]);
    expect(r.problems.some((p) => p.field === 'spec.policyName' && p.type === 'Required')).toBe(true);
  });
});

describe('formats', () => {
  const problem: Problem = {
    file: 'a,b.yaml',
    line: 3,
    column: 5,
    document: 0,
    kind: 'K',
    name: 'n',
    field: 'webhooks[0].name',
    type: 'Invalid',
    severity: 'error',
    message: 'bad: 50%\nnext <line>',
  };
  const lint: Problem = { ...problem, type: 'Lint', severity: 'finding', level: 'info', message: 'slow', rule: 'W10', hint: 'h' };
  const report: Report = {
    files: ['a,b.yaml', 'ok.yaml'],
    problems: [problem, lint],
    summary: {
      files: 2,
      documents: 1,
      checked: 1,
      skipped: 0,
      errors: 1,
      warnings: 0,
      findings: 1,
      cases: { total: 0, passed: 0, failed: 0 },
      unreadable: 0,
      exitCode: 1,
    },
  };
  it('text: compiler-style lines and a summary; --quiet keeps only what fails', () => {
    expect(formatReport(report, 'text', 'error', false)).toBe(
      'a,b.yaml:3:5: error: webhooks[0].name: bad: 50%\nnext <line>\na,b.yaml:3:5: finding: webhooks[0].name: slow [W10, info]\n2 files, 1 object (1 checked, 0 kept but not checked), 1 error, 0 warnings, 1 finding\n',
    );
    expect(formatReport(report, 'text', 'error', true)).toBe('a,b.yaml:3:5: error: webhooks[0].name: bad: 50%\nnext <line>\n');
  });
  it('github: workflow commands with escaped properties and data', () => {
    const out = formatReport(report, 'github', 'error', true);
    expect(out).toBe('::error file=a%2Cb.yaml,line=3,col=5,title=webhooks[0].name::bad: 50%25%0Anext <line>\n');
  });
  it('json: the documented shape and key order', () => {
    const j = JSON.parse(formatReport(report, 'json', 'error', false)) as Report;
    expect(Object.keys(j)).toEqual(['files', 'problems', 'summary']);
    expect(Object.keys(j.problems[1]!)).toEqual([
      'file',
      'line',
      'column',
      'document',
      'kind',
      'name',
      'field',
      'type',
      'severity',
      'level',
      'message',
      'rule',
      'hint',
    ]);
  });
  it('junit: a testsuite per file, failures for what fails, XML escaped', () => {
    const out = formatReport(report, 'junit', 'error', false);
    expect(out).toContain('<testsuite name="a,b.yaml" tests="1" failures="1">');
    expect(out).toContain('<testsuite name="ok.yaml" tests="1" failures="0">');
    expect(out).toContain('next &lt;line&gt;');
    expect(out).not.toContain('slow');
  });
});

describe('kaptest import', () => {
  it('turns tests into policy cases, inferring the operation and resolving references', () => {
    const dep = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns' } };
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } };
    const m = readKaptestManifest(
      {
        version: 'v1alpha1',
        vapTestSuites: [
          {
            policy: 'p',
            tests: [
              {
                object: { kind: 'Deployment', name: 'd', namespace: 'ns' },
                oldObject: { kind: 'Deployment', name: 'd', namespace: 'ns' },
                expect: 'deny',
                deniedMessage: 'no',
                userInfo: { name: 'alice', groups: ['g'] },
              },
              { object: { kind: 'Pod', name: 'gone' }, expect: 'maybe' },
            ],
          },
        ],
      },
      [dep, ns],
    );
    expect(m.suites[0]!.cases[0]).toMatchObject({
      input: {
        request: {
          operation: 'UPDATE',
          kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
          resource: { group: 'apps', version: 'v1', resource: 'deployments' },
          namespace: 'ns',
          userInfo: { username: 'alice', groups: ['g'] },
          object: dep,
          oldObject: dep,
        },
        namespaceObject: ns,
      },
      expect: { outcome: 'deny', message: 'no' },
    });
    expect(m.problems).toEqual([
      { path: 'vapTestSuites[0].tests[1].object', message: 'Pod "gone" is not among the resources' },
      { path: 'vapTestSuites[0].tests[1].expect', message: 'expect must be one of admit, deny, skip, error' },
    ]);
    expect(m.suites[0]!.binding).toMatchObject({ kind: 'ValidatingAdmissionPolicyBinding', spec: { policyName: 'p', validationActions: ['Deny'] } });
  });
});

// check type-checks ValidatingAdmissionPolicies: the first one reads the release's schema asset into the engine.
describe('runCli (real CEL engine)', { timeout: 30_000 }, () => {
  useEngine();
  const check = join(fixtures, 'check');

  it('exit 0 when nothing is at or above --fail-on; 1 when something is', async () => {
    const ok = io();
    expect(await runCli(['check', join(check, 'policy.yaml')], ok)).toBe(0);
    expect(ok.out).toMatch(/1 file, 3 objects \(2 checked, 1 kept but not checked\), 0 errors/);
    const bad = io();
    expect(await runCli(['check', check], bad)).toBe(1);
    expect(bad.out).toContain(
      `${join(check, 'nested', 'deeper', 'webhook.yml')}:9:19: error: webhooks[0].timeoutSeconds: Invalid value: 45: the timeout value must be between 1 and 30 seconds`,
    );
    expect(bad.out).toMatch(
      /webhook\.yml:19:17: error: webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: .*compilation failed: ERROR: <input>:1:52: Syntax error/,
    );
  });

  it('--fail-on finding fails on a finding; --fail-on error does not', async () => {
    const text =
      'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\nspec:\n  matchConstraints:\n    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]\n  validations: [{expression: "true"}]\n';
    expect(await runCli(['check', '-'], io(text))).toBe(0);
    const strict = io(text);
    expect(await runCli(['check', '-', '--fail-on', 'finding'], strict)).toBe(1);
    expect(strict.out).toMatch(/^<stdin>:\d+:\d+: finding: /m);
  });

  it('exit 2 for usage errors and unreadable input, which is reported while the rest is checked', async () => {
    const usage = io();
    expect(await runCli(['check'], usage)).toBe(2);
    expect(usage.err).toMatch(/nothing to check/);
    const r = io();
    expect(await runCli(['check', join(check, 'policy.yaml'), join(check, 'missing.yaml')], r)).toBe(2);
    expect(r.out).toContain(`${join(check, 'missing.yaml')}:1:1: error: no such file or directory`);
    expect(r.out).toMatch(/1 file, 3 objects .* 1 unreadable/);
  });

  it('a directory holding no admission configuration file is said so and exits 2, as a missing path does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-empty-'));
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'notes.txt'), 'x');
    writeFileSync(join(dir, '.hidden.yaml'), 'a: 1\n');
    const r = io();
    expect(await runCli(['check', dir], r)).toBe(2);
    expect(r.out).toBe(
      `${dir}:1:1: error: no admission configuration file (.yaml, .yml, .json) found under this directory\n0 files, 0 objects (0 checked, 0 kept but not checked), 1 error, 0 warnings, 0 findings, 1 unreadable\n`,
    );
    // beside a file that is checked, too; and --upgrade-from (check's other form) says the same
    const both = io();
    expect(await runCli(['check', join(check, 'policy.yaml'), dir], both)).toBe(2);
    expect(both.out).toContain(`${dir}:1:1: error: no admission configuration file`);
    const upgrade = io();
    expect(await runCli(['check', dir, '--upgrade-from', '1.33'], upgrade)).toBe(2);
    expect(upgrade.err).toContain(`${dir}: no admission configuration file (.yaml, .yml, .json) found under this directory`);
    // other readers of directories are not told what to expect
    expect((await readInputs([dir], nodeFileSystem)).problems).toEqual([]);
  });

  it("runs workspace-file cases: passing and failing, at the failing case's position", async () => {
    const pass = io();
    expect(await runCli(['check', join(check, 'policy.yaml'), '--cases', join(fixtures, 'cases', 'workspace.json')], pass)).toBe(0);
    expect(pass.out).toContain('cases: 2/2 passed');
    const fail = io();
    expect(await runCli(['check', join(check, 'policy.yaml'), '--cases', join(fixtures, 'cases', 'workspace-failing.json'), '--format', 'json'], fail)).toBe(1);
    const j = JSON.parse(fail.out) as Report;
    expect(j.summary.cases).toEqual({ total: 2, passed: 1, failed: 1 });
    expect(j.problems).toMatchObject([
      {
        type: 'Case',
        line: 51,
        column: 9,
        field: 'policyCases[0].cases[1]',
        rule: 'wrong expectation: unlabelled deployment admitted',
        message: expect.stringMatching(/expected admit, got deny/),
      },
    ]);
  });

  it('runs a kaptest manifest', async () => {
    const r = io();
    expect(await runCli(['check', join(check, 'policy.yaml'), '--cases', join(fixtures, 'cases', 'kaptest', 'kaptest.yaml')], r)).toBe(0);
    expect(r.out).toContain('cases: 2/2 passed');
  });

  it('a --cases file that is neither format is a clear error', async () => {
    const r = io();
    expect(await runCli(['check', join(check, 'policy.yaml'), '--cases', join(check, 'policy.yaml')], r)).toBe(1);
    expect(r.out).toMatch(/--cases: neither a kaptest manifest nor a workspace file: not an Admission Workbench workspace: "format" is missing/);
  });
  it('runs CEL cases and simulator scenarios of a workspace file', async () => {
    const pass = io();
    expect(await runCli(['check', join(check, 'policy.yaml'), '--cases', join(fixtures, 'cases', 'workspace-scenarios.json')], pass)).toBe(0);
    expect(pass.out).toContain('cases: 4/4 passed');
    const fail = io();
    expect(await runCli(['check', join(check, 'policy.yaml'), '--cases', join(fixtures, 'cases', 'workspace-scenarios-failing.json'), '--quiet'], fail)).toBe(
      1,
    );
    const file = join(fixtures, 'cases', 'workspace-scenarios-failing.json');
    expect(fail.out).toBe(
      `${file}:15:9: error: CEL case "labelled passes" of spec.validations[0].expression failed: expected an error, got true\n` +
        `${file}:89:5: error: scenario "wrong: labelled deployment denied" failed: expected denied, got allowed\n`,
    );
  });

  it('a scenario whose mutations break a validation is a finding of level warning (M06); it still passes', async () => {
    const dir = join(fixtures, 'cases', 'm06');
    const args = ['check', join(dir, 'policies.yaml'), '--cases', join(dir, 'workspace.json'), '--format', 'json'];
    const r = io();
    expect(await runCli(args, r)).toBe(0);
    const j = JSON.parse(r.out) as Report;
    expect(j.summary.cases).toEqual({ total: 1, passed: 1, failed: 0 });
    expect(j.problems.filter((p) => p.type !== 'Lint' || p.rule === 'M06')).toMatchObject([
      {
        type: 'Lint',
        severity: 'finding',
        level: 'warning',
        rule: 'M06',
        field: 'scenarios[0]',
        message: expect.stringMatching(
          /^scenario "labelled deployment": ValidatingAdmissionPolicy "require-team-label" \(binding "require-team-label"\) rejects the object as mutated by MutatingAdmissionPolicy "strip-team-label" \(binding "strip-team-label"\), but admits it as sent: .*every Deployment needs a team label \(spec\.validations\[0\]\.expression\)$/,
        ),
      },
    ]);
    // a finding is not an apiserver warning: --fail-on warning passes, --fail-on finding fails
    expect(await runCli([...args, '--fail-on', 'warning'], io())).toBe(0);
    expect(await runCli([...args, '--fail-on', 'finding'], io())).toBe(1);
  });
});
