/**
 * The source projects' tests open in the workspace: a Kyverno policy with its kyverno-test.yaml and
 * resources, a gator suite with its template, constraints and objects, opened as a folder (paths
 * kept) or file by file (names only), run on the workspace's conversion, counted on each rule; a
 * file a test names that is not open is named; an edit runs them again.
 */
import { existsSync } from 'node:fs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluate, loadCel } from '../cel/index';
import { celAtRelease } from '../check/cases';
import { runCasesFile } from '../cli/cases';
import { nodeFileSystem } from '../cli/node-io';
import { toWorkspaceFile } from '../share/workspace-file';
import { fixtureTree, readFixture, type FixtureSet } from '../../fixtures';
import { nameOf } from '../base/json';
import { importText, type WorkspaceDoc } from './documents';
import { casesSaved, convertToNative, migrateOptions, migrationOf } from './migrate';
import { fileReader, openFiles, runWorkspaceSourceTests } from './migrate-tests';
import { serialize, restoreWorkspace, storageBackend } from './persist';
import { currentWorkspaceFile, openWorkspaceFile } from './share';
import { testInputs } from './test-inputs';
import { workspace } from './workspace';

const hasWasm = existsSync(new URL('../../public/cel/cel.wasm', import.meta.url));

/** Every file under a fixture folder (hidden `.kyverno-test/` included), as documents whose origin is the path from the folder's parent (or the file name alone). */
function open(folder: readonly [FixtureSet, ...string[]], as: 'folder' | 'files', only?: (path: string) => boolean): WorkspaceDoc[] {
  const [set, ...dirs] = folder;
  const prefix = `${dirs.join('/')}/`;
  const parent = dirs.slice(0, -1).join('/');
  return fixtureTree(set)
    .filter((f) => f.startsWith(prefix) && /\.ya?ml$/.test(f) && (!only || only(f.slice(prefix.length))))
    .flatMap((f) => importText(readFixture(set, f), as === 'folder' ? f.slice(parent ? parent.length + 1 : 0) : f.slice(f.lastIndexOf('/') + 1)).docs);
}

/** Every YAML file of a fixture set kept in its source's layout, as documents whose origin is the path from the set's parent. */
const openSet = (set: FixtureSet): WorkspaceDoc[] =>
  fixtureTree(set)
    .filter((f) => /\.ya?ml$/.test(f))
    .flatMap((f) => importText(readFixture(set, f), `${set}/${f}`).docs);

const VPOL = ['kyverno', 'best-practices-vpol', 'disallow-latest-tag'] as const;
const GATOR = ['gatekeeper', 'library', 'general', 'requiredlabels'] as const;

async function run(docs: readonly WorkspaceDoc[]) {
  const m = migrationOf(docs, '1.36', 'as-gatekeeper');
  const r = (await runWorkspaceSourceTests(docs, m.conversion, '1.36'))!;
  return {
    counts: m.conversion.rules.flatMap((rule, i) => {
      const t = r.tests[i];
      return t ? [`${rule.source.kind}/${rule.source.name}: ${t.passed} passed, ${t.failed.length} failed, ${t.differs?.length ?? 0} differ`] : [];
    }),
    problems: r.problems,
    runs: r.runs,
  };
}

describe('reading the files a test names among the open ones', () => {
  const files = new Map([
    ['p/.kyverno-test/resource.yaml', 'a'],
    ['q/.kyverno-test/resource.yaml', 'b'],
    ['values.yaml', 'c'],
  ]);
  const read = fileReader(files);
  it('by the whole path, else by the name when one open file alone has it', () => {
    expect(read('p/.kyverno-test/resource.yaml')).toBe('a');
    expect(read('somewhere/values.yaml')).toBe('c');
    // two open files have the name: neither is guessed
    expect(read('resource.yaml')).toBeUndefined();
  });
  it("a file's documents are joined back into its text, in order", () => {
    const docs = importText('a: 1\n---\nb: 2\n', 'x.yaml').docs;
    expect(openFiles(docs).get('x.yaml')).toBe('a: 1\n---\nb: 2\n');
  });
});

