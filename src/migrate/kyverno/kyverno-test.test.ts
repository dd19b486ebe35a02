/**
 * A policy's own `kyverno test` run on its converted policies (importKyvernoTest through
 * sourceTestCases, as `admission-workbench convert` and the Migration view run it), where what
 * `kyverno test` checks is not one rule's decision alone: a pattern rule's `skip`, and a mutate
 * rule's patched object, which is its whole policy's (patch-chain.ts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FixtureSet, fixturePath } from '../../../fixtures';
import { isObject, nameOf } from '../../base/json';
import { evaluate } from '../../cel';
import { useEngine } from '../../cel/test-helpers';
import { parseDocuments } from '../../yaml';
import { convertPolicies } from '../index';
import { runSourceTestCases, sourceTestCases } from '../source-tests';

useEngine();

const OPTIONS = { kubernetesVersion: '1.36', gatekeeper: 'standalone' } as const;

/** Every YAML file of a fixture folder (its `.kyverno-test/` too), by path from the fixture set; `edit` changes the policy's text. */
function folder(set: FixtureSet, path: string, edit: (policy: string) => string = (t) => t) {
  const root = fixturePath(set);
  const files = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(e)) files.set(relative(root, p), readFileSync(p, 'utf8'));
    }
  };
  walk(join(root, ...path.split('/')));
  const name = path.split('/').pop()!;
  const policyFile = `${path}/${name}.yaml`;
  files.set(policyFile, edit(files.get(policyFile)!));
  return { files, test: `${path}/.kyverno-test/kyverno-test.yaml`, policyFile };
}

/** The folder's test run on the conversion of its policy: each case's name, pass and why (and the run's outcome). */
async function run(f: ReturnType<typeof folder>) {
  const objects = parseDocuments(f.files.get(f.policyFile)!)
    .documents.map((d) => d.object)
    .filter(isObject);
  const conversion = convertPolicies(objects, OPTIONS);
  const cases = sourceTestCases({ kyverno: [f.test], gator: [] }, (p) => f.files.get(p), objects, conversion);
  const { runs } = await runSourceTestCases(cases, { evaluate }, '1.36');
  return { cases, runs: runs.flat().map((r) => [r.name, r.pass, r.why]), outcomes: runs.flat().map((r) => r.result.actual.outcome), conversion };
}

describe("a pattern rule's skip (Kyverno: the rule did not apply; its request is admitted)", () => {
  it('expects admit or skip: the converted policy applies and admits where a conditional anchor does not hold', async () => {
    const r = await run(folder('kyverno-pattern', 'other/disallow-localhost-services'));
    expect(r.conversion.rules.map((x) => x.status)).toEqual(['exact']);
    expect(r.cases.problems).toEqual([]);
    expect(r.cases.byRule.flat().map((c) => c.case.expect)).toEqual([{ outcome: 'deny' }, { outcome: 'admit', orSkip: true }]);
    expect(r.runs).toEqual([
      ['no-localhost-service/no-localhost-service: Service my-service fail', true, ''],
      ['no-localhost-service/no-localhost-service: Service my-np-service skip', true, ''],
    ]);
    expect(r.outcomes).toEqual(['deny', 'admit']);
  });

  it('a converted rule that denies what Kyverno skipped still fails', async () => {
    // without the anchor the rule asks every Service to be an ExternalName one: the NodePort Service is denied, the test still says skip
    const r = await run(folder('kyverno-pattern', 'other/disallow-localhost-services', (t) => t.replace('(type): ExternalName', 'type: ExternalName')));
    expect(r.runs).toEqual([
      ['no-localhost-service/no-localhost-service: Service my-service fail', true, ''],
      ['no-localhost-service/no-localhost-service: Service my-np-service skip', false, expect.stringMatching(/^expected admit or skip, got deny: /)],
    ]);
  });
});

