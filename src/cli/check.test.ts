/**
 * The CLI on the core's one check pipeline (src/check): the target release reaches lints and
 * cases, one vocabulary with the app (errors and warnings are the apiserver's, findings ours),
 * usage errors exit 2, --version, unreadable input counted as an error, the size limits.
 * Real CEL engine; fixtures are written by the tests.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import type { Report } from './format';
import { runCli } from './main';
import { recordingIO } from './test-helpers';

/** package.json's version, read here as a user would (the CLI reads it through src/base/version.ts). */
const packageVersion = (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

const io = recordingIO;

const semverPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: semver}
spec:
  matchConstraints:
    namespaceSelector:
      matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
  - expression: "isSemver(object.metadata.name)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: semver}
spec: {policyName: semver, validationActions: [Deny]}
`;

/** A ValidatingWebhookConfiguration of one webhook, in YAML. */
const webhookYaml = (clientConfig: string, rule: string, extra = '') => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: h}
webhooks:
- name: h.example.com
  clientConfig: ${clientConfig}
  rules: [${rule}]
  sideEffects: None
  admissionReviewVersions: [v1]
${extra}`;

const json = (out: string) => JSON.parse(out) as Report;

// check type-checks ValidatingAdmissionPolicies: the first one reads the release's schema asset into the engine.
describe('admission-workbench check on the one pipeline (real CEL engine)', { timeout: 30_000 }, () => {
  useEngine();

  it('type checking: the warnings kube-controller-manager would write into status.typeChecking, as warnings of type TypeChecking', async () => {
    const typo = semverPolicy
      .replace('isSemver(object.metadata.name)', 'object.dataa.size() < 3')
      .replace('resources: [configmaps]', 'resources: [configmaps, secrets]');
    const r = io(typo);
    expect(await runCli(['check', '-', '--format', 'json'], r)).toBe(0);
    const tc = json(r.out).problems.filter((p) => p.type === 'TypeChecking');
    expect(tc).toMatchObject([{ field: 'spec.validations[0].expression', severity: 'warning', line: 10 }]);
    expect(tc[0]!.message).toBe(
      "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'dataa'\n | object.dataa.size() < 3\n | ......^\n\n/v1, Kind=Secret: ERROR: <input>:1:7: undefined field 'dataa'\n | object.dataa.size() < 3\n | ......^",
    );
    expect(tc[0]!.hint).toMatch(/status\.typeChecking/);
    const text = io(typo);
    expect(await runCli(['check', '-', '--fail-on', 'warning'], text)).toBe(1);
    expect(text.out).toContain('<stdin>:10:');
    expect(text.out).toContain(
      "warning: spec.validations[0].expression: [TypeChecking] /v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'dataa'\n     | object.dataa.size() < 3",
    );
  }, 60_000); // the first type check reads the release's schema asset into the engine

  it('--kubernetes-version reaches the lints: P16 at 1.33 beside the compile error, as the app shows', async () => {
    const old = io(semverPolicy);
    expect(await runCli(['check', '-', '--kubernetes-version', '1.33', '--format', 'json'], old)).toBe(1);
    const problems = json(old.out).problems;
    expect(problems.some((p) => p.field === 'spec.validations[0].expression' && p.severity === 'error')).toBe(true);
    expect(problems.filter((p) => p.rule === 'P16')).toMatchObject([{ field: 'spec.validations[0].expression', severity: 'finding', level: 'warning' }]);
    const current = io(semverPolicy);
    expect(await runCli(['check', '-', '--kubernetes-version', '1.36', '--format', 'json'], current)).toBe(0);
    expect(json(current.out).problems.filter((p) => p.rule === 'P16')).toEqual([]);
  });

  it('--platform checks at its Kubernetes release: OpenShift 4.20 is 1.33, where semver() cannot be written yet', async () => {
    const os = io(semverPolicy);
    expect(await runCli(['check', '-', '--platform', 'openshift-4.20', '--format', 'json'], os)).toBe(1);
    expect(json(os.out).problems.filter((p) => p.rule === 'P16')).toMatchObject([{ field: 'spec.validations[0].expression' }]);
    const newer = io(semverPolicy);
    expect(await runCli(['check', '-', '--platform', 'openshift-4.21', '--format', 'json'], newer)).toBe(0);
  });

  it('--platform reaches the namespace lints: W27 for a fail-closed pod webhook that does not exclude openshift-*, not upstream', async () => {
    const guard = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: pod-guard
webhooks:
- name: pods.guard.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 5
  clientConfig:
    url: https://guard.example.com/validate
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kube-node-lease]}
  rules:
  - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}
`;
    const os = io(guard);
    await runCli(['check', '-', '--platform', 'openshift-4.19', '--format', 'json'], os);
    expect(json(os.out).problems.filter((p) => p.rule === 'W27')).toMatchObject([{ field: 'webhooks[0].namespaceSelector', line: 14 }]);
    const upstream = io(guard);
    await runCli(['check', '-', '--kubernetes-version', '1.32', '--format', 'json'], upstream);
    expect(json(upstream.out).problems.filter((p) => p.rule === 'W27')).toEqual([]);
  });

  it("--kubernetes-version reaches saved CEL cases: they run in that release's environment (semver is in 1.33's stored environment, not 1.32's)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-release-'));
    writeFileSync(join(dir, 'policy.yaml'), semverPolicy);
    const workspaceFile = {
      format: 'admission-workbench/workspace',
      version: 1,
      documents: [{ name: 'semver', text: semverPolicy }],
      celCases: [
        {
          document: 0,
          path: 'spec.validations[0].expression',
          cases: [
            {
              name: 'a semver name',
              input: { object: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 1.2.3\n' },
              expect: { error: false, value: 'true' },
            },
          ],
        },
      ],
    };
    writeFileSync(join(dir, 'ws.json'), JSON.stringify(workspaceFile));
    const args = ['check', join(dir, 'policy.yaml'), '--cases', join(dir, 'ws.json'), '--format', 'json'];
    const current = io();
    await runCli([...args, '--kubernetes-version', '1.36'], current);
    expect(json(current.out).summary.cases).toEqual({ total: 1, passed: 1, failed: 0 });
    const old = io();
    await runCli([...args, '--kubernetes-version', '1.32'], old);
    expect(json(old.out).summary.cases).toEqual({ total: 1, passed: 0, failed: 1 });
    expect(json(old.out).problems.find((p) => p.type === 'Case')?.message).toMatch(/undeclared reference to 'isSemver'|isSemver/);
  });

  it('one vocabulary: findings are not warnings (summary and --fail-on warning)', async () => {
    // a fail-closed webhook without a namespaceSelector: findings (W01 …), no apiserver warning
    const hook = webhookYaml('{url: "https://h.example.com/"}', '{apiGroups: ["*"], apiVersions: ["*"], operations: [CREATE], resources: ["*"]}');
    const r = io(hook);
    expect(await runCli(['check', '-', '--fail-on', 'warning'], r)).toBe(0);
    expect(r.out).toMatch(/0 errors, 0 warnings, [1-9]\d* findings?/);
    expect(r.out).toMatch(/^<stdin>:\d+:\d+: finding: .*\[W\d+, warning\]$/m);
    expect(await runCli(['check', '-', '--fail-on', 'finding'], io(hook))).toBe(1);
  });

  it('caBundle findings, as the app shows them (bundles are inspected before the check)', async () => {
    const hook = webhookYaml(
      '{url: "https://h.example.com/", caBundle: bm90IGEgY2VydGlmaWNhdGU=}',
      '{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}',
      '  failurePolicy: Ignore\n',
    );
    const r = io(hook);
    await runCli(['check', '-', '--format', 'json'], r);
    expect(json(r.out).problems.filter((p) => p.rule === 'C01')).toMatchObject([
      { field: 'webhooks[0].clientConfig.caBundle', severity: 'finding', level: 'warning' },
    ]);
  });

  it('no arguments is a usage error: usage on stderr, exit 2', async () => {
    const r = io();
    expect(await runCli([], r)).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/Usage: admission-workbench check/);
    // both commands are named: the error, and the top-level help
    expect(r.err).toMatch(/^admission-workbench: no command given \(the commands are check, impact, convert and export\)\n/);
    expect(r.err).toMatch(/^ {2}impact {4}replay a cluster's audit log/m);
    const help = io();
    expect(await runCli(['--help'], help)).toBe(0);
    expect(help.out).toMatch(/^Usage: admission-workbench <command> \[options\]\n\nCommands:\n {2}check {5}check admission configuration/);
    expect(help.out).toMatch(/^ {2}impact {4}.*\n.*\n.*\(admission-workbench impact --help\)$/m);
    expect(help.out).toMatch(/Usage: admission-workbench check \[options\]/);
    const unknown = io();
    expect(await runCli(['imapct'], unknown)).toBe(2);
    expect(unknown.err).toMatch(
      /^admission-workbench: unknown command "imapct" \(the commands are check, impact, convert and export\)\n\nUsage: admission-workbench <command>/,
    );
    // check's own help and usage errors show check's options only
    const checkHelp = io();
    expect(await runCli(['check', '--help'], checkHelp)).toBe(0);
    expect(checkHelp.out).toMatch(/^Usage: admission-workbench check \[options\]/);
  });

  it('--version prints the version and the releases, exit 0', async () => {
    for (const argv of [['--version'], ['check', '--version']]) {
      const r = io();
      expect(await runCli(argv, r)).toBe(0);
      expect(r.out).toMatch(/^admission-workbench \d+\.\d+\.\d+(-[0-9A-Za-z.-]+)? \(Kubernetes 1\.\d+–1\.\d+, default 1\.\d+\)\n$/);
      expect(r.out.split(' ')[1]).toBe(packageVersion);
    }
  });

  it('JSON: an unreadable file is an error in the list and in summary.errors', async () => {
    const r = io();
    const missing = join(mkdtempSync(join(tmpdir(), 'aw-missing-')), 'missing.yaml');
    expect(await runCli(['check', missing, '--format', 'json'], r)).toBe(2);
    const j = json(r.out);
    expect(j.problems).toMatchObject([{ file: missing, type: 'File', severity: 'error' }]);
    expect(j.summary).toMatchObject({ errors: 1, unreadable: 1, exitCode: 2 });
  });

  it("an object over the apiserver's 3 MiB request limit is its 413 error; over etcd's 1.5 MiB a warning", async () => {
    const big = (bytes: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(bytes) } });
    const huge = io(JSON.stringify(big(4.4 * 1024 * 1024)));
    expect(await runCli(['check', '-', '--format', 'json'], huge)).toBe(1);
    expect(json(huge.out).problems).toMatchObject([{ severity: 'error', type: 'TooLong', field: '', message: 'Request entity too large: limit is 3145728' }]);
    const large = io(JSON.stringify(big(2 * 1024 * 1024)));
    expect(await runCli(['check', '-', '--format', 'json'], large)).toBe(0);
    expect(json(large.out).problems).toMatchObject([{ severity: 'warning', message: expect.stringMatching(/etcd's default request limit of 1\.5 MiB/) }]);
    const small = io(JSON.stringify(big(1000)));
    expect(await runCli(['check', '-', '--format', 'json'], small)).toBe(0);
    expect(json(small.out).problems).toEqual([]);
  });
});
