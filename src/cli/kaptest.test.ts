/** The kaptest export read back by our own checker, end to end through the CLI. */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { sampleWorkspace } from '../k8s/templates';
import { nameOf, obj } from '../base/json';
import { toKaptestManifest, type CaseTarget, type PolicyTestCase } from '../policy/cases';
import { defaultDraftFor, toTestInput } from '../request';
import { serializeDocuments } from '../yaml';
import { zipFiles } from '../share/zip';
import { runCli, type CliIO } from './main';
import { nodeFileSystem } from './node-io';

function io(): CliIO & { out: string } {
  const r = { out: '', fs: nodeFileSystem, stdout: (t: string) => void (r.out += t), stderr: (t: string) => void (r.out += t) };
  return r;
}

// check type-checks ValidatingAdmissionPolicies: the first one reads the release's schema asset into the engine.
describe('kaptest export → check --cases (real CEL engine)', { timeout: 30_000 }, () => {
  useEngine();
  it('a case whose param comes from the binding’s paramRef passes through the kaptest files as through the workspace', async () => {
    const objects = sampleWorkspace();
    const policy = objects.find((o) => nameOf(o) === 'replica-limit.example.com')!;
    const bindings = objects.filter((o) => obj(o).kind === 'ValidatingAdmissionPolicyBinding');
    const { input } = toTestInput(defaultDraftFor(policy));
    const object = { ...obj(input.request.object), spec: { ...obj(obj(input.request.object).spec), replicas: 10 } };
    // the param is the workspace's ConfigMap (paramRef), not one typed in
    const cases: PolicyTestCase[] = [
      {
        name: 'too many',
        input: { ...input, params: undefined, request: { ...input.request, object } },
        expect: { outcome: 'deny', message: 'replicas must be at most 5' },
      },
    ];
    const target: CaseTarget = { policy, bindings, paramDocuments: objects };
    const exported = toKaptestManifest(target, cases);
    const dir = mkdtempSync(join(tmpdir(), 'kaptest-'));
    for (const [name, text] of Object.entries(exported.files)) writeFileSync(join(dir, name), text);
    writeFileSync(join(dir, 'workspace.yaml'), serializeDocuments([policy]));
    const r = io();
    const code = await runCli(['check', join(dir, 'workspace.yaml'), '--cases', join(dir, 'kaptest.yaml')], r);
    expect(r.out).toContain('cases: 1/1 passed');
    expect(code).toBe(0);

    // the one archive the policy test panel downloads, read as it is
    writeFileSync(join(dir, 'kaptest-replica-limit.zip'), zipFiles(exported.files));
    const z = io();
    expect(await runCli(['check', join(dir, 'workspace.yaml'), '--cases', join(dir, 'kaptest-replica-limit.zip')], z)).toBe(0);
    expect(z.out).toContain('cases: 1/1 passed');
  });

  it('a manifest kaptest refuses (v0.1.x fields, no version, another version) is refused saying why and what to do', async () => {
    const fixtures = 'src/cli/fixtures/cases';
    const policy = join(fixtures, 'kaptest', 'policy.yaml');
    const legacy = join(fixtures, 'kaptest-v0.1', 'kaptest.yaml');
    const a = io();
    expect(await runCli(['check', policy, '--cases', legacy, '--quiet'], a)).toBe(1);
    expect(a.out).toBe(
      `${legacy}:7:1: error: --cases: kaptest's v0.1.x manifest format (validatingAdmissionPolicies, testSuites), which kaptest v0.2.0 and later refuse: convert it with \`kaptest migrate ${legacy}\` (it adds "version: v1alpha1" and renames them policies and vapTestSuites)\n`,
    );
    // the same manifest in a ZIP is found, and refused the same way
    const dir = mkdtempSync(join(tmpdir(), 'kaptest-'));
    writeFileSync(join(dir, 'old.zip'), zipFiles({ 'kaptest.yaml': readFileSync(legacy, 'utf8') }));
    const z = io();
    expect(await runCli(['check', policy, '--cases', join(dir, 'old.zip')], z)).toBe(1);
    expect(z.out).toContain(`--cases: kaptest's v0.1.x manifest format`);

    const current = readFileSync(join(fixtures, 'kaptest', 'kaptest.yaml'), 'utf8');
    for (const name of ['policy.yaml', 'resources.yaml']) copyFileSync(join(fixtures, 'kaptest', name), join(dir, name));
    writeFileSync(join(dir, 'unversioned.yaml'), current.replace('version: v1alpha1\n', ''));
    const b = io();
    expect(await runCli(['check', policy, '--cases', join(dir, 'unversioned.yaml'), '--quiet'], b)).toBe(1);
    expect(b.out).toBe(
      `${join(dir, 'unversioned.yaml')}:1:1: error: --cases: a kaptest manifest needs "version: v1alpha1" (kaptest refuses one without: "version is required"); add that line to ${join(dir, 'unversioned.yaml')}\n`,
    );
    writeFileSync(join(dir, 'v0.yaml'), current.replace('version: v1alpha1', 'version: v0.1.0'));
    const c = io();
    expect(await runCli(['check', policy, '--cases', join(dir, 'v0.yaml'), '--quiet'], c)).toBe(1);
    expect(c.out).toBe(`${join(dir, 'v0.yaml')}:1:10: error: --cases: kaptest manifest version "v0.1.0" is not supported: kaptest reads v1alpha1 only\n`);
  });

  it('an archive without a kaptest manifest, or no archive at all, is a problem of the --cases file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kaptest-'));
    writeFileSync(join(dir, 'policy.yaml'), serializeDocuments([sampleWorkspace()[0]]));
    writeFileSync(join(dir, 'empty.zip'), zipFiles({ 'notes.yaml': 'a: 1\n' }));
    writeFileSync(join(dir, 'fake.zip'), 'kind: Pod\n');
    const a = io();
    expect(await runCli(['check', join(dir, 'policy.yaml'), '--cases', join(dir, 'empty.zip')], a)).toBe(1);
    expect(a.out).toContain('--cases: the archive holds no kaptest manifest');
    const b = io();
    expect(await runCli(['check', join(dir, 'policy.yaml'), '--cases', join(dir, 'fake.zip')], b)).toBe(2);
    expect(b.out).toContain('--cases: not a ZIP archive');
  });
});