describe("a mutate rule's patched resource is its whole policy's (every mutate rule, in order)", () => {
  const log4shell = 'other/mitigate-log4shell';
  const pre = 'cpol-log4shell-mitigation-add-log4shell-mitigation-';
  it('each rule runs with the rules before and after it, and its case compares the object they make', async () => {
    const r = await run(folder('kyverno-mutate', log4shell));
    expect(r.cases.problems).toEqual([]);
    const chains = r.cases.byRule.flat().map((c) => [c.case.name, c.chain?.before.map((t) => nameOf(t.policy)), c.chain?.after.map((t) => nameOf(t.policy))]);
    expect(chains).toEqual([
      ['log4shell-mitigation/add-log4shell-mitigation-initcontainers: Pod demo-pod01 pass', [], [`${pre}containers`]],
      ['log4shell-mitigation/add-log4shell-mitigation-initcontainers: Pod demo-pod02 skip', [], [`${pre}containers`]],
      ['log4shell-mitigation/add-log4shell-mitigation-containers: Pod demo-pod01 pass', [`${pre}initcontainers`], []],
      ['log4shell-mitigation/add-log4shell-mitigation-containers: Pod demo-pod02 pass', [`${pre}initcontainers`], []],
    ]);
    expect(r.runs.filter(([, pass]) => !pass)).toEqual([]);
  });

  it('a rule that patches otherwise fails its own cases and those of the rules before it, as `kyverno test` fails them', async () => {
    // the containers' value no longer the one the patched files hold
    const r = await run(folder('kyverno-mutate', log4shell, (t) => t.replace(/(containers:\n(?:.*\n)*?\s+value: )"true"(\s*)$/, '$1"yes"$2')));
    const whole = `the object its whole policy patched (${pre}initcontainers, ${pre}containers) differs from the expected object`;
    expect(r.runs).toEqual([
      ['log4shell-mitigation/add-log4shell-mitigation-initcontainers: Pod demo-pod01 pass', false, whole],
      ['log4shell-mitigation/add-log4shell-mitigation-initcontainers: Pod demo-pod02 skip', false, whole],
      ['log4shell-mitigation/add-log4shell-mitigation-containers: Pod demo-pod01 pass', false, whole],
      ['log4shell-mitigation/add-log4shell-mitigation-containers: Pod demo-pod02 pass', false, whole],
    ]);
  });

  it('a mutate rule of the policy not converted that may take the resource: the object is not known, said, not run', async () => {
    // a JSON patch with a negative index is not converted (mutate.test.ts)
    const r = await run(
      folder('kyverno-mutate', log4shell, (t) =>
        t.replace(
          /(- name: add-log4shell-mitigation-containers\n(?:.*\n)*?\s+mutate:\n)[\s\S]*$/,
          '$1      patchesJson6902: |-\n        - op: remove\n          path: /spec/x/-1\n',
        ),
      ),
    );
    expect(r.conversion.rules.map((x) => x.status)).toEqual(['exact', 'unsupported']);
    expect(r.cases.byRule.flat()).toEqual([]);
    expect(r.cases.problems).toEqual([
      expect.stringMatching(/results\[0\]: rule 'add-log4shell-mitigation-containers' of 'log4shell-mitigation' is not converted: /),
      expect.stringMatching(/results\[1\]: rule 'add-log4shell-mitigation-containers' of 'log4shell-mitigation' is not converted: /),
      expect.stringMatching(
        /results\[2\]: patchedResource\.yaml is the object ClusterPolicy 'log4shell-mitigation' patched as a whole on Pod 'demo-pod01', and mutate rule 'add-log4shell-mitigation-containers' of ClusterPolicy 'log4shell-mitigation' is not converted: not run$/,
      ),
      expect.stringMatching(
        /results\[3\]: patchedResource1\.yaml is the object .* on Pod 'demo-pod02', and mutate rule 'add-log4shell-mitigation-containers' .* not converted: not run$/,
      ),
    ]);
  });
});
