/**
 * The real command: `node bin/admission-workbench.mjs` spawned on the fixtures (the bin
 * rebuilds dist-cli/ first when src/ is newer). Exit codes, each format, positions, stdin
 * and bad input.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from './format';

const root = join(import.meta.dirname, '..', '..');
const check = relative(root, join(import.meta.dirname, 'fixtures', 'check'));
const webhook = join(check, 'nested', 'deeper', 'webhook.yml');

/** The environment of a user who set nothing: no CEL_ENGINE, no CEL_NATIVE (the defaults are what is tested). */
const userEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'CEL_ENGINE' && k !== 'CEL_NATIVE'));

function run(args: string[], input?: string | Buffer, env: NodeJS.ProcessEnv = userEnv) {
  const r = spawnSync(process.execPath, ['bin/admission-workbench.mjs', ...args], {
    cwd: root,
    input,
    env,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('admission-workbench (spawned)', { timeout: 180_000 }, () => {
  it('text: compiler-style positions, summary, exit 1 on errors', () => {
    const r = run(['check', check]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`${webhook}:9:19: error: webhooks[0].timeoutSeconds: Invalid value: 45: the timeout value must be between 1 and 30 seconds\n`);
    expect(r.out).toContain(`${join(check, 'nested', 'list.json')}:9:83: error: spec.validationActions[1]: Unsupported value: "Explode"`);
    expect(r.out).toMatch(/\n3 files, 5 objects \(4 checked, 1 kept but not checked\), 3 errors, 0 warnings, 2 findings\n$/);
  });

  it('json, github and junit formats', () => {
    const j = run(['check', webhook, '--format', 'json']);
    expect(j.code).toBe(1);
    const report = JSON.parse(j.out) as Report;
    expect(report.files).toEqual([webhook]);
    expect(report.summary).toMatchObject({ files: 1, checked: 1, errors: 2, exitCode: 1 });
    expect(report.problems.find((p) => p.field === 'webhooks[0].timeoutSeconds' && p.type === 'Invalid')).toEqual({
      file: webhook,
      line: 9,
      column: 19,
      document: 0,
      kind: 'ValidatingWebhookConfiguration',
      name: 'broken-webhook',
      field: 'webhooks[0].timeoutSeconds',
      type: 'Invalid',
      severity: 'error',
      message: 'Invalid value: 45: the timeout value must be between 1 and 30 seconds',
    });
    const g = run(['check', webhook, '--format', 'github', '--quiet']);
    expect(g.code).toBe(1);
    expect(g.out.split('\n')[0]).toBe(
      `::error file=${webhook},line=9,col=19,title=webhooks[0].timeoutSeconds::Invalid value: 45: the timeout value must be between 1 and 30 seconds`,
    );
    const x = run(['check', webhook, '--format', 'junit']);
    expect(x.code).toBe(1);
    expect(x.out).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="admission-workbench check">/);
    expect(x.out).toContain(`<testsuite name="${webhook}" tests="1" failures="1">`);
  });

  it('stdin with -, --fail-on and exit 0', () => {
    const text =
      'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: p, validationActions: [Warn]}\n';
    const ok = run(['check', '-'], text);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^1 file, 1 object \(1 checked, 0 kept but not checked\), 0 errors/m);
    const bad = run(['check', '-', '--quiet'], text.replace('Warn', 'Shout'));
    expect(bad.code).toBe(1);
    expect(bad.out).toBe('<stdin>:4:43: error: spec.validationActions[0]: Unsupported value: "Shout": supported values: "Audit", "Deny", "Warn"\n');
  });

  it('saved cases from a workspace file and a kaptest manifest', () => {
    const ws = run(['check', join(check, 'policy.yaml'), '--cases', 'src/cli/fixtures/cases/workspace-failing.json', '--quiet']);
    expect(ws.code).toBe(1);
    expect(ws.out).toMatch(
      /^src\/cli\/fixtures\/cases\/workspace-failing\.json:51:9: error: policy case "wrong expectation: unlabelled deployment admitted" failed: expected admit, got deny/,
    );
    const k = run(['check', join(check, 'policy.yaml'), '--cases', 'src/cli/fixtures/cases/kaptest/kaptest.yaml']);
    expect(k.code).toBe(0);
    expect(k.out).toContain('cases: 2/2 passed');
  });

  it('bad input: a line per problem, the rest still checked, exit 2; thousands of files do not hang', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-e2e-'));
    writeFileSync(join(dir, 'binary.yaml'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    writeFileSync(join(dir, 'broken.yaml'), 'apiVersion: v1\nkind: [\n');
    writeFileSync(join(dir, 'huge.json'), Buffer.alloc(11 * 1024 * 1024, 0x20));
    mkdirSync(join(dir, 'many'));
    for (let i = 0; i < 3000; i++)
      writeFileSync(join(dir, 'many', `cm-${String(i).padStart(4, '0')}.yaml`), `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-${i}}\n`);
    const r = run(['check', dir, join(dir, 'absent.yaml'), join(check, 'policy.yaml')]);
    expect(r.code).toBe(2);
    expect(r.out).toContain(`${join(dir, 'binary.yaml')}:1:1: error: binary file (contains NUL bytes): not YAML or JSON\n`);
    expect(r.out).toMatch(new RegExp(`${join(dir, 'broken.yaml').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: error: `));
    expect(r.out).toContain(`${join(dir, 'huge.json')}:1:1: error: 11.0 MB: larger than the 10 MB limit, not read\n`);
    expect(r.out).toContain(`${join(dir, 'absent.yaml')}:1:1: error: no such file or directory\n`);
    expect(r.out).toMatch(/\n3002 files, 3003 objects \(2 checked, 3001 kept but not checked\), .*3 unreadable\n$/);
  });

  it('usage errors exit 2 with the usage', () => {
    const r = run(['check', '--format', 'yaml', 'x']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--format must be one of text, json, github, junit\n\nUsage: admission-workbench check/);
    expect(run(['--help']).code).toBe(0);
  });

  it('impact: the log replayed over shard threads (from a file and from stdin) reports what the main thread reports', () => {
    const audit = join('tools', 'admission-oracle', 'testdata', 'audit');
    const args = [
      'impact',
      '--format',
      'json',
      '--all-events',
      '--kubernetes-version',
      '1.37',
      '--cluster',
      join(audit, 'snapshot.json'),
      '--webhook',
      'frozen.shop.example.com=deny',
    ];
    const one = run([...args, '--shards', '0', '--audit', join(audit, 'audit.log')]); // (its stderr may say the CLI was rebuilt)
    // impact starts itself again with a larger young generation (bin.ts): its exit status and stderr come through
    const usage = run(['impact', '--format', 'nope']);
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/^admission-workbench impact: --format must be one of/);
    const report = JSON.parse(one.out) as { events: unknown[]; summary: { events: number } };
    expect(report.summary.events).toBeGreaterThan(20);
    expect(report.events).toHaveLength(report.summary.events);
    for (const shards of ['1', '3']) {
      const r = run([...args, '--shards', shards, '--audit', join(audit, 'audit.log')]);
      expect(r.code).toBe(one.code);
      // with no CEL_ENGINE the CLI takes the native engine (npm run test:unit builds it, as npm install does) and says so
      expect(r.err).toMatch(/^admission-workbench impact: CEL engine: native \(\d+ processes\)\n$/);
      expect(JSON.parse(r.out)).toEqual(report);
    }
    const piped = run([...args, '--shards', '2', '--audit', '-'], readFileSync(join(root, audit, 'audit.log')));
    expect(JSON.parse(piped.out)).toEqual(report);
    // without the native engine: the same report from WebAssembly, and the run says which engine and why
    const missing = join(mkdtempSync(join(tmpdir(), 'no-native-')), 'cel-native');
    const wasm = run([...args, '--audit', join(audit, 'audit.log')], undefined, { ...userEnv, CEL_NATIVE: missing });
    expect(wasm.err).toMatch(
      /^admission-workbench impact: CEL engine: WebAssembly \(\d+ worker threads?; not the native engine: the native CEL engine is not built \(npm run build:native; it needs Go 1\.26\+\): .* is missing\)\n$/,
    );
    expect(wasm.err).toContain(missing);
    expect(JSON.parse(wasm.out)).toEqual(report);
  });

  it('check --upgrade-from: a compile error the target release no longer has is listed as gone, exit 0', () => {
    const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: my-label}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
  - expression: "object.metadata.labels.\`my-label\` == 'x'"
`;
    const r = run(['check', '-', '--upgrade-from', '1.36', '--kubernetes-version', '1.37'], policy);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^<stdin>:8:17: gone in 1\.37: error: spec\.validations\[0\]\.expression: Invalid value: .*unsupported syntax: '`'/m);
    expect(r.out).toMatch(/\nupgrade 1\.36 → 1\.37: 0 appear, 1 gone, 0 changed, 0 worse \(compiled at 1\.36 as written, at 1\.37 as stored\)\n$/);
  });

  it('a target release whose engine build is missing: exit 2 with the reason, never a report without its CEL', () => {
    // an engine directory with the default engine only (no cel-1.38.wasm): 1.38 cannot be compiled
    const dir = mkdtempSync(join(tmpdir(), 'aw-engine-'));
    for (const f of ['cel.wasm', 'wasm_exec.js']) writeFileSync(join(dir, f), readFileSync(join(root, 'public', 'cel', f)));
    const r = run(['check', webhook, '--kubernetes-version', '1.38'], undefined, { ...userEnv, CEL_ENGINE: 'wasm', CEL_WASM: join(dir, 'cel.wasm') });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/the 1\.38 engine: .*cel-1\.38\.wasm is missing/);
    expect(r.out).toBe('');
  });
});