describe.runIf(hasWasm)('the open tests run on the conversion', () => {
  beforeAll(async () => {
    await loadCel();
  }, 60_000);

  it('a Kyverno ValidatingPolicy with its .kyverno-test/ opened as a folder: every case passes on its rule', async () => {
    const r = await run(open(VPOL, 'folder'));
    expect(r.problems).toEqual([]);
    expect(r.counts).toEqual(['ValidatingPolicy/disallow-latest-tag: 8 passed, 0 failed, 0 differ']);
  }, 60_000);

  it('opened file by file (names only): found by name; without its resources, the missing file is named', async () => {
    expect((await run(open(VPOL, 'files'))).counts).toEqual(['ValidatingPolicy/disallow-latest-tag: 8 passed, 0 failed, 0 differ']);
    const r = await run(open(VPOL, 'files', (p) => !p.endsWith('resource.yaml')));
    expect(r.counts).toEqual([]);
    expect(r.problems[0]).toBe('kyverno-test.yaml: resource.yaml: file not given');
    const noPolicy = await run(open(VPOL, 'files', (p) => p.includes('.kyverno-test')));
    expect(noPolicy.problems[0]).toBe('kyverno-test.yaml: policies: disallow-latest-tag.yaml: file not given');
  }, 60_000);

  it('kept by autosave and in a workspace file: the tests find their files again', async () => {
    const docs = open(VPOL, 'folder');
    workspace.getState().replaceAll(docs);
    const store = new Map<string, string>();
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
      removeItem: (k: string) => void store.delete(k),
    };
    await storageBackend(storage).write(serialize({ docs, selectedId: null }));
    const restored = (await restoreWorkspace(storageBackend(storage), storage)).saved!.docs;
    expect((await run(restored)).counts).toEqual(['ValidatingPolicy/disallow-latest-tag: 8 passed, 0 failed, 0 differ']);
    const file = currentWorkspaceFile('workspace');
    expect(file.documents.map((d) => d.file)).toContain('disallow-latest-tag/.kyverno-test/resource.yaml');
    workspace.getState().replaceAll([]);
    openWorkspaceFile(file, 'workspace.json');
    expect((await run(workspace.getState().docs)).counts).toEqual(['ValidatingPolicy/disallow-latest-tag: 8 passed, 0 failed, 0 differ']);
  }, 60_000);

  it("policies of one name in several folders (fixtures/kyverno-same-name): each row opens its own document, each test runs on its own files' policies", async () => {
    const docs = openSet('kyverno-same-name');
    const m = migrationOf(docs, '1.36', 'as-gatekeeper');
    expect(m.rows.map((r) => [r.rule.source.rule, r.doc?.origin, r.rule.produced[0], !!r.rule.duplicate])).toEqual([
      [
        'check-ingress',
        'kyverno-same-name/nginx-ingress-cel/restrict-annotations/restrict-annotations.yaml',
        'ValidatingAdmissionPolicy/cpol-restrict-annotations',
        true,
      ],
      [
        'memory-requests-equal-limits',
        'kyverno-same-name/other-cel/memory-requests-equal-limits/memory-requests-equal-limits.yaml',
        'ValidatingAdmissionPolicy/cpol-memory-requests-equal-limits',
        false,
      ],
      [
        'block-flux-v1',
        'kyverno-same-name/other-cel/restrict-annotations/restrict-annotations.yaml',
        'ValidatingAdmissionPolicy/cpol-restrict-annotations-2',
        true,
      ],
      [
        'memory-requests-equal-limits',
        'kyverno-same-name/other-vpol/memory-requests-equal-limits/memory-requests-equal-limits.yaml',
        'ValidatingAdmissionPolicy/vpol-memory-requests-equal-limits',
        false,
      ],
      [
        'restrict-annotations',
        'kyverno-same-name/other-vpol/restrict-annotations/restrict-annotations.yaml',
        'ValidatingAdmissionPolicy/vpol-restrict-annotations',
        false,
      ],
    ]);
    const r = await run(docs);
    expect(r.problems).toEqual([]);
    expect(r.counts).toEqual([
      'ClusterPolicy/restrict-annotations: 7 passed, 0 failed, 0 differ',
      'ClusterPolicy/memory-requests-equal-limits: 2 passed, 0 failed, 1 differ',
      'ClusterPolicy/restrict-annotations: 3 passed, 0 failed, 0 differ',
      'ValidatingPolicy/memory-requests-equal-limits: 3 passed, 0 failed, 0 differ',
      'ValidatingPolicy/restrict-annotations: 3 passed, 0 failed, 0 differ',
    ]);
    expect(r.runs.flat().flatMap((c) => (c.differs ? [c.differs] : []))).toEqual([
      'batch/v1beta1 cronjobs is not served by Kubernetes 1.36 (removed after 1.24): a real apiserver answers 404 before admission (`kyverno test` reviews it whatever its version)',
    ]);
  }, 60_000);

  it('a gator case whose Pod the apiserver decodes with containers: null is decided differently, and said why', async () => {
    const r = await run(open(['gatekeeper', 'library', 'pod-security-policy', 'read-only-root-filesystem'], 'folder'));
    const differs = r.runs.flat().filter((c) => c.differs);
    expect(differs.map((c) => c.name)).toEqual(['require-read-only-root-filesystem / disallowed-ephemeral']);
    expect(differs[0]!.differs).toBe(
      'the apiserver decodes the object with spec.containers: null (absent in the file, which `gator verify` reviews as written)',
    );
    expect(r.counts.some((c) => / 0 failed, 1 differ$/.test(c))).toBe(true);
  }, 60_000);

  it('a Kyverno case whose container the apiserver defaults (imagePullPolicy Always for a :latest image) is decided differently, the field found by runs', async () => {
    const r = await run(open(['kyverno-pattern', 'other', 'imagepullpolicy-always'], 'folder'));
    expect(r.counts).toEqual(['ClusterPolicy/imagepullpolicy-always: 2 passed, 0 failed, 2 differ']);
    expect(r.runs.flat().flatMap((c) => (c.differs ? [`${c.name}: ${c.differs}`] : []))).toEqual([
      'imagepullpolicy-always/imagepullpolicy-always: Deployment mydeploy1 fail: the apiserver decodes the object with spec.template.spec.containers[0].imagePullPolicy: "Always" (absent in the file, which `kyverno test` reviews as written)',
      'imagepullpolicy-always/imagepullpolicy-always: Pod myapp-pod-2 fail: the apiserver decodes the object with spec.containers[0].imagePullPolicy: "Always" (absent in the file, which `kyverno test` reviews as written)',
    ]);
  }, 60_000);

  it('a gator suite with its template, constraints and objects: counted per constraint; an edit runs them again', async () => {
    const docs = open(GATOR, 'folder');
    const r = await run(docs);
    expect(r.problems).toEqual([]);
    expect(r.counts).toEqual([
      'K8sRequiredLabels/all-must-have-owner: 3 passed, 0 failed, 0 differ',
      'K8sRequiredLabels/must-have-pizza: 2 passed, 0 failed, 0 differ',
    ]);
    // the allowed object of all-must-have-owner loses its owner label: its case fails, by name
    const allowed = docs.findIndex((d) => d.origin === 'requiredlabels/samples/all-must-have-owner/example_allowed.yaml');
    const edited = [...docs];
    edited[allowed] = importText(docs[allowed]!.text.replace(/owner: .*/, 'other: x'), docs[allowed]!.origin!).docs[0]!;
    const after = await run(edited);
    const failed = after.runs.flat().filter((c) => !c.pass);
    expect(failed.map((c) => c.name)).toEqual(['must-have-owner / example-allowed']);
  }, 60_000);
});

