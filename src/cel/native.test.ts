/**
 * The native engine (native.ts, wasm/main_native.go `serve`) answers exactly what the
 * WebAssembly engine answers: every vector below goes to both with the same encoded
 * arguments (ops.ts OPS[op].wire) and the answers' texts must be identical, byte for byte
 * (values, types, error kinds and messages, issues, costs). Builds the native engine first
 * when it is missing or older than wasm/ (scripts/build-native.mjs).
 */
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KUBERNETES_VERSIONS } from '../base/releases';
import { findNativeEngine, nativePool, startNativeEngine, type NativeEngine } from './native';
import { loadRawInNode } from './node';
import { newWireSession, OP_INDEX, wireOf, type CelOp, type OpArgs } from './ops';
import type { RawCall } from './raw';
import { CEL_CONTEXTS, type CelBatchItem, type CelCompileOptions, type CelContext } from './types';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
let wasm: RawCall;
let native: NativeEngine;

beforeAll(async () => {
  if ('reason' in (await findNativeEngine())) execFileSync(process.execPath, [join(root, 'scripts', 'build-native.mjs')], { stdio: 'inherit' });
  const found = await findNativeEngine();
  if ('reason' in found) throw new Error(found.reason);
  native = await startNativeEngine(found.path);
  wasm = await loadRawInNode();
}, 900_000);
afterAll(() => native?.close());

const session = newWireSession();

/** Both engines' answers to one operation, as text. */
async function both<K extends CelOp>(op: K, ...args: OpArgs<K>): Promise<{ wasm: string; native: string }> {
  // one session for both: each engine is sent the same text, so each has the items it names
  const wire = wireOf(session, op, args);
  if (!Array.isArray(wire)) throw new Error(wire.message);
  const n = await native.call(OP_INDEX[op], wire);
  return { wasm: wasm(OP_INDEX[op], wire), native: typeof n === 'string' ? n : JSON.stringify(n) };
}

async function same<K extends CelOp>(op: K, ...args: OpArgs<K>): Promise<string> {
  const r = await both(op, ...args);
  expect(r.native, `${op} ${JSON.stringify(args).slice(0, 200)}`).toBe(r.wasm);
  return r.wasm;
}

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'team-a', labels: { app: 'web' }, creationTimestamp: '2026-01-02T03:04:05Z' },
  spec: { containers: [{ name: 'app', image: 'nginx:latest', resources: { limits: { cpu: '500m', memory: '256Mi' } } }] },
};
const INPUTS = JSON.stringify({
  request: {
    uid: 'u1',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    operation: 'CREATE',
    namespace: 'team-a',
    name: 'web',
    userInfo: { username: 'alice', groups: ['dev'] },
  },
  object: pod,
  oldObject: null,
  params: { maxReplicas: 3, names: ['a', 'b'] },
  namespaceObject: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { env: 'prod' } } },
});

/** Values of every CEL type, runtime errors, cost past the per-call limit. */
const EVALUATE: [string, CelContext, CelCompileOptions?][] = [
  ['object.metadata.name', 'vap-variable'],
  ['object.spec.containers.map(c, c.image)', 'vap-variable'],
  ["object.metadata.labels['app'] == 'web'", 'vap-validation'],
  ['1.0 / 3.0', 'vap-variable'],
  ['9223372036854775807', 'vap-variable'],
  ['18446744073709551615u', 'vap-variable'],
  ["b'abc'", 'vap-variable'],
  ["duration('1h30m')", 'vap-variable'],
  ["timestamp('2026-01-02T03:04:05Z')", 'vap-variable'],
  ["timestamp('2026-01-02T03:04:05Z').getHours('Europe/Paris')", 'vap-variable'],
  ['optional.of(1)', 'vap-variable'],
  ['{"a": [1, 2.5, null, true]}', 'vap-variable'],
  ['double("NaN")', 'vap-variable'],
  ['type(object)', 'vap-variable'],
  ["quantity('500m').isLessThan(quantity('1'))", 'vap-variable'],
  ["ip('10.0.0.1').family()", 'vap-variable'],
  ["url('https://example.com/x').getHost()", 'vap-variable'],
  ['params.maxReplicas + 1', 'vap-variable', { hasParams: true }],
  ['namespaceObject.metadata.labels.env', 'vap-variable'],
  ["request.userInfo.username == 'alice'", 'webhook-matchCondition'],
  ["authorizer.group('').resource('pods').check('get').allowed()", 'vap-validation'],
  ['1 / 0', 'vap-variable'],
  ['object.metadata.missing', 'vap-variable'],
  ['object.spec.containers[5].name', 'vap-variable'],
  ['[1, 2, 3].map(x, [1, 2, 3].map(y, [1, 2, 3].map(z, [1,2,3,4,5,6,7,8,9,10].map(w, string(x) + string(y) + string(z) + string(w))))).size()', 'vap-variable'],
  ['lists.range(200).all(i, lists.range(200).all(j, lists.range(200).all(k, i + j + k >= 0)))', 'vap-variable'],
  ['variables.a + 1', 'vap-validation', { variables: [{ name: 'a', expression: 'object.spec.containers.size()' }] }],
  ['Object{spec: Object.spec{replicas: 1}}', 'map-applyConfiguration'],
  ["[JSONPatch{op: 'add', path: '/metadata/labels/x', value: 'y'}]", 'map-jsonPatch'],
  ["[JSONPatch{op: 'add', path: '/metadata/labels/x', value: 1}]", 'map-jsonPatch'],
  ["'not a bool'", 'vap-validation'],
  ["object.metadata.name + ' is denied'", 'vap-messageExpression'],
  // a trace with macro predicates' seen counts (nested, && inside a body)
  ['object.spec.containers.all(c, c.name == "app" && [1, 2, 3].exists(n, n > 1))', 'vap-validation', { trace: true }],
];

