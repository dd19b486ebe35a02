/**
 * Each export as code, evaluated by the real tool, gives back exactly the document's object:
 * `pkl eval -f json` (self-contained form: pkl-k8s is on no registry), `jsonnet`, and a Cargo
 * program on k8s-openapi printing `manifests_json()`. On the sample workspace, the gallery and
 * the real-world manifests. A tool that cannot be installed here skips its test and says why.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureFiles } from '../../../fixtures';
import { ensureCodeTools } from '../../../scripts/code-tools.mjs';
import { isObject, type Obj } from '../../base/json';
import { GALLERY } from '../../k8s/gallery';
import { sampleWorkspace } from '../../k8s/templates';
import { type CodeDoc, codeDocsOf, exportAsCode, type SchemaDefinitions } from '.';

const schemas = JSON.parse(readFileSync(join(__dirname, '../../../tools/typecheck-oracle/schemas/1.37.json'), 'utf8')) as SchemaDefinitions;

/** The object as the apiserver holds it: null fields unset, a []byte field's base64 without line breaks. */
function normal(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) return v.map((x) => normal(x));
  if (isObject(v)) return Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (x === null ? [] : [[k, normal(x, k)]])));
  return key === 'caBundle' && typeof v === 'string' ? v.replace(/\s+/g, '') : v;
}

const sets: [string, CodeDoc[]][] = [
  ['the sample workspace', sampleWorkspace().map((object) => ({ object: object as Obj }))],
  ['the gallery', GALLERY.flatMap((g) => codeDocsOf(g.yaml).docs)],
  ...fixtureFiles('realworld').map((f): [string, CodeDoc[]] => [f.split('/').pop()!, codeDocsOf(readFileSync(f, 'utf8')).docs]),
];
/** What k8s-openapi types: the built-in kinds of the release (the real-world files also hold Services, Deployments, CRDs…). */
const typed = (docs: CodeDoc[]) => docs.filter((d) => exportAsCode([d], 'rust', { kubernetesVersion: '1.37', schemas }).problems.length === 0);

const tools = ensureCodeTools('v1_37');
const work = mkdtempSync(join(tmpdir(), 'code-export-'));
const evaluate = (bin: string, args: string[], cwd?: string): unknown => JSON.parse(execFileSync(bin, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20 }));

describe.skipIf(!!tools.jsonnet.missing)(`Jsonnet round trip${tools.jsonnet.missing ? ` (skipped: ${tools.jsonnet.missing})` : ''}`, () => {
  it.each(sets)('%s', (name, docs) => {
    const out = exportAsCode(docs, 'jsonnet', { kubernetesVersion: '1.37', schemas });
    expect(out.problems).toEqual([]);
    const file = join(work, `${name}.jsonnet`);
    writeFileSync(file, out.files[0]!.text);
    expect(normal(evaluate((tools.jsonnet as { bin: string }).bin, [file]))).toEqual(docs.map((d) => normal(d.object)));
  });
});

describe.skipIf(!!tools.pkl.missing)(`Pkl round trip, self-contained${tools.pkl.missing ? ` (skipped: ${tools.pkl.missing})` : ''}`, () => {
  it.each(sets)('%s', (_name, docs) => {
    const out = exportAsCode(docs, 'pkl', { kubernetesVersion: '1.37', schemas, selfContained: true });
    expect(out.problems).toEqual([]);
    const dir = mkdtempSync(join(work, 'pkl-'));
    for (const f of out.files) writeFileSync(join(dir, f.name), f.text);
    const list = evaluate((tools.pkl as { bin: string }).bin, ['eval', '-f', 'json', 'manifests.pkl'], dir) as { items: unknown[] };
    expect(normal(list.items)).toEqual(docs.map((d) => normal(d.object)));
  });
});

describe.skipIf(!!tools.cargo.missing)(`Rust round trip on k8s-openapi${tools.cargo.missing ? ` (skipped: ${tools.cargo.missing})` : ''}`, () => {
  const dir = (tools.cargo as { dir: string }).dir;
  // one program for every set (a Cargo build is the slow part): a module per set, main prints them all
  const all = sets.map(([name, docs], i) => ({ name, docs: typed(docs), mod: `set${i}` }));
  let printed: Record<string, unknown[]> = {};
  beforeAll(() => {
    const mods = all.map((s) => {
      const out = exportAsCode(s.docs, 'rust', { kubernetesVersion: '1.37', schemas });
      expect(out.problems).toEqual([]);
      return `mod ${s.mod} {\n${out.files[0]!.text.replace(/^\/\/!.*\n/gm, '').replace('#![allow(clippy::all)]', '')}\n}\n`;
    });
    const main = `${mods.join('\n')}\nfn main() {\n    let mut all = serde_json::Map::new();\n${all.map((s) => `    all.insert("${s.mod}".into(), serde_json::Value::Array(${s.mod}::manifests_json()));\n`).join('')}    println!("{}", serde_json::Value::Object(all));\n}\n`;
    writeFileSync(join(dir, 'src', 'main.rs'), main);
    printed = evaluate('cargo', ['run', '--quiet'], dir) as Record<string, unknown[]>;
  }, 600_000);
  it.each(all.map((s) => [s.name, s] as const))('%s', (_name, s) => {
    expect(normal(printed[s.mod])).toEqual(s.docs.map((d) => normal(d.object)));
  });
  it('types every admission object of the sets but those k8s-openapi has no type for, and says so of those', () => {
    const admission = sets.flatMap(([, docs]) => docs).filter((d) => String(d.object.apiVersion).startsWith('admissionregistration.k8s.io/'));
    const refused = admission.flatMap((d) => exportAsCode([d], 'rust', { kubernetesVersion: '1.37', schemas }).problems);
    expect(refused.map((p) => p.message)).toEqual(
      refused.map(() => expect.stringMatching(/^k8s-openapi 0\.29 \(feature v1_37\) has no v1beta1 ValidatingAdmissionPolicy/)),
    );
    expect(all.flatMap((s) => s.docs).length).toBeGreaterThan(100);
  });
});
