/**
 * The kubernetesVersion option: each library that arrives between 1.30 and 1.38 is a compile
 * error one release before it can be written and compiles from that release on.
 *
 * Versions are those of k8s.io/apiserver's environment/base.go (IntroducedVersion). A
 * release-N apiserver compiles new expressions at compatibility version N-1, so a library
 * introduced in N is writable from N+1 on; stored expressions (evaluate) see it from N on.
 */
import { describe, expect, test } from 'vitest';
import { compile, declarations, evaluate } from './index';
import { KUBERNETES_VERSIONS, minorOf, type KubernetesVersion } from '../base/releases';
import type { CelContext } from './types';
import { useEngine } from './test-helpers';

useEngine();

interface Arrival {
  library: string;
  /** base.go IntroducedVersion. */
  introduced: number;
  expressions: string[];
  context?: CelContext;
}

const ARRIVALS: Arrival[] = [
  { library: 'IP and CIDR', introduced: 30, expressions: ["ip('10.0.0.1').family() == 4", "cidr('10.0.0.0/8').prefixLength() == 8", "isIP('10.0.0.1')"] },
  { library: 'format', introduced: 31, expressions: ["!format.dns1123Label().validate('abc').hasValue()", "format.named('dns1123Subdomain').hasValue()"] },
  {
    library: 'authorizer selectors (AuthorizeWithSelectors: alpha in 1.31, on from 1.32)',
    introduced: 31,
    expressions: ["authorizer.group('').resource('pods').fieldSelector('spec.nodeName=a').check('list').allowed() || true"],
  },
  {
    library: 'two-variable comprehensions',
    introduced: 32,
    expressions: ['[1, 2].all(i, v, v > i)', "{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}", '[5].exists(i, v, i == 0 && v == 5)'],
  },
  { library: 'semver', introduced: 33, expressions: ["isSemver('1.2.3')", "semver('1.2.3').isLessThan(semver('1.3.0'))"] },
  {
    library: 'lists extension v3 (range, sort, flatten, slice, distinct)',
    introduced: 34,
    expressions: [
      'lists.range(3) == [0, 1, 2]',
      '[3, 1].sort() == [1, 3]',
      '[[1], [2]].flatten() == [1, 2]',
      '[1, 2].slice(0, 1) == [1]',
      '[1, 1].distinct() == [1]',
    ],
  },
  // writable from 1.38 (the 1.38 engine, cel-1.38.wasm)
  { library: 'Kubernetes lists v1 (includes())', introduced: 37, expressions: ['[1, 2, 3].includes(2)', "!['a'].includes('b')"] },
  // writable from 1.39, which the Workbench does not target yet: an error at every target when written
  { library: 'CIDR v1 (isMask())', introduced: 38, expressions: ["cidr('10.0.0.0/8').isMask()", "!cidr('10.0.0.1/8').isMask()"] },
];

const versions = (pred: (minor: number) => boolean): KubernetesVersion[] => KUBERNETES_VERSIONS.filter((v) => pred(minorOf(v)));