/** Compiles: success with cost, errors with their issues, each context. */
const COMPILE: [string, CelContext, CelCompileOptions?][] = [
  ['object.metadata.name == "x"', 'vap-validation'],
  ['object.metadata.name ==', 'vap-validation'],
  ['oldObject.foo', 'webhook-matchCondition'],
  ['params.x', 'vap-validation'],
  ['params.x', 'vap-validation', { hasParams: true }],
  ['object.spec.containers.all(c, c.image.endsWith(":latest"))', 'vap-validation'],
  ["'message'", 'vap-messageExpression'],
  ['1', 'vap-messageExpression'],
  ['object.metadata.name', 'vap-auditAnnotation'],
  ['variables.x', 'vap-validation', { variables: [{ name: 'x', expression: '1' }] }],
  ['Object{spec: Object.spec{replicas: 1}}', 'map-applyConfiguration'],
  ['[]', 'map-jsonPatch'],
  ['request.dryRun', 'map-matchCondition'],
  ['[1,2,3].map(x, [1,2,3].map(y, x * y))', 'vap-validation'],
];

describe('native and WebAssembly engines answer the same', () => {
  test('info', async () => {
    await same('info');
  });

  test('setInputs: usable and unusable inputs', async () => {
    expect(await same('setInputs', 'diff', INPUTS)).toBe('');
    expect(await same('setInputs', 'bad', '{"request": 5')).not.toBe('');
    expect(await same('setInputs', 'bad2', '{"request": {"operation": 7}}')).not.toBe('');
  });

  test('evaluate: values of every type, runtime errors, cost past the limit', async () => {
    await same('setInputs', 'diff', INPUTS);
    const kinds = new Set<string>();
    for (const [expression, context, options] of EVALUATE) {
      const r = JSON.parse(await same('evaluate', expression, context, 'diff', options)) as { ok: boolean; kind?: string };
      kinds.add(r.ok ? 'ok' : r.kind!);
    }
    await same('evaluate', 'true', 'vap-validation', 'unknown-inputs');
    // the vectors reach every verdict kind
    expect([...kinds].sort()).toEqual(['compile', 'cost-exceeded', 'ok', 'runtime']);
  }, 300_000);

  test('evaluateBatch: groups with a shared budget, per-item cost', async () => {
    await same('setInputs', 'diff', INPUTS);
    const heavy = 'lists.range(60).all(i, lists.range(60).all(j, lists.range(60).all(k, i + j + k >= 0)))';
    const items: CelBatchItem[] = [
      ...EVALUATE.map(([expression, context, options]) => ({ expression, context, options })),
      ...Array.from({ length: 4 }, () => ({ expression: heavy, context: 'vap-validation' as const, group: 'policy-a' })),
      {
        expression: 'variables.n > 0',
        context: 'vap-validation',
        options: { variables: [{ name: 'n', expression: 'object.spec.containers.size()' }] },
        group: 'policy-b',
      },
    ];
    await same('evaluateBatch', 'diff', items);
    await same('evaluateBatch', 'unknown-inputs', items.slice(0, 3));
  }, 300_000);

  test('compile, declarations and typeAt in every context', async () => {
    for (const [expression, context, options] of COMPILE) await same('compile', expression, context, options);
    for (const context of CEL_CONTEXTS) {
      await same('declarations', context, undefined);
      await same('declarations', context, { hasParams: true });
    }
    await same('typeAt', 'object.metadata.name.size()', 'vap-validation', 16, undefined);
    await same('typeAt', 'params.x', 'vap-validation', 3, { hasParams: true });
  }, 300_000);

  test('each release: compile (N-1) and evaluate (N) of the libraries that arrive', async () => {
    await same('setInputs', 'diff', INPUTS);
    const expressions = [
      "isIP('10.0.0.1')",
      "format.dns1123Label().validate('abc').hasValue()",
      '[1, 2].all(i, v, v > i)',
      "isSemver('1.2.3')",
      'lists.range(3) == [0, 1, 2]',
      "authorizer.group('').resource('pods').fieldSelector('a=b').check('list').allowed()",
    ];
    for (const kubernetesVersion of KUBERNETES_VERSIONS)
      for (const expression of expressions) {
        await same('compile', expression, 'vap-validation', { kubernetesVersion });
        await same('evaluate', expression, 'vap-validation', 'diff', { kubernetesVersion });
      }
  }, 300_000);

  test('a request the engine cannot read answers the same failure', async () => {
    const n = await native.call(99, []);
    expect(n).toBe(wasmUnknownOp());
  });
});