describe.runIf(hasWasm)('Convert saves the open tests as cases of the converted policies', () => {
  beforeAll(async () => {
    await loadCel();
  }, 60_000);

  /** Convert everything, then run the workspace's saved cases as `check --cases` does (a workspace file). */
  async function convertAndCheck(docs: WorkspaceDoc[]) {
    workspace.getState().replaceAll(docs);
    convertToNative();
    await casesSaved;
    const s = workspace.getState();
    const file = toWorkspaceFile(s.docs, testInputs.getState(), { kubernetesVersion: '1.36' });
    const path = join(mkdtempSync(join(tmpdir(), 'aw-source-cases-')), 'workspace.json');
    writeFileSync(path, JSON.stringify(file));
    const run = await runCasesFile(path, [], nodeFileSystem, celAtRelease({ evaluate }, '1.36'), '1.36');
    return { groups: (file.policyCases ?? []).map((g) => [s.docs[g.document!]!.object, g.cases.length]), run, notice: s.notices.at(-1)?.text };
  }

  it('a Kyverno policy: each case on the produced policy of its kind, passing in check --cases', async () => {
    const r = await convertAndCheck(open(VPOL, 'folder'));
    expect(r.groups.map(([o, n]) => `${nameOf(o)}: ${n}`)).toEqual(['vpol-disallow-latest-tag: 5', 'vpol-disallow-latest-tag-autogen-defaults: 3']);
    expect(r.run.problems).toEqual([]);
    expect(r.run.summary).toEqual({ total: 8, passed: 8, failed: 0 });
    expect(r.notice).toBe('Saved 8 case(s) of the source tests on the converted policies.');
  }, 60_000);

  it("a Kyverno pattern rule's skip is saved as admit or skip, and passes in check --cases where the converted policy admits", async () => {
    const r = await convertAndCheck(open(['kyverno-pattern', 'other', 'disallow-localhost-services'], 'folder'));
    expect(r.groups.map(([o, n]) => `${nameOf(o)}: ${n}`)).toEqual(['cpol-no-localhost-service: 2']);
    expect(r.run.problems).toEqual([]);
    expect(r.run.summary).toEqual({ total: 2, passed: 2, failed: 0 });
  }, 60_000);

  it("a Kyverno mutate rule's case on its whole policy's object: run in the Migration view, not saved as a case of its policy alone, said", async () => {
    const docs = open(['kyverno-mutate', 'other', 'mitigate-log4shell'], 'folder');
    expect((await run(docs)).counts).toEqual([
      'ClusterPolicy/log4shell-mitigation: 2 passed, 0 failed, 0 differ',
      'ClusterPolicy/log4shell-mitigation: 2 passed, 0 failed, 0 differ',
    ]);
    const r = await convertAndCheck(docs);
    expect(r.groups).toEqual([]);
    expect(r.notice).toBe(
      "Saved 0 case(s) of the source tests on the converted policies. Not saved (the expected object is the whole Kyverno policy's; the Migration view runs them so): 4.",
    );
  }, 60_000);

  it('a gator suite: standalone, each constraint its own policy, saved and passing; as Gatekeeper, one policy with two bindings: not saved, said', async () => {
    migrateOptions.setState({ gatekeeper: 'standalone' });
    try {
      const r = await convertAndCheck(open(GATOR, 'folder'));
      expect(r.groups.map(([o, n]) => `${nameOf(o)}: ${n}`)).toEqual(['k8srequiredlabels-all-must-have-owner: 3', 'k8srequiredlabels-must-have-pizza: 2']);
      expect(r.run.summary).toEqual({ total: 5, passed: 5, failed: 0 });
    } finally {
      migrateOptions.setState({ gatekeeper: 'as-gatekeeper' });
    }
    const r = await convertAndCheck(open(GATOR, 'folder'));
    expect(r.groups).toEqual([]);
    expect(r.notice).toMatch(
      /^Saved 0 case\(s\) .* Not saved \(the policy has several constraints' bindings; the Migration view runs them per constraint\): 5\.$/,
    );
  }, 60_000);
});
