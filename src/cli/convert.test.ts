/**
 * `admission-workbench convert` on files in a temporary directory. The converters themselves are
 * tested in their folders; here the command's own behaviour: bad input, documents no converter
 * reads, and (with a converter registered by the test, removed after it) the report, the exit
 * codes and the files written.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kindOf, nameOf, type Obj } from '../base/json';
import { CONVERTERS, type Converter } from '../migrate';
import { parseConvertArgs } from './convert';
import { runCli } from './main';
import { recordingIO } from './test-helpers';
import { fixturePath } from '../../fixtures';

const fixture = (name: string) => fixturePath('migrate', name);
const dir = mkdtempSync(join(tmpdir(), 'convert-cli-'));
const requiredLabels = join(dir, 'requiredlabels.yaml');
const kyverno = join(dir, 'kyverno.yaml');
copyFileSync(fixture('requiredlabels.yaml'), requiredLabels);
copyFileSync(fixture('kyverno.yaml'), kyverno);
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const registry = CONVERTERS as Converter[];
const saved = [...registry];
/** Run with exactly these converters (the build's own are put back after each test). */
const withConverters = (list: Converter[]) => registry.splice(0, registry.length, ...list);
afterEach(() => withConverters(saved));

async function convert(...argv: string[]) {
  const io = recordingIO();
  const code = await runCli(['convert', ...argv], io);
  return { code, out: io.out, err: io.err };
}

/** A converter of the test: each ValidatingPolicy validation becomes a VAP, stated as different; a ClusterPolicy rule is not convertible. */
const testConverter: Converter = {
  name: 'Kyverno',
  owns: (o) => String(o.apiVersion).startsWith('policies.kyverno.io/') || o.apiVersion === 'kyverno.io/v1',
  convert: (objects) => {
    const out: ReturnType<Converter['convert']> = { objects: [], rules: [] };
    for (const o of objects) {
      const source = { kind: kindOf(o), name: nameOf(o), rule: nameOf(o) };
      if (o.kind === 'ValidatingPolicy') {
        const vap: Obj = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: nameOf(o) }, spec: {} };
        out.objects.push(vap);
        out.rules.push({ source, status: 'different', reason: 'the test says so', produced: [`ValidatingAdmissionPolicy/${nameOf(o)}`] });
      } else if (o.kind === 'ClusterPolicy') out.rules.push({ source, status: 'unsupported', reason: 'not in the test', produced: [] });
    }
    return out;
  },
};

