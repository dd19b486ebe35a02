/** `check --static`: the loader's problems for a manifest set, and --export-manifests writing the directory when it loads. */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { parseArgs } from './args';
import { runCli } from './main';
import { nodeFileSystem } from './node-io';

useEngine();

const VWC = (name: string, clientConfig: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: ${name}
webhooks:
- name: guard.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig: ${clientConfig}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
`;

function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  return runCli(argv, { fs: nodeFileSystem, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t) }).then((code) => ({
    code,
    out: out.join(''),
    err: err.join(''),
  }));
}

describe('check --static', () => {
  it('needs --static for the export options', () => {
    expect(parseArgs(['check', 'a', '--export-manifests', 'out'])).toMatchObject({ command: 'error', message: expect.stringMatching(/need --static/) });
    expect(parseArgs(['check', 'a', '--static', '--manifest-base', 'rel'])).toMatchObject({ command: 'error' });
  });

  it("reports the loader's problems with the headline and writes nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'static-cli-'));
    writeFileSync(join(dir, 'guard.yaml'), VWC('guard', '{service: {name: guard, namespace: guard-system}}'));
    const out = join(dir, 'out');
    const r = await run(['check', '--static', '--export-manifests', out, '--format', 'json', join(dir, 'guard.yaml')]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out) as { problems: { field: string; message: string }[] };
    expect(report.problems.map((p) => p.field)).toEqual(expect.arrayContaining(['metadata.name', 'webhooks[0].clientConfig.service']));
    expect(report.problems.find((p) => p.field === 'webhooks[0].clientConfig.service')?.message).toBe(
      'webhook "guard.example.com" in "guard" (file "/etc/kubernetes/admission-manifests/validating-webhooks/guard.yaml"): clientConfig.service is not supported for static manifests; use clientConfig.url instead',
    );
    expect(r.err).toMatch(/does not load: a kube-apiserver started with it exits/);
    expect(r.err).toMatch(/nothing written/);
    expect(() => readdirSync(out)).toThrow();
  });

  it('a set that loads is exported with its AdmissionConfiguration', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'static-cli-'));
    writeFileSync(join(dir, 'guard.yaml'), VWC('guard.static.k8s.io', '{url: "https://10.0.0.5:8443/validate"}'));
    const out = join(dir, 'out');
    const r = await run(['check', '--static', '--export-manifests', out, '--manifest-base', '/srv/admission', join(dir, 'guard.yaml')]);
    expect(r.code).toBe(0);
    expect(readdirSync(join(out, 'validating-webhooks'))).toEqual(['guard.static.k8s.io.yaml']);
    expect(readFileSync(join(out, 'admission-configuration.yaml'), 'utf8')).toContain('staticManifestsDir: /srv/admission/validating-webhooks');
    // the same object checked as an API object: its name is reserved at 1.37
    const api = await run(['check', '--format', 'json', join(dir, 'guard.yaml')]);
    expect(api.code).toBe(1);
    expect(api.out).toContain('reserved for static manifest-based configurations');
  });

  it('writes nothing when an input could not be read, and says why it cannot write where a file is in the way (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'static-cli-'));
    writeFileSync(join(dir, 'guard.yaml'), VWC('guard.static.k8s.io', '{url: "https://10.0.0.5:8443/validate"}'));
    const unread = await run(['check', '--static', '--export-manifests', join(dir, 'out'), join(dir, 'guard.yaml'), join(dir, 'missing.yaml')]);
    expect(unread.code).toBe(2);
    expect(unread.err).toContain(`nothing written to ${join(dir, 'out')}: 1 input(s) could not be read`);
    expect(() => readdirSync(join(dir, 'out'))).toThrow();
    writeFileSync(join(dir, 'taken'), 'a file, not a directory');
    const blocked = await run(['check', '--static', '--export-manifests', join(dir, 'taken'), join(dir, 'guard.yaml')]);
    expect(blocked.code).toBe(2);
    expect(blocked.err).toMatch(/admission-workbench: cannot write .*taken.*: a file is in the way of its directory\n/);
    expect(blocked.err).not.toMatch(/internal error|\n\s+at /);
    expect(readFileSync(join(dir, 'taken'), 'utf8')).toBe('a file, not a directory');
  });

  it("scenarios run the static documents first: the checked files with --static, the workspace file's marked ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'static-cli-'));
    const mutatingHook = (name: string, host: string) =>
      `apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: ${name}\nwebhooks:\n- name: ${host}\n  admissionReviewVersions: [v1]\n  sideEffects: None\n  reinvocationPolicy: Never\n  clientConfig: {url: "https://${host}/m"}\n  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]\n`;
    writeFileSync(join(dir, 'api.yaml'), mutatingHook('a-api', 'api.example.com'));
    const scenario = {
      name: 'the static guard answers first',
      input: {
        request: {
          operation: 'CREATE',
          group: '',
          version: 'v1',
          resource: 'pods',
          kind: 'Pod',
          name: 'p',
          namespace: 'default',
          username: 'jane',
          groups: ['system:authenticated'],
        },
        object: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: default\n',
      },
      webhooks: { 'api.example.com': { response: 'deny', patch: '[]', warnings: '' }, 'guard.example.com': { response: 'deny', patch: '[]', warnings: '' } },
      expect: { allowed: false, deniedBy: 'guard.example.com' },
    };
    const ws = {
      format: 'admission-workbench/workspace',
      version: 2,
      documents: [{ text: mutatingHook('z.static.k8s.io', 'guard.example.com'), static: true }],
      scenarios: [scenario],
    };
    writeFileSync(join(dir, 'ws.json'), JSON.stringify(ws));
    const r = await run(['check', join(dir, 'api.yaml'), '--cases', join(dir, 'ws.json')]);
    expect(r.out).toContain('cases: 1/1 passed');
    // unmarked, the names decide: a-api first
    writeFileSync(join(dir, 'ws.json'), JSON.stringify({ ...ws, documents: [{ text: ws.documents[0]!.text }] }));
    const api = await run(['check', join(dir, 'api.yaml'), '--cases', join(dir, 'ws.json')]);
    expect(api.out).toContain('expected denied by guard.example.com, got denied by api.example.com');
    // 1.38's staticOrder from the command line, over the workspace file's (none: StaticFirst)
    writeFileSync(join(dir, 'ws.json'), JSON.stringify(ws));
    const at138 = ['check', join(dir, 'api.yaml'), '--cases', join(dir, 'ws.json'), '--kubernetes-version', '1.38'];
    expect((await run(at138)).out).toContain('cases: 1/1 passed');
    const last = await run([...at138, '--static-order', 'StaticLast']);
    expect(last.out).toContain('expected denied by guard.example.com, got denied by api.example.com');
    writeFileSync(join(dir, 'ws.json'), JSON.stringify({ ...ws, staticOrder: 'StaticLast' }));
    expect((await run(at138)).out).toContain('got denied by api.example.com');
    expect((await run([...at138, '--static-order', 'StaticFirst'])).out).toContain('cases: 1/1 passed');
  });
});
