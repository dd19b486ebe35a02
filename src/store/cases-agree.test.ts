/**
 * One saved-case file, two ways: `check --cases` (src/cli/cases.ts) and the app's policy panel
 * (src/store/policy-run.ts) both run policy cases through src/check/cases.ts, so the same cases
 * against the same objects pass and fail alike. The workspace holds a MutatingAdmissionPolicyBinding
 * naming the validating policy: only bindings of the policy's own kind bind it (the CLI used to
 * take every binding kind, the app only its own). Saved scenarios count toward coverage both ways.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluate, loadCel } from '../cel/index';
import { celAtRelease } from '../check/cases';
import { runCasesFile } from '../cli/cases';
import { nodeFileSystem } from '../cli/node-io';
import { readWorkspaceFile } from '../share/workspace-file';
import { docFromObject } from './documents';
import { caseCoverage, docCaseCoverage, runPolicyCases } from './policy-run';
import { scenarioCoverageOf } from './simulator';
import { testInputs } from './test-inputs';
import { toDraft } from '../request';
import { workspace } from './workspace';

const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', labels: { 'kubernetes.io/metadata.name': 'default' } } };
const policy = (name: string, expression: string) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] },
    validations: [{ expression, message: `${name} says no` }],
  },
});
const binding = (kind: string, name: string, policyName: string) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind,
  metadata: { name },
  spec: { policyName, validationActions: ['Deny'] },
});
const OBJECTS = [
  policy('require-team', "has(object.metadata.labels) && 'team' in object.metadata.labels"),
  binding('ValidatingAdmissionPolicyBinding', 'require-team', 'require-team'),
  policy('no-bound-binding', 'false'),
  binding('MutatingAdmissionPolicyBinding', 'wrong-kind', 'no-bound-binding'),
];
const deployment = (labels: Record<string, string>) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', labels } });
const request = {
  operation: 'CREATE',
  kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
  resource: { group: 'apps', version: 'v1', resource: 'deployments' },
  namespace: 'default',
  name: 'web',
};
const kase = (name: string, labels: Record<string, string>, outcome: string) => ({
  name,
  request,
  object: deployment(labels),
  namespaceObject: namespace,
  expect: { outcome },
});
const FILE = {
  format: 'admission-workbench/workspace',
  version: 1,
  documents: [],
  policyCases: [
    {
      policy: 'require-team',
      // labels without a team (not `labels: {}`: the apiserver drops an empty map, so has() would be false)
      cases: [
        kase('labelled: admitted', { team: 'a' }, 'admit'),
        kase('unlabelled: denied', { app: 'web' }, 'deny'),
        kase('wrong: unlabelled admitted', { app: 'web' }, 'admit'),
      ],
    },
    // bound only by a binding of the other kind: not bound, so the policy is skipped
    { policy: 'no-bound-binding', cases: [kase('not bound: skipped', {}, 'skip'), kase('wrong: not bound but denied', {}, 'deny')] },
  ],
};

// A scenario whose Deployment has no labels at all: has() false, the side the policy cases never take.
const SCENARIO = {
  id: 's1',
  name: 'no labels',
  input: toDraft({
    request: {
      ...request,
      operation: 'CREATE',
      object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' } },
      userInfo: { username: 'alice' },
    },
    namespaceObject: namespace,
  }),
  webhooks: {},
  expect: { allowed: false, deniedBy: 'require-team' },
};

describe('saved cases: the CLI and the app agree', () => {
  beforeAll(async () => {
    await loadCel();
  }, 60_000);

  it('one case file gives the same results both ways', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-cases-'));
    const path = join(dir, 'workspace.json');
    writeFileSync(path, JSON.stringify(FILE));
    const release = workspace.getState().kubernetesVersion;
    const cli = await runCasesFile(path, OBJECTS, nodeFileSystem, celAtRelease({ evaluate }, release), release);
    const cliFailed = cli.problems.filter((p) => p.type === 'Case').map((p) => p.rule);

    const docs = OBJECTS.map((o) => docFromObject(o));
    const appFailed: string[] = [];
    let total = 0;
    for (const group of FILE.policyCases) {
      const doc = docs.find(
        (d) =>
          (d.object as { metadata: { name: string } }).metadata.name === group.policy && (d.object as { kind: string }).kind === 'ValidatingAdmissionPolicy',
      )!;
      const read = readWorkspaceFile(FILE);
      if (!read.ok) throw new Error(read.error);
      const cases = read.workspace.policyCases!.find((g) => g.policy === group.policy)!.cases;
      const report = await runPolicyCases(doc, docs, cases);
      total += report.summary.total;
      appFailed.push(...report.results.filter((r) => !r.pass).map((r) => r.name));
    }
    expect(cliFailed).toEqual(appFailed);
    expect(appFailed).toEqual(['wrong: unlabelled admitted', 'wrong: not bound but denied']);
    expect(cli.summary).toEqual({ total, passed: total - appFailed.length, failed: appFailed.length });
  }, 60_000);

  it('and the same coverage: the CLI summary is the app one, whose gutter marks the expression partly covered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-cases-'));
    const path = join(dir, 'workspace.json');
    writeFileSync(path, JSON.stringify(FILE));
    const release = workspace.getState().kubernetesVersion;
    const cli = await runCasesFile(path, OBJECTS, nodeFileSystem, celAtRelease({ evaluate }, release), release, { coverage: true });
    const cliCoverage = cli.coverage!.find((c) => c.policy === OBJECTS[0])!.coverage;
    const docs = OBJECTS.map((o) => docFromObject(o));
    const read = readWorkspaceFile(FILE);
    if (!read.ok) throw new Error(read.error);
    const cases = read.workspace.policyCases![0]!.cases;
    const app = caseCoverage(docs[0]!, cases, await runPolicyCases(docs[0]!, docs, cases));
    expect(app.summary).toBe(cliCoverage.summary);
    // has() true only; 'team' in … true (team) and false (app only): 3 of 4 sides
    expect(app.summary).toMatch(/^1 of 1 validation fails in some case; 3 of 4 branches \(75 %\)/);
    const line = docs[0]!.text.split('\n').findIndex((l) => l.includes('expression:')) + 1;
    expect(app.marks).toEqual([expect.objectContaining({ line, state: 'partly' })]);
  });

  it('a saved scenario that runs the policy counts as one of its cases, in the CLI and in the app alike', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aw-cases-'));
    const path = join(dir, 'workspace.json');
    writeFileSync(path, JSON.stringify({ ...FILE, scenarios: [SCENARIO] }));
    const release = workspace.getState().kubernetesVersion;
    const cli = await runCasesFile(path, OBJECTS, nodeFileSystem, celAtRelease({ evaluate }, release), release, { coverage: true });
    expect(cli.summary.failed).toBe(2); // the scenario passes: denied by require-team
    const cliCoverage = cli.coverage!.find((c) => c.policy === OBJECTS[0])!.coverage;
    const docs = OBJECTS.map((o) => docFromObject(o));
    const read = readWorkspaceFile({ ...FILE, scenarios: [SCENARIO] });
    if (!read.ok) throw new Error(read.error);
    testInputs.setState({ scenarios: read.workspace.scenarios ?? [] });
    const cases = read.workspace.policyCases![0]!.cases;
    const extra = await scenarioCoverageOf(docs[0]!, docs);
    expect(extra.map((r) => r.name)).toEqual(['scenario no labels']);
    const app = caseCoverage(docs[0]!, cases, await runPolicyCases(docs[0]!, docs, cases), extra);
    expect(app.summary).toBe(cliCoverage.summary);
    expect(app.summary).toMatch(/4 of 4 branches \(100 %\)/);
    const line = docs[0]!.text.split('\n').findIndex((l) => l.includes('expression:')) + 1;
    expect(app.marks).toEqual([expect.objectContaining({ line, state: 'covered' })]);
  }, 60_000);
  it('a policy with no policy case but a scenario that runs it has coverage in the app as in the CLI; one with no run has none', async () => {
    const file = { ...FILE, policyCases: [], scenarios: [SCENARIO] };
    const dir = mkdtempSync(join(tmpdir(), 'aw-cases-'));
    const path = join(dir, 'workspace.json');
    writeFileSync(path, JSON.stringify(file));
    const release = workspace.getState().kubernetesVersion;
    const cli = await runCasesFile(path, OBJECTS, nodeFileSystem, celAtRelease({ evaluate }, release), release, { coverage: true });
    const cliCoverage = cli.coverage!.find((c) => c.policy === OBJECTS[0])!.coverage;
    const docs = OBJECTS.map((o) => docFromObject(o));
    const read = readWorkspaceFile(file);
    if (!read.ok) throw new Error(read.error);
    testInputs.setState({ scenarios: read.workspace.scenarios ?? [] });
    const app = await docCaseCoverage(docs[0]!, docs, []);
    expect(app.report).toBeUndefined();
    expect(app.coverage?.summary).toBe(cliCoverage.summary);
    // the scenario takes has() false only: 1 of 4 sides
    expect(app.coverage?.summary).toMatch(/1 of 4 branches/);
    // no-bound-binding: no case, no scenario runs it (its binding is of the other kind)
    expect(cli.coverage!.find((c) => c.policy === OBJECTS[2])).toBeUndefined();
    expect(await docCaseCoverage(docs[2]!, docs, [])).toEqual({});
  }, 60_000);
});
