/**
 * Compile and evaluate the five benchmark expressions (cel-engine-notes.md §8) on the real
 * engine, in-process (Node). `npx vitest bench src/cel/cel.bench.ts`
 * compile = what validation does per keystroke (parse + check + program, as the apiserver,
 * plus the static cost estimate); evaluate = one evaluation against inputs already marshalled.
 */
import { bench, describe } from 'vitest';
import { createSyncCompiler, evaluate, evaluateBatch, loadCel, setInputs, type CelBatchItem } from './index';

await loadCel();
const compiler = createSyncCompiler();

const BENCH_EXPRESSIONS = [
  "request.operation == 'CREATE' && object.metadata.namespace != 'kube-system'",
  "object.spec.containers.all(c, c.image.startsWith('registry.internal/'))",
  "has(object.metadata.labels) && 'team' in object.metadata.labels",
  'object.spec.replicas <= params.maxReplicas',
  "!(request.userInfo.username in ['system:admin']) && object.metadata.name.matches('^[a-z]+$')",
] as const;

const inputs = {
  object: {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', labels: { team: 'a', app: 'web' } },
    spec: {
      replicas: 3,
      containers: [
        { name: 'a', image: 'registry.internal/a:1' },
        { name: 'b', image: 'registry.internal/b:1' },
        { name: 'c', image: 'registry.internal/c:1' },
      ],
    },
  },
  params: { maxReplicas: 5 },
  request: {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    name: 'web',
    namespace: 'default',
    userInfo: { username: 'alice', groups: ['dev'] },
  },
};
await setInputs('bench', inputs);
const options = { hasParams: true };
// Go-in-WASM needs V8 to tier up the hot code: warm up before measuring.
const benchOptions = { warmupTime: 1500, warmupIterations: 20, time: 2000 };
for (const e of BENCH_EXPRESSIONS) for (let i = 0; i < 20; i++) compiler.compile(e, 'vap-validation', options);

describe('compile (parse + check + program + estimate)', () => {
  BENCH_EXPRESSIONS.forEach((e, i) => {
    bench(
      `#${i + 1} compile`,
      () => {
        const r = compiler.compile(e, 'vap-validation', options);
        if (!r?.ok) throw new Error(r?.message);
      },
      benchOptions,
    );
  });
});

describe('evaluate (inputs marshalled once)', () => {
  BENCH_EXPRESSIONS.forEach((e, i) => {
    bench(
      `#${i + 1} evaluate`,
      async () => {
        const r = await evaluate(e, 'vap-validation', 'bench', options);
        if (!r.ok || r.value !== true) throw new Error(r.ok ? String(r.value) : r.message);
      },
      benchOptions,
    );
  });
});

// The targets (docs/performance.md: ≥ 10,000 evaluations/s through the TypeScript API for the mix of
// five; ≥ 50,000/s with the batch call): evaluations/s = hz for the mix, hz × 100 for the batch.
let k = 0;
const batch: CelBatchItem[] = Array.from({ length: 100 }, (_, i) => ({
  expression: BENCH_EXPRESSIONS[i % 5]!,
  context: 'vap-validation',
  options,
  group: `policy-${Math.floor(i / 5)}`, // 20 policies of five validations, one request
}));
describe('evaluations/s through the TypeScript API', () => {
  bench(
    'mix of five: one evaluate() per expression',
    async () => {
      const r = await evaluate(BENCH_EXPRESSIONS[k++ % 5]!, 'vap-validation', 'bench', options);
      if (!r.ok || r.value !== true) throw new Error(r.ok ? String(r.value) : r.message);
    },
    benchOptions,
  );
  bench(
    'mix of five: evaluateBatch() of 100 (20 policies × 5), evals/s = hz × 100',
    async () => {
      const rs = await evaluateBatch(batch, 'bench');
      if (!rs.every((r) => r.ok && r.value === true)) throw new Error('batch failed');
    },
    benchOptions,
  );
});

// Target: evaluate with `trace: true` should take ≤ 3× the time of the same evaluation without.
const traced = { hasParams: true, trace: true };
let t = 0;
describe('trace (target: traced ≤ 3× plain)', () => {
  bench(
    'mix of five: evaluate() plain',
    async () => {
      const r = await evaluate(BENCH_EXPRESSIONS[t++ % 5]!, 'vap-validation', 'bench', options);
      if (!r.ok || r.value !== true) throw new Error(r.ok ? String(r.value) : r.message);
    },
    benchOptions,
  );
  bench(
    'mix of five: evaluate() traced',
    async () => {
      const r = await evaluate(BENCH_EXPRESSIONS[t++ % 5]!, 'vap-validation', 'bench', traced);
      if (!r.ok || r.value !== true || !r.trace) throw new Error(r.ok ? String(r.value) : r.message);
    },
    benchOptions,
  );
});
