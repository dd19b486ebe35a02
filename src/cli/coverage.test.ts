/**
 * `check --cases FILE --coverage`: the summary per policy, JSON, LCOV at the policy file's lines,
 * --min-coverage's exit status and its usage errors. Real CEL engine; fixtures written by the tests.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEngine } from '../cel/test-helpers';
import { scalarLines } from '../yaml/scalar-lines';
import type { Report } from './format';
import { runCli } from './main';
import { recordingIO as io } from './test-helpers';
import { toDraft, type TestInput } from '../request';

// Line 10 and 11 hold the two lines of the validation (a literal block).
const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations:
  - expression: |
      object.spec.replicas <= 5 ||
      object.metadata.name.startsWith('big-')
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas-b}
spec: {policyName: replicas, validationActions: [Deny]}
`;
const kase = (name: string, replicas: number, outcome: string) => ({
  name,
  input: {
    request: {
      operation: 'CREATE',
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      namespace: 'default',
      name: 'web',
      object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas } },
    },
  },
  expect: { outcome },
});

function fixture(extra: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'aw-coverage-'));
  writeFileSync(join(dir, 'policy.yaml'), policy);
  const ws = {
    format: 'admission-workbench/workspace',
    version: 1,
    documents: [{ name: 'replicas', text: policy.split('---\n')[0] }],
    policyCases: [{ policy: 'replicas', cases: [kase('small', 3, 'admit'), kase('too big', 9, 'deny')] }],
    ...extra,
  };
  writeFileSync(join(dir, 'ws.json'), JSON.stringify(ws));
  return { dir, file: join(dir, 'policy.yaml'), cases: join(dir, 'ws.json') };
}

describe('check --coverage (real CEL engine)', () => {
  useEngine();

  it('prints the summary per policy; JSON carries it; LCOV at the YAML lines; --min-coverage', async () => {
    const f = fixture();
    const text = io();
    expect(await runCli(['check', f.file, '--cases', f.cases, '--coverage'], text)).toBe(0);
    // By hand: the validation is true (small) and false (too big); `replicas <= 5` true and false,
    // startsWith ran only in "too big" (false): 3 of 4 branch sides.
    expect(text.out).toMatch(/^coverage: ValidatingAdmissionPolicy replicas \(2 cases\): 1 of 1 validation fails in some case; 3 of 4 branches \(75 %\); /m);
    expect(text.out).toMatch(/^coverage: 3 of 4 branches \(75 %\) in 1 policy$/m);

    const lcov = join(f.dir, 'coverage.lcov');
    const out = join(f.dir, 'coverage.json');
    const j = io();
    expect(await runCli(['check', f.file, '--cases', f.cases, '--format', 'json', '--lcov', lcov, '--coverage-out', out], j)).toBe(0);
    const report = JSON.parse(j.out) as Report;
    expect(report.coverage).toMatchObject({ percent: 75, branches: { covered: 3, total: 4 } });
    expect(report.coverage!.policies[0]!.validations[0]).toMatchObject({ field: 'spec.validations[0].expression', true: 1, false: 1 });
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(report.coverage);
    expect(readFileSync(lcov, 'utf8')).toBe(
      [
        'TN:',
        `SF:${f.file}`,
        'BRDA:10,0,0,1',
        'BRDA:10,0,1,1',
        'BRDA:11,1,0,0',
        'BRDA:11,1,1,1',
        'BRF:4',
        'BRH:3',
        'DA:10,2',
        'DA:11,1',
        'LF:2',
        'LH:2',
        'end_of_record',
        '',
      ].join('\n'),
    );

    const low = io();
    expect(await runCli(['check', f.file, '--cases', f.cases, '--min-coverage', '80'], low)).toBe(1);
    expect(low.out).toMatch(/3 of 4 branches \(75 %\) in 1 policy, below --min-coverage 80 %/);
    expect(await runCli(['check', f.file, '--cases', f.cases, '--min-coverage', '75'], io())).toBe(0);
  });

  it('scenarios and CEL cases that run the policy count as its cases', async () => {
    const big = kase('big', 7, 'deny').input as unknown as TestInput;
    big.request.name = 'big-web';
    (big.request.object as { metadata: { name: string } }).metadata.name = 'big-web';
    const f = fixture({
      scenarios: [{ id: 's1', name: 'a big one', input: toDraft(big), webhooks: {}, expect: { allowed: true } }],
      celCases: [
        { document: 0, path: 'spec.validations[0].expression', cases: [{ name: 'named big', input: toDraft(big), expect: { error: false, value: 'true' } }] },
      ],
    });
    const r = io();
    expect(await runCli(['check', f.file, '--cases', f.cases, '--format', 'json', '--coverage'], r)).toBe(0);
    const cov = (JSON.parse(r.out) as Report).coverage!.policies[0]!;
    // 2 policy cases + the scenario + the CEL case; startsWith('big-') true in the last two: 4 of 4
    expect(cov.cases).toBe(4);
    expect(cov.validations[0]).toMatchObject({ true: 3, false: 1 });
    expect(cov.branches).toEqual({ covered: 4, total: 4 });
  });

  it('usage errors exit 2', async () => {
    const f = fixture();
    for (const argv of [
      ['check', f.file, '--coverage'],
      ['check', f.file, '--cases', f.cases, '--min-coverage', 'many'],
      ['check', f.file, '--cases', f.cases, '--min-coverage', '101'],
      ['check', f.file, '--cases', f.cases, '--lcov'],
    ]) {
      const r = io();
      expect(await runCli(argv, r)).toBe(2);
      expect(r.err).toMatch(/admission-workbench: .*(coverage|lcov)/);
    }
  });
});

describe('scalar lines in the file', () => {
  it('literal blocks line by line; plain and quoted scalars on their line; folded lines found by their text', () => {
    const text = 'a: 1\ne: |\n  x ||\n  y\nf: "x || y"\ng: >\n  x ||\n  y\n';
    const block = text.indexOf('|\n');
    expect(scalarLines(text, block, text.indexOf('f:'), 'x ||\ny\n')).toEqual([3, 4, 4]);
    expect(scalarLines(text, text.indexOf('"x'), text.indexOf('\ng:'), 'x || y')).toEqual([5]);
    expect(scalarLines(text, text.indexOf('>'), text.length, 'x || y\n')).toEqual([7, 7]);
  });
});
