/**
 * Differential test: the Workbench's static manifest checks (src/k8s/static-manifests.ts,
 * src/check/manifests.ts) against the kube-apiserver loaders themselves (tools/manifest-oracle:
 * k8s.io/kubernetes v1.37.2, and v1.38.0-beta.0 built with `-modfile go.1.38.mod`), on the sets of
 * fixtures.ts exported as the app exports them (src/share/manifest-dir.ts), in both layouts. Per
 * plugin directory: the loader's error must be one of ours (worded the same; a valid directory:
 * none of ours), and for a set with one problem ours is that one. The exported
 * AdmissionConfiguration must read, as the apiserver reads it, as each plugin pointing at its
 * directory; with API webhooks beside the static ones, the MutatingAdmissionWebhook plugin it
 * configures must call them in the simulator's order (every `staticOrder`, as the release honours it).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createSyncCompiler, loadCelFor } from '../../src/cel';
import type { CelCompiler } from '../../src/cel/types';
import type { KubernetesVersion } from '../../src/base/releases';
import { collectWorkspace } from '../../src/admission/workspace';
import { loaderMessages } from '../../src/check/manifests';
import { validate } from '../../src/k8s/validate-all';
import { DEFAULT_MANIFEST_BASE, effectiveStaticOrder, manifestLayout, STATIC_ORDERS, type StaticOrder } from '../../src/k8s/static-manifests';
import { manifestDirectoryFiles, type ManifestDirLayout } from '../../src/share/manifest-dir';
import { buildOracleAsync, ORACLE_BUILDS, runOracle, type OracleBuild, ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';
import { FIXTURES, ORDER_FIXTURES } from './fixtures';

interface OracleResult {
  loaders: Record<string, string>;
  configuration?: Record<string, string>;
  mutatingOrder?: string[];
}

/** One program, two releases: go.mod pins 1.37; `-modfile go.1.38.mod` (Go 1.27) builds it on v1.38.0-beta.0. */
const RELEASES: Record<string, { build: OracleBuild; release: KubernetesVersion }> = {
  '1.37': { build: ORACLE_BUILDS['manifest-oracle-1.37'], release: '1.37' },
  '1.38': { build: ORACLE_BUILDS['manifest-oracle-1.38'], release: '1.38' },
};

const all = () => true;
const ORDER_CASES = ORDER_FIXTURES.flatMap((f) => STATIC_ORDERS.map((order) => ({ f, order })));
let cel: CelCompiler;

interface Answers {
  sets: Map<ManifestDirLayout, OracleResult[]>;
  orders: OracleResult[];
}

/** The staticOrder a case exports and runs: the release's effective one (StaticFirst where the field does not exist). */
const orderAt = (oracle: string, order: StaticOrder): StaticOrder => effectiveStaticOrder(RELEASES[oracle]!.release, order);

async function answersAt(oracle: string, build: OracleBuild): Promise<Answers> {
  const bin = await buildOracleAsync(build);
  if (bin.built) console.info(`built ${build.name} in ${bin.seconds.toFixed(1)} s`);
  const sets = new Map<ManifestDirLayout, OracleResult[]>();
  for (const layout of ['per-object', 'per-directory'] as const) {
    const input = FIXTURES.map((f) => ({
      base: DEFAULT_MANIFEST_BASE,
      files: manifestDirectoryFiles(
        f.objects.map((object) => ({ object })),
        all,
        layout,
      ),
    }));
    sets.set(layout, JSON.parse(await runOracle(bin.path, JSON.stringify(input))) as OracleResult[]);
  }
  const orderInput = ORDER_CASES.map(({ f, order }) => ({
    base: DEFAULT_MANIFEST_BASE,
    files: manifestDirectoryFiles(
      f.static.map((object) => ({ object })),
      all,
      'per-object',
      DEFAULT_MANIFEST_BASE,
      orderAt(oracle, order),
    ),
    api: f.api,
  }));
  return { sets, orders: JSON.parse(await runOracle(bin.path, JSON.stringify(orderInput))) as OracleResult[] };
}

const runs = new Map<string, Promise<Answers>>();
beforeAll(async () => {
  for (const [oracle, { build }] of Object.entries(RELEASES)) {
    const run = answersAt(oracle, build);
    run.catch(() => {}); // handled where it is awaited
    runs.set(oracle, run);
  }
  // every release's engine generation (1.38 has its own), for the sync compiler validate() uses
  for (const { release } of Object.values(RELEASES)) await loadCelFor(release);
  cel = createSyncCompiler();
}, 900_000);

for (const [oracle, { release }] of Object.entries(RELEASES)) {
  let answers: Answers;
  beforeAll(async () => {
    answers = await runs.get(oracle)!;
  }, ORACLE_TEST_TIMEOUT);

  describe.each(['per-object', 'per-directory'] as const)(`static manifests agree with the ${oracle} loaders (%s)`, (layout) => {
    it.each(FIXTURES.map((f, i) => [f.name, i] as const))('%s', (_name, i) => {
      const f = FIXTURES[i]!;
      const theirs = answers.sets.get(layout)![i]!;
      let ours = loaderMessages(f.objects, all, release, (j) => validate(f.objects[j], { cel, kubernetesVersion: release }));
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

  // The order the plugin, configured by the exported AdmissionConfiguration, calls static and API
  // webhooks in (the release's generic.Webhook: order.go) is the simulator's.
  describe(`mutating webhooks run in the ${oracle} plugin's order`, () => {
    it.each(ORDER_CASES.map((c, i) => [`${c.f.name}, ${c.order}`, i] as const))('%s', (_name, i) => {
      const { f, order } = ORDER_CASES[i]!;
      const theirs = answers.orders[i]!;
      expect(theirs.configuration?.MutatingAdmissionWebhook).toBe(`${DEFAULT_MANIFEST_BASE}/mutating-webhooks`);
      const ws = collectWorkspace([...f.static, ...f.api], [], (j) => j < f.static.length, orderAt(oracle, order));
      expect(theirs.mutatingOrder).toEqual(ws.webhooks.mutating.map((w) => `${w.configName}/${w.name}`));
    });
  });
}

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