describe('nativePool: engine processes, one home for stored state', () => {
  /** An operation's arguments as sent (these ops name no batch items: no session is kept). */
  const wired = <K extends CelOp>(op: K, ...args: OpArgs<K>): string[] => wireOf(newWireSession(), op, args) as string[];
  const evaluate = (expression: string, inputsId: string) => wired('evaluate', expression, 'vap-variable', inputsId, undefined);

  test('the home dies: the next engine becomes the home with the stored inputs, and the calls it failed are answered', async () => {
    const path = ((await findNativeEngine()) as { path: string }).path;
    const start = () => startNativeEngine(path);
    const first = await start();
    const pool = nativePool(first, start);
    try {
      expect(await pool.grow(2)).toBe(2);
      expect(await pool.call(OP_INDEX.setInputs, wired('setInputs', 'kept', INPUTS))).toBe('');
      const before = await pool.call(OP_INDEX.evaluate, evaluate('object.metadata.name', 'kept'));
      expect(JSON.parse(before as string)).toMatchObject({ ok: true, value: 'web' });
      // a call outstanding when the home exits, and one after
      const pending = pool.call(OP_INDEX.evaluate, evaluate('lists.range(200).all(i, lists.range(200).all(j, i + j >= 0))', 'kept'));
      first.close();
      expect(JSON.parse((await pending) as string)).toMatchObject({ ok: true, value: true });
      while (first.alive()) await new Promise((r) => setTimeout(r, 10));
      expect(pool.size()).toBe(1);
      expect(await pool.call(OP_INDEX.evaluate, evaluate('object.metadata.name', 'kept'))).toBe(before);
      // inputs dropped are not given to a later home
      await pool.call(OP_INDEX.dropInputs, wired('dropInputs', 'kept'));
      expect(await pool.grow(2)).toBe(2);
      expect(pool.pick()).not.toBe(first);
    } finally {
      pool.close();
    }
  }, 120_000);

  test('onOne: a sequence whose engine exits runs again on a live one', async () => {
    const path = ((await findNativeEngine()) as { path: string }).path;
    const engines: NativeEngine[] = [];
    const start = async () => {
      const e = await startNativeEngine(path);
      engines.push(e);
      return e;
    };
    const pool = nativePool(await start(), start);
    try {
      await pool.grow(2);
      const ran: NativeEngine[] = [];
      const answer = await pool.onOne(async (call) => {
        const e = engines.find((x) => x.call === call)!;
        ran.push(e);
        await call(OP_INDEX.setInputs, wired('setInputs', 'seq', INPUTS));
        // the first engine exits in the middle of the sequence
        if (ran.length === 1) {
          e.close();
          while (e.alive()) await new Promise((r) => setTimeout(r, 10));
        }
        const r = await call(OP_INDEX.evaluate, evaluate('object.metadata.name', 'seq'));
        await call(OP_INDEX.dropInputs, wired('dropInputs', 'seq'));
        return r;
      });
      expect(ran).toHaveLength(2);
      expect(ran[1]).not.toBe(ran[0]);
      expect(JSON.parse(answer as string)).toMatchObject({ ok: true, value: 'web' });
      expect(pool.size()).toBe(1);
    } finally {
      pool.close();
    }
  }, 120_000);

  test('close: the engine is dead at once, and a call right after answers the failure, not a verdict', async () => {
    const path = ((await findNativeEngine()) as { path: string }).path;
    const e = await startNativeEngine(path);
    expect(await e.call(OP_INDEX.info, [])).toEqual(expect.any(String));
    e.close();
    expect(e.alive()).toBe(false);
    expect(await e.call(OP_INDEX.evaluate, evaluate('1 == 1', 'none'))).toMatchObject({ ok: false, kind: 'engine', message: expect.stringMatching(/exited/) });
  }, 120_000);

  test('pick: the least busy live engine; none left: the calls answer the failure', async () => {
    const path = ((await findNativeEngine()) as { path: string }).path;
    const start = () => startNativeEngine(path);
    const pool = nativePool(await start(), start);
    await pool.grow(2);
    const a = pool.pick();
    const busy = a.call(OP_INDEX.evaluate, evaluate('lists.range(100).all(i, lists.range(100).all(j, i + j >= 0))', 'none'));
    const b = pool.pick();
    expect(b).not.toBe(a);
    await busy;
    a.close();
    while (a.alive()) await new Promise((r) => setTimeout(r, 10));
    expect(pool.pick()).toBe(b);
    b.close();
    while (b.alive()) await new Promise((r) => setTimeout(r, 10));
    expect(pool.size()).toBe(0);
    expect(await pool.call(OP_INDEX.info, [])).toMatchObject({ ok: false, kind: 'engine' });
  }, 120_000);
});

/** The WebAssembly engine's answer to an op it does not have. */
function wasmUnknownOp(): string {
  return wasm(99, []);
}
