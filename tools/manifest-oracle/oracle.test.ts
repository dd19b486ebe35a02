/**
 * Differential test: the Workbench's static manifest checks (src/k8s/static-manifests.ts,
 * src/check/manifests.ts) against the kube-apiserver 1.37 loaders themselves
 * (tools/manifest-oracle: k8s.io/kubernetes v1.37.2), on the sets of fixtures.ts exported as
 * the app exports them (src/share/manifest-dir.ts), in both layouts. Per plugin directory:
 * the loader's error must be one of ours (worded the same; a valid directory: none of ours),
 * and for a set with one problem ours is that one. The exported AdmissionConfiguration must
 * read, as the apiserver reads it, as each plugin pointing at its directory.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createSyncCompiler, loadCel } from '../../src/cel';
import type { CelCompiler } from '../../src/cel/types';
import { loaderMessages } from '../../src/check/manifests';
import { validate } from '../../src/k8s/validate-all';
import { DEFAULT_MANIFEST_BASE, manifestLayout } from '../../src/k8s/static-manifests';
import { manifestDirectoryFiles, type ManifestDirLayout } from '../../src/share/manifest-dir';
import { buildOracle, ORACLE_BUILDS, runOracle } from '../go-oracle.mjs';
import { FIXTURES } from './fixtures';

interface OracleResult {
  loaders: Record<string, string>;
  configuration?: Record<string, string>;
}

const all = () => true;
let cel: CelCompiler;
const results = new Map<ManifestDirLayout, OracleResult[]>();

beforeAll(async () => {
  await loadCel();
  cel = createSyncCompiler();
  const bin = buildOracle(ORACLE_BUILDS['manifest-oracle-1.37']);
  if (bin.built) console.info(`built manifest-oracle in ${bin.seconds.toFixed(1)} s`);
  for (const layout of ['per-object', 'per-directory'] as const) {
    const sets = FIXTURES.map((f) => ({
      base: DEFAULT_MANIFEST_BASE,
      files: manifestDirectoryFiles(
        f.objects.map((object) => ({ object })),
        all,
        layout,
      ),
    }));
    results.set(layout, JSON.parse(await runOracle(bin.path, JSON.stringify(sets))) as OracleResult[]);
  }
}, 900_000);

describe.each(['per-object', 'per-directory'] as const)('static manifests agree with the 1.37 loaders (%s)', (layout) => {
  it.each(FIXTURES.map((f, i) => [f.name, i] as const))('%s', (_name, i) => {
    const f = FIXTURES[i]!;
    const theirs = results.get(layout)![i]!;
    let ours = loaderMessages(f.objects, all, '1.37', (j) => validate(f.objects[j], { cel, kubernetesVersion: '1.37' }));
    if (layout === 'per-directory') ours = perDirectory(ours, f.objects);
    const plugins = new Set(manifestLayout(f.objects, all).map((e) => e.plugin.plugin));
    expect(Object.keys(theirs.loaders).sort()).toEqual([...plugins].sort());
    for (const [plugin, error] of Object.entries(theirs.loaders)) {
      const mine = ours.get(plugin) ?? [];
      if (!error) expect(mine, `${plugin} loads; ours says`).toEqual([]);
      else if (!f.many) expect(mine, `${plugin}`).toEqual([error]);
      else expect(mine, `${plugin}`).toContain(error);
    }
    // the AdmissionConfiguration points every plugin with objects at its directory
    expect(Object.keys(theirs.configuration ?? {}).sort()).toEqual([...plugins].sort());
    for (const e of manifestLayout(f.objects, all)) expect(theirs.configuration?.[e.plugin.plugin]).toBe(`${DEFAULT_MANIFEST_BASE}/${e.plugin.dir}`);
  });
});

/** In the one-file-per-directory layout every object of a directory is in its manifests.yaml. */
function perDirectory(ours: Map<string, string[]>, objects: readonly unknown[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const entries = manifestLayout(objects, all);
  for (const [plugin, messages] of ours) {
    out.set(
      plugin,
      messages.map((m) => entries.reduce((acc, e) => acc.split(e.file).join(`${DEFAULT_MANIFEST_BASE}/${e.plugin.dir}/manifests.yaml`), m)),
    );
  }
  return out;
}