describe('compile (write time, compatibility version N-1)', () => {
  for (const a of ARRIVALS) {
    const first = a.introduced + 1;
    test(`${a.library}: an error before 1.${first}, compiles from 1.${first} on`, async () => {
      for (const expression of a.expressions) {
        for (const kubernetesVersion of versions((m) => m < first)) {
          const r = await compile(expression, a.context ?? 'vap-validation', { kubernetesVersion });
          expect(r.ok, `${expression} at ${kubernetesVersion}`).toBe(false);
          expect(r.message).toMatch(/undeclared reference|found no matching overload/);
          // reported at the expression's position, not at 1:1
          expect(r.issues.length).toBeGreaterThan(0);
        }
        for (const kubernetesVersion of versions((m) => m >= first)) {
          const r = await compile(expression, a.context ?? 'vap-validation', { kubernetesVersion });
          expect(r.message, `${expression} at ${kubernetesVersion}`).toBeUndefined();
          expect(r.ok).toBe(true);
        }
      }
    }, 60_000); // the first test per version builds that version's environments
  }

  test('absent is 1.37; the position of the missing function is reported', async () => {
    expect((await compile('lists.range(2).size() == 2', 'vap-validation')).ok).toBe(true);
    // a 1.37 apiserver compiles new expressions at compatibility 1.36: no includes() yet
    expect((await compile('[1].includes(1)', 'vap-validation')).ok).toBe(false);
    const r = await compile("true && isSemver('1.0.0')", 'vap-validation', { kubernetesVersion: '1.33' });
    expect(r.ok).toBe(false);
    // cel-go reports an undeclared function at its call's opening parenthesis
    expect(r.issues[0]).toMatchObject({ line: 1, column: 17 });
  });

  test('a version outside the table is an error value', async () => {
    const r = await compile('true', 'vap-validation', { kubernetesVersion: '1.29' as KubernetesVersion });
    expect(r.ok).toBe(false);
    expect(r.message).toContain('unsupported kubernetesVersion "1.29"');
    const r39 = await compile('true', 'vap-validation', { kubernetesVersion: '1.39' as KubernetesVersion });
    expect(r39.message).toContain('unsupported kubernetesVersion "1.39"');
  });

  test('webhook match conditions and policy variables follow the target too', async () => {
    expect((await compile("isSemver('1.0.0')", 'webhook-matchCondition', { kubernetesVersion: '1.33' })).ok).toBe(false);
    expect((await compile("isSemver('1.0.0')", 'webhook-matchCondition', { kubernetesVersion: '1.34' })).ok).toBe(true);
    const variables = [{ name: 'r', expression: 'lists.range(2)' }];
    const before = await compile('variables.r.size() == 2', 'vap-validation', { kubernetesVersion: '1.34', variables });
    expect(before.ok).toBe(true); // the variable's own error is reported on the variable
    const v34 = await compile('lists.range(2)', 'vap-variable', { kubernetesVersion: '1.34', variables, variableName: 'r' });
    expect(v34.ok).toBe(false);
    const v35 = await compile('lists.range(2)', 'vap-variable', { kubernetesVersion: '1.35', variables, variableName: 'r' });
    expect(v35.ok).toBe(true);
  });
});

describe('evaluate (stored expressions: every library introduced up to N)', () => {
  test('a library evaluates from the release that introduced it', async () => {
    for (const a of ARRIVALS.filter((x) => !x.library.startsWith('authorizer'))) {
      const expression = a.expressions[0]!;
      for (const kubernetesVersion of KUBERNETES_VERSIONS) {
        const r = await evaluate(expression, 'vap-validation', {}, { kubernetesVersion });
        if (minorOf(kubernetesVersion) < a.introduced) {
          expect(r.ok, `${expression} at ${kubernetesVersion}`).toBe(false);
          if (!r.ok) expect(r.stage).toBe('compile');
        } else {
          expect(r.ok, `${expression} at ${kubernetesVersion}: ${r.ok ? '' : r.message}`).toBe(true);
          if (r.ok) expect(r.value).toBe(true);
        }
      }
    }
  }, 60_000);
});

describe('runtime behaviour per release (not a library version)', () => {
  // k8s.io/apiserver pkg/cel/library/quantity.go: add/sub copied the receiver shallowly until
  // v0.36 (`copy := *q`), so on a quantity beyond int64 (an inf.Dec) q.add(1) changed q too; v0.37 deep-copies.
  const big = "quantity('100000000000000000000')";
  const cases: [string, string][] = [
    ['add(int)', `[${big}].all(q, q.add(1).isGreaterThan(q))`],
    ['add(quantity)', `[${big}].all(q, q.add(quantity('1')).isGreaterThan(q))`],
    ['sub(int)', `[${big}].all(q, q.sub(1).isLessThan(q))`],
    ['sub(quantity)', `[${big}].all(q, q.sub(quantity('1')).isLessThan(q))`],
  ];
  test.each(cases)(
    'quantity %s leaves its receiver alone from 1.37 on, changes it before',
    async (_name, expression) => {
      for (const kubernetesVersion of KUBERNETES_VERSIONS) {
        const r = await evaluate(expression, 'vap-validation', {}, { kubernetesVersion });
        expect(r.ok, `${kubernetesVersion}: ${r.ok ? '' : r.message}`).toBe(true);
        if (r.ok) expect(r.value, `${expression} at ${kubernetesVersion}`).toBe(minorOf(kubernetesVersion) >= 37);
      }
      // a quantity within int64 was never affected
      const small = await evaluate("[quantity('1')].all(q, q.add(1).isGreaterThan(q))", 'vap-validation', {}, { kubernetesVersion: '1.30' });
      expect(small.ok && small.value).toBe(true);
    },
    60_000,
  );
});

