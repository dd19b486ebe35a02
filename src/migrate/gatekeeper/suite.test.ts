/**
 * The gatekeeper-library suites (fixtures/gatekeeper) imported as saved cases and run, through the
 * Workbench's own policy evaluation, on the policies converted from their templates and constraints:
 * as Gatekeeper generates them, and standalone.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { kindOf, nameOf, obj, type Obj } from '../../base/json';
import { admittedInput } from '../../request/admitted';
import { evaluate, loadCel } from '../../cel/index';
import { runCases } from '../../policy/cases';
import { convertPolicies } from '../index';
import { fixturePath, fixtureTree } from '../../../fixtures';
import { importGatorSuite } from './suite';

const hasWasm = existsSync(new URL('../../../public/cel/cel.wasm', import.meta.url));
const cel = { evaluate };
const root = fixturePath('gatekeeper');
const files = Object.fromEntries(
  fixtureTree('gatekeeper')
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => [f, readFileSync(join(root, f), 'utf8')]),
);
const imported = importGatorSuite(files);

describe('importGatorSuite', () => {
  it('reads every test of the 16 suites, with all their cases', () => {
    expect(new Set(imported.tests.map((t) => t.suite)).size).toBe(16);
    expect(imported.tests.reduce((n, t) => n + t.cases.length, 0)).toBe(131);
    // the library names no inventory and no count above 1
    expect(imported.problems).toEqual([]);
  });

  it('names a missing file and an unreadable assertion, and keeps the rest', () => {
    const suite = [
      'kind: Suite',
      'apiVersion: test.gatekeeper.sh/v1alpha1',
      'tests:',
      '- name: t',
      '  template: template.yaml',
      '  constraint: c.yaml',
      '  cases:',
      '  - {name: gone, object: missing.yaml, assertions: [{violations: yes}]}',
      '  - {name: odd, object: o.yaml, assertions: [{violations: maybe}, {violations: 2}]}',
    ].join('\n');
    const r = importGatorSuite({
      's/suite.yaml': suite,
      's/template.yaml': files['library/general/requiredlabels/template.yaml']!,
      's/c.yaml': files['library/general/requiredlabels/samples/all-must-have-owner/constraint.yaml']!,
      's/o.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n',
    });
    expect(r.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'tests[0].cases[0].object: missing.yaml: file not given (s/missing.yaml)',
      'tests[0].cases[1].assertions[0].violations: unreadable violations "maybe"',
      'tests[0].cases[1].assertions: a count above 1 is not checked: the apiserver stops at the first failed validation',
    ]);
    expect(r.tests[0]!.cases.map((c) => [c.name, c.expect.outcome])).toEqual([['t / odd', 'deny']]);
  });
});

/**
 * The cases gator and the apiserver decide differently: Pods with only ephemeralContainers. gator
 * reviews the object as written; the apiserver decodes it as a Pod first, which writes
 * `containers: null` (the Go field has no omitempty), so the library's
 * `has(…spec.containers) ? …spec.containers : []` yields null and `null + […]` fails.
 */
const DECODE_DIFFERENCES = [
  'library/pod-security-policy/read-only-root-filesystem: require-read-only-root-filesystem / disallowed-ephemeral',
  'library/pod-security-policy/seccomp: default-seccomp-required / disallowed-ephemeral',
  'library/pod-security-policy/seccompv2: seccomp-baseline / allowed-ephemeral-no-profile',
  'library/pod-security-policy/seccompv2: seccomp-restricted / disallowed-ephemeral-no-profile',
];

describe.runIf(hasWasm)('the suites pass on the converted policies', () => {
  beforeAll(async () => {
    await loadCel();
  }, 60_000);

  it('the cases that differ are those whose Pod the apiserver decodes with containers: null', async () => {
    const named = imported.tests.flatMap((t) => t.cases.map((c) => ({ key: `${t.suite.replace(/\/suite\.yaml$/, '')}: ${c.name}`, c })));
    for (const key of DECODE_DIFFERENCES) {
      const c = named.find((n) => n.key === key)!.c;
      expect(obj(obj(c.input.request.object).spec).containers, key).toBeUndefined();
      const decoded = await admittedInput({ ...c.input, kubernetesVersion: '1.36' });
      expect(obj(obj(decoded.request.object).spec).containers, key).toBeNull();
    }
  });

  it.each(['as-gatekeeper', 'standalone'] as const)(
    '%s',
    async (mode) => {
      const failures: string[] = [];
      let total = 0;
      for (const t of imported.tests) {
        const conv = convertPolicies([t.template, t.constraint], { kubernetesVersion: '1.36', gatekeeper: mode });
        const vaps = conv.objects.filter((o) => kindOf(o) === 'ValidatingAdmissionPolicy');
        const bindings = conv.objects.filter((o) => kindOf(o) === 'ValidatingAdmissionPolicyBinding');
        // as Gatekeeper: the template's policy with this constraint's binding (param = the constraint); standalone: the constraint's own pair
        const policy: Obj | undefined = mode === 'as-gatekeeper' ? vaps.find((v) => nameOf(v) === t.policy) : vaps[0];
        const binding = mode === 'as-gatekeeper' ? bindings.find((b) => nameOf(b) === t.binding) : bindings[0];
        expect(policy, `${t.suite} ${t.name}`).toBeDefined();
        expect(binding, `${t.suite} ${t.name}`).toBeDefined();
        const report = await runCases({ policy, bindings: [binding], paramDocuments: [t.constraint] }, t.cases, cel, { kubernetesVersion: '1.36' });
        total += report.summary.total;
        for (const r of report.results) {
          const unmatched = (t.messagePatterns[r.name] ?? []).filter((p) => !new RegExp(p).test(r.actual.message ?? ''));
          const why = [...r.failures, ...unmatched.map((p) => `message does not match ${JSON.stringify(p)}: ${JSON.stringify(r.actual.message ?? '')}`)];
          if (why.length) failures.push(`${t.suite.replace(/\/suite\.yaml$/, '')}: ${r.name}: ${why.join('; ')}`);
        }
      }
      if (failures.length) writeFileSync(join(tmpdir(), `gatekeeper-suite-${mode}.txt`), failures.join('\n'));
      // each failure's `<suite>: <test> / <case>` (the case names hold no ': ')
      expect(failures.map((f) => f.slice(0, f.indexOf(': ', f.indexOf(': ') + 2)))).toEqual(DECODE_DIFFERENCES);
      expect(total).toBe(131);
    },
    300_000,
  );
});