describe('convert', () => {
  it('parses its options and refuses wrong ones', () => {
    expect(parseConvertArgs(['a.yaml', '--out', 'o', '--gatekeeper=standalone', '--kubernetes-version', '1.34'])).toMatchObject({
      paths: ['a.yaml'],
      out: 'o',
      gatekeeper: 'standalone',
      kubernetesVersion: '1.34',
    });
    expect(parseConvertArgs(['a.yaml', '--gatekeeper', 'rego'])).toEqual({ error: '--gatekeeper must be as-gatekeeper or standalone' });
    expect(parseConvertArgs([])).toMatchObject({ error: expect.stringMatching(/no input/) });
    expect(parseConvertArgs(['a.yaml', '--keep-source'])).toEqual({ error: '--keep-source needs --out' });
  });

  it('exits 2 on usage errors and prints its help', async () => {
    expect((await convert('--nope', kyverno)).code).toBe(2);
    const help = await convert('--help');
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/Usage: admission-workbench convert/);
  });

  it('exits 2 when there is nothing to convert: no Gatekeeper or Kyverno document', async () => {
    const vap = file('vap.yaml', 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: x}\nspec: {}\n');
    const r = await convert(vap);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no Gatekeeper or Kyverno document in the input/);
  });

  it('exits 2 on bad input, naming each problem, still reports the rules, and writes nothing', async () => {
    withConverters([testConverter]);
    const broken = file('broken.yaml', 'apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: [x\n');
    const orphan = file('orphan.yaml', readFileSync(requiredLabels, 'utf8').split('---\n')[1]!);
    const out = join(dir, 'bad-out');
    const r = await convert(broken, orphan, kyverno, join(dir, 'missing.yaml'), '--out', out);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/^different\s+ValidatingPolicy\/block-ephemeral-containers/m);
    expect(r.err).toMatch(/broken\.yaml:3:/);
    expect(r.err).toMatch(
      /orphan\.yaml: K8sRequiredLabels\/all-must-have-owner: kind: .*no ConstraintTemplate in the workspace defines the kind K8sRequiredLabels/,
    );
    expect(r.err).toMatch(/missing\.yaml: no such file or directory/);
    expect(r.err).toMatch(/3 input problem\(s\): nothing written/);
    expect(() => readdirSync(out)).toThrow();
  });

  it('reports an unknown field as a warning and converts anyway', async () => {
    withConverters([testConverter]);
    const typo = file('typo.yaml', readFileSync(kyverno, 'utf8').replace('  validationActions:', '  validationActionz: [Deny]\n  validationActions:'));
    const r = await convert(typo);
    expect(r.err).toMatch(/warning: .*typo\.yaml: ValidatingPolicy\/block-ephemeral-containers: spec\.validationActionz: unknown field/);
    expect(r.out).toMatch(/^different\s+ValidatingPolicy\/block-ephemeral-containers/m);
  });

  it('lists every source document no converter reads, and exits 1', async () => {
    withConverters([]);
    const r = await convert(requiredLabels, kyverno);
    expect(r.code).toBe(1);
    expect(r.out.split('\n').filter((l) => l.startsWith('not read'))).toHaveLength(4);
    expect(r.out).toMatch(/0 rule\(s\): 0 exact, 0 different, 0 not convertible; 4 document\(s\) not read; 0 object\(s\) produced/);
  });

  it('prints each rule with its status, reason and produced objects; writes one file per object and the summary', async () => {
    withConverters([testConverter]);
    const out = join(dir, 'out');
    const summary = join(dir, 'summary.md');
    const r = await convert(kyverno, '--out', out, '--keep-source', '--summary', summary);
    expect(r.out).toMatch(
      /^different\s+ValidatingPolicy\/block-ephemeral-containers rule block-ephemeral-containers: the test says so\n\s+→ ValidatingAdmissionPolicy\/block-ephemeral-containers$/m,
    );
    expect(r.out).toMatch(/^not convertible\s+ClusterPolicy\/disallow-container-sock-mounts rule disallow-container-sock-mounts: not in the test$/m);
    expect(r.code).toBe(1);
    expect(readdirSync(join(out, 'native'))).toEqual(['validatingadmissionpolicy-block-ephemeral-containers.yaml']);
    expect(readdirSync(join(out, 'source')).sort()).toEqual([
      'clusterpolicy-disallow-container-sock-mounts.yaml',
      'validatingpolicy-block-ephemeral-containers.yaml',
    ]);
    expect(readFileSync(join(out, 'native', 'validatingadmissionpolicy-block-ephemeral-containers.yaml'), 'utf8')).toMatch(
      /^apiVersion: admissionregistration\.k8s\.io\/v1\nkind: ValidatingAdmissionPolicy\n/,
    );
    const md = readFileSync(summary, 'utf8');
    expect(md).toMatch(/\*\*0 exact\*\*, \*\*1 different\*\*, \*\*1 not convertible\*\*/);
    expect(md).toContain(
      '| different | ValidatingPolicy/block-ephemeral-containers | block-ephemeral-containers | the test says so | `ValidatingAdmissionPolicy/block-ephemeral-containers` |',
    );
    expect(readFileSync(join(out, 'MIGRATION.md'), 'utf8')).toBe(md);
  });

  it('exits 0 when every rule converts, and 1 with --fail-on different', async () => {
    withConverters([testConverter]);
    const vp = file('vp.yaml', readFileSync(kyverno, 'utf8').split('---\n')[0]!);
    expect((await convert(vp)).code).toBe(0);
    expect((await convert(vp, '--fail-on', 'different')).code).toBe(1);
    const json = await convert(vp, '--format', 'json');
    expect(JSON.parse(json.out).rules).toEqual([
      expect.objectContaining({ status: 'different', produced: ['ValidatingAdmissionPolicy/block-ephemeral-containers'] }),
    ]);
  });
});