describe('declarations follow the target', () => {
  test('isSemver and format.named are listed only where they can be written', async () => {
    const names = async (kubernetesVersion: KubernetesVersion) =>
      new Set((await declarations('vap-validation', { kubernetesVersion })).functions.map((f) => f.name));
    const d33 = await names('1.33');
    const d34 = await names('1.34');
    expect(d33.has('isSemver')).toBe(false);
    expect(d34.has('isSemver')).toBe(true);
    expect((await names('1.31')).has('format.named')).toBe(false);
    expect((await names('1.32')).has('format.named')).toBe(true);
  });
});

describe("each release's cel-go (wasm/celgo_releases.go, fixes.go; checked by tools/cel-oracle)", () => {
  test('a backtick-escaped field: 1.37 reads it, 1.33–1.36 refuse the syntax, 1.30–1.32 do not know the character', async () => {
    const expr = 'object.metadata.labels.`my-label`';
    const inputs = { object: { metadata: { labels: { 'my-label': 'x' } } } };
    expect((await evaluate(expr, 'vap-variable', inputs, { kubernetesVersion: '1.37' })).ok).toBe(true);
    for (const v of versions((m) => m >= 33 && m <= 36)) {
      const c = await compile(expr, 'vap-validation', { kubernetesVersion: v });
      expect(c.ok ? '' : c.message, v).toContain("1:24: unsupported syntax: '`'");
    }
    for (const v of versions((m) => m <= 32)) {
      const c = await compile(expr, 'vap-validation', { kubernetesVersion: v });
      expect(c.ok ? '' : c.message, v).toMatch(/1:24: Syntax error: token recognition error at: '`'[\s\S]*1:33: Syntax error: token recognition error/);
    }
  });
  test('1.30 (cel-go v0.17): no first()/last(), format() checked only when evaluated, optMap on optional.none() a type error', async () => {
    const at130 = { kubernetesVersion: '1.30' } as const;
    expect((await compile('[1].first()', 'vap-variable', at130)).message).toContain("undeclared reference to 'first' (in container '')");
    expect((await compile('[1].first()', 'vap-variable', { kubernetesVersion: '1.33' })).ok).toBe(true);
    const bad = "'%d'.format(['a'])";
    expect((await compile(bad, 'vap-variable', { kubernetesVersion: '1.31' })).message).toContain('decimal clause can only be used on integers');
    expect((await compile(bad, 'vap-variable', at130)).ok).toBe(true);
    const r = await evaluate(bad, 'vap-variable', {}, at130);
    expect(r.ok ? '' : `${r.stage}: ${r.message}`).toContain('runtime: ');
    expect(r.ok ? '' : r.message).toContain('error during formatting: decimal clause can only be used on integers, was given string');
    expect((await compile("'%s'.format([1, 'x'])", 'vap-variable', at130)).ok).toBe(true);
    expect((await compile('optional.none().optMap(x, x + 1)', 'vap-variable', at130)).message).toContain(
      'incompatible type already exists for expression: id:2  call_expr:{function:"optional.none"}(2) old:optional(_var0), new:optional(_var3)',
    );
    const cost = async (v: KubernetesVersion) => (await compile("['b', 'a', 'c'].map(x, x + 'a')", 'vap-variable', { kubernetesVersion: v })).cost?.max;
    expect(await cost('1.30')).toBeGreaterThan(2 ** 62);
    expect(await cost('1.33')).toBeLessThan(100);
  });
  test('lists.range(-1): [] at 1.34–1.36 (cel-go v0.26), an error at 1.37 (v0.29)', async () => {
    for (const v of versions((m) => m >= 34 && m <= 36)) {
      const r = await evaluate('lists.range(-1)', 'vap-variable', {}, { kubernetesVersion: v });
      expect(r.ok && r.value, v).toEqual([]);
    }
    const r = await evaluate('lists.range(-1)', 'vap-variable', {}, { kubernetesVersion: '1.37' });
    expect(r.ok ? '' : r.message).toContain('lists.range: size must be non-negative');
    expect((await compile('lists.range(1)', 'vap-validation', { kubernetesVersion: '1.34' })).ok).toBe(false);
  });
});
