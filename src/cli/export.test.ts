/** `admission-workbench export --to …`: files written, fields that cannot be expressed refused with their path, usage errors. */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../fixtures';
import { runCli } from './main';
import { recordingIO } from './test-helpers';

const webhooks = fixturePath('realworld', '01-cert-manager-webhooks.yaml');

describe('export', () => {
  it('writes manifests.jsonnet, manifests.rs, and a Pkl module per object with manifests.pkl', async () => {
    for (const [to, expected] of [
      ['jsonnet', ['manifests.jsonnet']],
      ['rust', ['manifests.rs']],
      ['pkl', ['manifests.pkl', 'mutatingWebhookConfiguration_cert_manager_webhook.pkl', 'validatingWebhookConfiguration_cert_manager_webhook.pkl']],
    ] as const) {
      const out = mkdtempSync(join(tmpdir(), 'export-cli-'));
      const io = recordingIO();
      expect(await runCli(['export', '--to', to, '--out', out, webhooks], io)).toBe(0);
      expect(readdirSync(out).sort()).toEqual([...expected].sort());
      expect(io.err).toContain(`wrote ${expected.length > 1 ? '' : expected[0]}`);
    }
  });
  it('prints to standard output without --out; --self-contained writes Pkl with no package', async () => {
    const io = recordingIO();
    expect(await runCli(['export', '--to', 'pkl', '--self-contained', webhooks], io)).toBe(0);
    expect(io.out).toContain('// ---- manifests.pkl');
    expect(io.out).not.toContain('amends "package://');
    const typed = recordingIO();
    expect(await runCli(['export', '--to', 'pkl', webhooks], typed)).toBe(0);
    expect(typed.out).toContain('amends "package://pkg.pkl-lang.org/pkl-k8s/k8s@1.5.0#/api/admissionregistration/v1/ValidatingWebhookConfiguration.pkl"');
  });
  it('refuses a field the language cannot hold, with its path, and writes nothing', async () => {
    const out = mkdtempSync(join(tmpdir(), 'export-cli-'));
    const text = readFileSync(webhooks, 'utf8').replace('sideEffects: None', 'sideEffects: None\n    timeoutSecond: 5');
    const io = recordingIO(text);
    expect(await runCli(['export', '--to', 'rust', '--out', out, '-'], io)).toBe(2);
    expect(io.err).toMatch(
      /ValidatingWebhookConfiguration\/cert-manager-webhook: webhooks\[0\]\.timeoutSecond: timeoutSecond is not a field of ValidatingWebhook/,
    );
    expect(io.err).toContain('nothing written');
    expect(readdirSync(out)).toEqual([]);
  });
  it('--out where a file is in the way: says so, exit 2, no stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'export-cli-'));
    writeFileSync(join(dir, 'taken'), 'x');
    for (const out of [join(dir, 'taken'), join(dir, 'taken', 'sub')]) {
      const io = recordingIO();
      expect(await runCli(['export', '--to', 'jsonnet', '--out', out, webhooks], io)).toBe(2);
      expect(io.err).toBe(`admission-workbench export: cannot write ${join(out, 'manifests.jsonnet')}: a file is in the way of its directory\n`);
    }
  });
  it('says what is wrong with the command line or the input', async () => {
    const cases: [string[], RegExp][] = [
      [[webhooks], /--to is required/],
      [['--to', 'yaml', webhooks], /--to must be one of pkl, rust, jsonnet/],
      [['--to', 'rust', '--self-contained', webhooks], /--self-contained is for --to pkl/],
      [['--to', 'rust'], /no input/],
      [['--to', 'rust', join(tmpdir(), 'no-such-file.yaml')], /no-such-file\.yaml/],
    ];
    for (const [args, message] of cases) {
      const io = recordingIO();
      expect(await runCli(['export', ...args], io)).toBe(2);
      expect(io.err).toMatch(message);
    }
    const broken = recordingIO('kind: [');
    expect(await runCli(['export', '--to', 'jsonnet', '-'], broken)).toBe(2);
    expect(broken.err).toMatch(/line 1/);
  });
});
