/**
 * Differential test: the Workbench's `as-gatekeeper` conversion (src/migrate/gatekeeper) against
 * Gatekeeper v3.23's own generation (tools/gatekeeper-oracle: transform.TemplateToPolicyDefinition
 * and ConstraintToBinding). For every template of the fixtures and the hand-written cases, each
 * object both produce must be the same JSON (keys sorted), and a rule is `exact` only where the
 * oracle produced that very object; where Gatekeeper refuses the input, no rule may be exact.
 * A library template's samples may hold two constraints of one name (a cluster holds one): the
 * converter keeps the later one apart, its binding named with -2 after the constraint's name
 * (RuleResult.duplicate); that binding is compared with Gatekeeper's under its own name.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isObject, kindOf, nameOf, obj, type Obj } from '../../src/base/json';
import { bindingName } from '../../src/migrate/gatekeeper/as-gatekeeper';
import { convertPolicies } from '../../src/migrate/index';
import { buildOracle, ORACLE_BUILDS, runOracle, ORACLE_TEST_TIMEOUT } from '../go-oracle.mjs';
import { HAND_CASES, libraryCases, type OracleCase } from './cases';

interface OracleOut {
  policy: Obj | null;
  error?: string;
  bindings: { binding: Obj | null; error?: string }[];
}

/** JSON with sorted keys: the comparison is of the serialized objects. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x) => (isObject(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x));

const LIBRARY = libraryCases();
const CASES: OracleCase[] = [...LIBRARY, ...HAND_CASES];
let outs: OracleOut[] = [];

beforeAll(async () => {
  const bin = buildOracle(ORACLE_BUILDS['gatekeeper-oracle']);
  if (bin.built) console.info(`built gatekeeper-oracle in ${bin.seconds.toFixed(1)} s`);
  outs = JSON.parse(await runOracle(bin.path, JSON.stringify(CASES.map((c) => ({ template: c.template, constraints: c.constraints }))))) as OracleOut[];
}, ORACLE_TEST_TIMEOUT);

const convert = (c: OracleCase) => convertPolicies([c.template, ...c.constraints], { kubernetesVersion: '1.36', gatekeeper: 'as-gatekeeper' });

describe('as-gatekeeper equals Gatekeeper v3.23', () => {
  it('the fixtures hold the 16 library templates with CEL', () => {
    expect(LIBRARY.length).toBe(16);
  });

  it.each(CASES.map((c, i) => [c.name, i] as const))('%s', (_name, i) => {
    const c = CASES[i]!;
    const theirs = outs[i]!;
    const conv = convert(c);
    const find = (kind: string, name: string) => conv.objects.find((o) => kindOf(o) === kind && nameOf(o) === name);
    const templateRule = conv.rules.find((r) => r.source.kind === 'ConstraintTemplate')!;
    if (theirs.policy) {
      const ours = find('ValidatingAdmissionPolicy', nameOf(theirs.policy));
      // a template Gatekeeper's controller would not generate (generateVAP: false) is unsupported here: nothing to compare
      if (templateRule.status !== 'unsupported') expect(canonical(ours)).toBe(canonical(theirs.policy));
      if (c.library) expect(templateRule.status, templateRule.reason).toBe('exact');
    } else {
      expect(theirs.error, 'the oracle says why').toBeTruthy();
      expect(templateRule.status, `Gatekeeper: ${theirs.error}`).toBe('unsupported');
    }
    const renamed = new Map<string, string>();
    c.constraints.forEach((constraint, j) => {
      const b = theirs.bindings[j]!;
      const same = (o: Obj) => kindOf(o) === kindOf(constraint) && nameOf(o) === nameOf(constraint);
      // the n-th constraint of its kind and name in the input is the n-th rule of that kind and name
      const n = c.constraints.slice(0, j).filter(same).length + 1;
      const rule = conv.rules.filter((r) => r.source.kind === kindOf(constraint) && r.source.name === nameOf(constraint))[n - 1]!;
      expect(rule, nameOf(constraint)).toBeDefined();
      if (!theirs.policy && rule.status !== 'unsupported') throw new Error(`${nameOf(constraint)}: converted although Gatekeeper refuses the template`);
      if (b.binding && theirs.policy) {
        if (rule.status === 'unsupported') return;
        const name = n > 1 ? bindingName(kindOf(constraint), `${nameOf(constraint)}-${n}`) : nameOf(b.binding);
        if (n > 1) {
          expect(rule.duplicate, nameOf(constraint)).toContain('converted apart');
          renamed.set(`ValidatingAdmissionPolicyBinding/${name}`, `ValidatingAdmissionPolicyBinding/${nameOf(b.binding)}`);
        }
        expect(rule.produced).toEqual([`ValidatingAdmissionPolicyBinding/${name}`]);
        const ours = find('ValidatingAdmissionPolicyBinding', name);
        expect(canonical(ours && { ...ours, metadata: { ...obj(ours.metadata), name: nameOf(b.binding) } }), nameOf(constraint)).toBe(canonical(b.binding));
        if (c.library) expect(rule.status).toBe('exact');
      } else expect(rule.status, `${nameOf(constraint)}: Gatekeeper: ${b.error ?? 'no binding'}`).toBe('unsupported');
    });
    // exact is said only of objects the oracle produced (a later duplicate's, under its own name)
    const oracleNames = new Set([theirs.policy, ...theirs.bindings.map((b) => b.binding)].filter(isObject).map((o) => `${kindOf(o)}/${nameOf(o)}`));
    for (const r of conv.rules) if (r.status === 'exact') for (const p of r.produced) expect(oracleNames.has(renamed.get(p) ?? p), p).toBe(true);
  });
});
